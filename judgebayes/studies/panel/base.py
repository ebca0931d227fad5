r"""Generator x validator panels: the user-facing study, its fits and leave-s-out evaluation.

>>> panel = ValidatorPanel.from_items(items)  # or from_frames(cells, annotations)
>>> fit = panel.fit("nuts", random_seed=0)  # the model the data call for (panel.chosen)
>>> PooledPanel.from_items(items).fit("nuts", random_seed=0)  # a model by its class
>>> fit.interval(alpha=0.1)  # precision per generator
>>> panel.cross_validate(s=range(6), methods=("regression", "veto", "nuts"))

Methods (generator precision)
-----------------------------
``"validator_mean"``, ``"majority"``, ``"super_majority"``, ``"veto"``,
``"plug_in"`` (per-validator Rogan-Gladen), ``"best_individual"``
    baselines of :mod:`judgebayes.inference.panel.ensembles`; thresholds and the best
    validator are chosen on the annotated generators.
``"regression"``
    Jain et al.'s regression (:mod:`judgebayes.inference.panel.regression`).
``"nuts"``
    the panel's Bayesian model (:mod:`judgebayes.models.panel`), one class per model:
    the cell model's :class:`~.cells.PooledPanel`, :class:`~.cells.HierarchicalPanel`
    and :class:`~.cells.OverdispersedPanel`, and the leniency model
    :class:`~.leniency.LeniencyPanel` (each validator's judged rate is the share valid
    shifted on the logit scale; no sensitivity or specificity).  ``ValidatorPanel``'s
    factories choose from the data (the leniency model where its check passes on at
    least 5 annotated generators, else the hierarchical cell model; ``panel.chosen``
    says why); a variant's own factories give that model.  ``"nuts_items"``: the
    item-level Dawid-Skene model.  Laplace is refused by name
    (``ValidatorPanel.methods.refused`` says why).

Checks: ``cells`` (:mod:`judgebayes.checks.panel.cells`: each cell and each annotated
confusion count against a cell-model fit's posterior predictive) and ``leniency``
(:mod:`judgebayes.checks.panel.leniency`: the leniency model's slope 1 on the annotated
generators).  Methods: :mod:`judgebayes.studies.panel.methods`; the models:
:mod:`~.cells`, :mod:`~.leniency`; leave-s-out: :mod:`judgebayes.studies.panel.crossval`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from judgebayes.data.panel import PanelData, panel_from_arrays, panel_from_frames, panel_from_items
from judgebayes.errors import (
    InputError,
    MethodRefused,
    keywords_checked,
    require_type,
    route_keywords,
)
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models.panel import PanelPriors, panel_item_model, panel_var_names
from judgebayes.results import point_tree, tree
from judgebayes.studies.base import FitParts, Study
from judgebayes.studies.panel.fit import PanelFit

__all__ = ["ValidatorPanel"]


class ValidatorPanel(Study):
    """A generator x validator panel ready to fit (see the module docstring): the family's
    door, whose constructor and factories return the model the data call for.
    """

    family = "panel"
    key = "panel"
    abstract = True
    fit_type = PanelFit
    #: the builder of the Bayesian model, the structure it is built with, and the
    #: variables the convergence gate checks (None: ``panel_var_names()``)
    builder: ClassVar[Any] = None
    structure: ClassVar[dict[str, Any]] = {}
    gate_vars: ClassVar[tuple[str, ...] | None] = None
    #: the cell model: logit-normal hierarchies over validators.  With the gate on every
    #: free variable, the validator population mean mu_tpr had R-hat 1.026 at 4 x 1000
    #: (tune 800, 0.9) on a 10 x 8 simulated panel; tune 1500 at 0.95 passes there.  On 30
    #: small panels (benchmarks/panel_gate.py: 5 x 4 plain and shifted, 6 x 5) 4 x 1000 at
    #: 0.95 left R-hat up to 1.016 and tail ESS down to 85; 4 x 2000 passed R-hat and ESS
    #: but 12 of 30 fits diverged (1-4 each), at g -> 1 where the realised share's logit sd
    #: was unbounded.  With that sd bounded (models/panel.py), 4 x 2000 at 0.95 passed 26 of
    #: 30 (3 with 1-2 divergences) and at 0.99 28 of 30 (no divergence; the two failures are
    #: tail ESS 76 and 168 on 6 x 5 panels with rate shifts)
    sampler = SamplerConfig(draws=2000, tune=1500, target_accept=0.99)
    #: the item-level model of one generator (one pool of outputs, several judges: the
    #: Dawid-Skene setting): no generator hierarchy and no rate shifts, so none of the
    #: funnels above; on a 200-output, 8-judge simulation 4 x 1000 at 0.9 passed the gate
    #: in 3 of 3 seeds
    sampler_single_generator = SamplerConfig(target_accept=0.9)
    default_method = "nuts"
    default_methods = ("validator_mean", "regression", "nuts")

    def __init__(self, data: PanelData, *, priors: PanelPriors | None = None):
        self.data = require_type(
            data, PanelData, "data", "use from_frames / from_items / from_arrays"
        )
        self.priors = (
            PanelPriors() if priors is None else require_type(priors, PanelPriors, "priors")
        )

    @classmethod
    @keywords_checked
    def from_frames(
        cls,
        cells: pd.DataFrame,
        annotations: pd.DataFrame | None = None,
        *,
        priors: PanelPriors | None = None,
        annotations_disjoint: bool = False,
    ):
        """From the cell table and the annotation table (``annotations_disjoint``: see
        :func:`~judgebayes.data.panel.panel_from_frames`).
        """
        return cls(
            panel_from_frames(cells, annotations, annotations_disjoint=annotations_disjoint),
            priors=priors,
        )

    @classmethod
    def from_items(cls, items: pd.DataFrame, *, priors: PanelPriors | None = None, **columns: Any):
        """From an item-level table (output, generator, validator, verdict, human)."""
        (columns,) = route_keywords("ValidatorPanel.from_items", columns, panel_from_items)
        return cls(panel_from_items(items, **columns), priors=priors)

    @classmethod
    def from_arrays(cls, n_judged, n_valid, *, priors: PanelPriors | None = None, **kwargs: Any):
        """From generator x validator arrays (see :func:`panel_from_arrays`)."""
        (kwargs,) = route_keywords("ValidatorPanel.from_arrays", kwargs, panel_from_arrays)
        return cls(panel_from_arrays(n_judged, n_valid, **kwargs), priors=priors)

    @classmethod
    def _variant_data(cls, data: Any = None, *args: Any, **kwargs: Any) -> PanelData:
        """The panel data the models are chosen from (checked)."""
        return require_type(data, PanelData, "data", "use from_frames / from_items / from_arrays")

    def with_data(self, data: PanelData) -> ValidatorPanel:
        """The same study (priors) on other panel data, e.g. ``data.calibrate_on(subset)``:
        the same model when it was asked for by its class, else the model these data call
        for.
        """
        door = ValidatorPanel if self.chosen is not None else type(self)
        return door(require_type(data, PanelData, "data"), priors=self.priors)

    # ------------------------------------------------------------ Bayesian
    def _data_structure(self, d: PanelData) -> dict[str, Any]:
        """Structure this model takes from the data (another value: another model)."""
        return {}

    def model_spec(self, data: PanelData | None = None, **kw):
        """:class:`~judgebayes.inference.nuts.ModelSpec` of this panel's Bayesian model
        (``kw``: structure to change, e.g. ``self_shift``).
        """
        d = self.data if data is None else data
        ann = d.tp + d.fn + d.tn + d.fp
        self_shift = kw.pop("self_shift", bool(d.self_judge.any()))
        return ModelSpec(
            builder=self.builder,
            data={
                "n_rest": d.n_judged - ann,
                "k_rest": d.n_valid - d.tp - d.fp,
                "tp": d.tp,
                "pos": d.tp + d.fn,
                "tn": d.tn,
                "neg": d.tn + d.fp,
                "n_annotated": d.n_annotated,
                "n_valid_human": d.n_valid_human,
                "self_mask": d.self_judge,
            },
            structure={
                "generators": d.generators,
                "validators": d.validators,
                "self_shift": self_shift,
                "priors": self.priors,
                **self.structure,
                **self._data_structure(d),
                **kw,
            },
            var_names=self.gate_vars or panel_var_names(),
            sampler=self.sampler,
        )

    def item_model_spec(self, data: PanelData | None = None, difficulty: bool = False):
        """ModelSpec of the item-level model (needs item-level data)."""
        d = self.data if data is None else data
        if d.items is None:
            raise InputError(
                "the item-level model needs item-level verdicts", field="items", value=None
            )
        df = d.items
        codes, out_idx = np.unique(df["output"].to_numpy(), return_inverse=True)
        gmap = {g: i for i, g in enumerate(d.generators)}
        vmap = {v: i for i, v in enumerate(d.validators)}
        out_gen = np.empty(codes.size, dtype=np.int64)
        out_gen[out_idx] = df["generator"].map(gmap).to_numpy()
        human = np.full(codes.size, -1.0)
        h = df["human"].to_numpy(float)
        has = ~np.isnan(h)
        human[out_idx[has]] = h[has]
        y = df["verdict"].to_numpy(float)
        ok = ~np.isnan(y)
        return ModelSpec(
            builder=panel_item_model,
            data={
                "out_gen": out_gen,
                "y_out": out_idx[ok],
                "y_val": df["validator"].map(vmap).to_numpy()[ok],
                "y": y[ok],
                "human": human,
                "self_mask": d.self_judge,
            },
            structure={
                "generators": d.generators,
                "validators": d.validators,
                "n_outputs": int(codes.size),
                # a generator-level rate shift needs generators to differ between: with one
                # generator its shifts are identified by the prior alone (slow, and the
                # validator rates reported are then the population's, not the panel's)
                "rate_shift": len(d.generators) > 1,
                "difficulty": difficulty,
                "self_shift": bool(d.self_judge.any()),
                "priors": self.priors,
            },
            var_names=panel_var_names(),
            sampler=self.sampler_single_generator if len(d.generators) == 1 else self.sampler,
        )

    def _refuse_overlap(self) -> None:
        d = self.data
        if d.annotation_overlap:
            gens = list(d.annotation_overlap)
            raise MethodRefused(
                f"annotated generator(s) {gens} have no confusion counts (tn, fp, fn, tp) in "
                "their cells: if the annotated outputs are among the judged ones, the "
                "Bayesian models would count them twice (once in the human counts, once in "
                "the cells) and lose what they say about each validator's TNR. Give the "
                "confusion counts (or item-level data), or, if the annotated outputs are "
                "not in the cells, build the panel with annotations_disjoint=True",
                field="annotations",
                value=gens[0],
            )

    def _attrs(self, method, parts: FitParts) -> dict:
        return {"variant": parts.info.get("variant")}

    def _point(self, g, info=None, tpr=None, tnr=None, notes=()) -> FitParts:
        """A point estimate of every generator's precision (and validator rates)."""
        d = self.data
        values = {"g": np.asarray(g, float)}
        dims = {"g": ["generator"]}
        if tpr is not None:
            values |= {"tpr": np.asarray(tpr, float), "tnr": np.asarray(tnr, float)}
            dims |= {"tpr": ["validator"], "tnr": ["validator"]}
        return FitParts(
            point_tree(
                values,
                "generator",
                d.generators,
                dims=dims,
                coords={"validator": list(d.validators)},
            ),
            info=dict(info or {}),
            notes=("the method gives a point estimate, no interval (NaN)", *notes),
        )

    # ------------------------------------------------------------ predictive checks
    def cell_replicates(self, fit: PanelFit, data: PanelData | None = None, random_seed=0):
        """(panel data, [(kind, observed, total, replicates)]): one replicate per posterior
        draw of the cell model, for the ``cells`` check (:mod:`judgebayes.checks.panel.cells`) and
        :meth:`predictive`.
        """
        post = fit.tree.posterior
        if fit.is_point or "tpr_cell" not in post:
            raise InputError(
                "the cells check needs a NUTS fit of the cell model (draws of f, tpr_cell, "
                f"tnr_cell); got method {fit.method!r}",
                field="fit",
                value=fit.method,
            )
        d = self.data if data is None else require_type(data, PanelData, "data")
        if d.shape != self.data.shape:
            raise InputError(
                f"data has shape {d.shape}, the fit's panel {self.data.shape}",
                field="data",
                value=d.shape,
            )
        rng = np.random.default_rng(random_seed)

        def flat(var):
            x = post[var].values
            return x.reshape(-1, *x.shape[2:])

        f, vp, vn = flat("f"), flat("tpr_cell"), flat("tnr_cell")
        p = f[:, :, None] * vp + (1 - f[:, :, None]) * (1 - vn)
        ann = d.tp + d.fn + d.tn + d.fp
        n_rest = (d.n_judged - ann).astype(np.int64)
        k_rest = d.n_valid - d.tp - d.fp
        checks = [("cell", k_rest, n_rest, p)]
        if (d.tp + d.fn).any() or (d.tn + d.fp).any():
            checks += [
                ("tpr", d.tp, (d.tp + d.fn).astype(np.int64), flat("tpr")[:, None, :]),
                ("tnr", d.tn, (d.tn + d.fp).astype(np.int64), flat("tnr")[:, None, :]),
            ]
        out = []
        for name, obs, tot, prob in checks:
            rep = rng.binomial(np.broadcast_to(tot, (len(p), *tot.shape)), prob)
            out.append((name, obs, tot, rep))
        return d, out

    def predictive(
        self, fit: PanelFit, *, data: PanelData | None = None, random_seed: int | None = 0
    ):
        """The replicates behind the ``cells`` check as a ``DataTree``.

        Groups ``posterior_predictive`` (one chain, one draw per posterior draw) and
        ``observed_data``, with variables ``cell`` (verdicts on unannotated outputs) and,
        when generators are annotated, ``tpr`` / ``tnr`` (their confusion counts), each
        over a ``cell`` dim labelled ``generator|validator`` (cells with no verdicts are
        left out).  Same seed, same replicates as the check.  For
        ``az.plot_ppc_pit`` / ``az.plot_ppc_dist``, or :func:`judgebayes.results.plot_check`.
        """
        d, checks = self.cell_replicates(fit, data, random_seed)
        pp, obs_d, coords, dims = {}, {}, {}, {}
        for name, obs, tot, rep in checks:
            i, j = np.nonzero(tot > 0)
            dim = f"{name}_cell"
            coords[dim] = [
                f"{d.generators[a]}|{d.validators[b]}" for a, b in zip(i, j, strict=True)
            ]
            pp[name] = rep[:, i, j][None]
            obs_d[name] = np.asarray(obs)[i, j]
            dims[name] = [dim]
        return tree({"posterior_predictive": pp, "observed_data": obs_d}, coords=coords, dims=dims)
