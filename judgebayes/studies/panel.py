r"""Generator x validator panels: the user-facing study, its fits and leave-s-out evaluation.

>>> panel = ValidatorPanel.from_items(items)  # or from_frames(cells, annotations)
>>> fit = panel.fit("nuts", random_seed=0)  # hierarchical Bayesian cell model
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
    the Bayesian cell model (:mod:`judgebayes.models.panel`), variant chosen by
    ``variant="pooled" | "hierarchical" | "overdispersed"``; ``"nuts_items"`` the
    item-level Dawid-Skene model.  Laplace is refused by name
    (``ValidatorPanel.methods.refused`` says why).

Checks (``ValidatorPanel.checks``): ``cells`` (each cell and each annotated confusion count
against a cell-model fit's posterior predictive).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.panel import PanelData, panel_from_arrays, panel_from_frames, panel_from_items
from judgebayes.errors import (
    ConvergenceWarning,
    InputError,
    keywords_checked,
    require_type,
    route_keywords,
)
from judgebayes.inference.executors import run_tasks
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.panel import ensembles as ens
from judgebayes.inference.panel.regression import fit_regression
from judgebayes.inference.registry import check_count
from judgebayes.models.panel import PanelPriors, panel_cell_model, panel_item_model, panel_var_names
from judgebayes.results import Fit, check_alpha, point_tree, tree
from judgebayes.studies.base import FitParts, Study

__all__ = ["PanelFit", "ValidatorPanel"]

VARIANTS = {
    "pooled": {"rate_shift": False, "overdispersion": False},
    "hierarchical": {"rate_shift": True, "overdispersion": False},
    "overdispersed": {"rate_shift": True, "overdispersion": True},
}


@dataclass(frozen=True, eq=False)
class PanelFit(Fit):
    """:class:`~judgebayes.results.Fit` of the panel family: each generator's precision.

    ``quantity`` is ``g`` (the generator's precision) over the ``generator`` unit.  Point
    methods (votes, the regression, plug-in) are one-draw posteriors with NaN intervals
    (said in ``notes``); NUTS fits have draws of ``g``, ``tpr`` and ``tnr`` and (cell
    model) ``precision_judged``, the share of valid outputs among the outputs in the panel
    (``fit.interval(var="precision_judged")``).
    """

    family: str = "panel"
    quantity: str = "g"
    unit: str = "generator"

    @property
    def generators(self) -> tuple[str, ...]:
        """Generator names."""
        return self.units

    def _rate(self, var: str) -> np.ndarray | None:
        if var not in self.idata.posterior:
            return None
        return self.estimate(var)

    @property
    def tpr(self) -> np.ndarray | None:
        """Each validator's TPR (posterior mean or point), where the method estimates it."""
        return self._rate("tpr")

    @property
    def tnr(self) -> np.ndarray | None:
        """Each validator's TNR (posterior mean or point), where the method estimates it."""
        return self._rate("tnr")


class ValidatorPanel(Study):
    """A generator x validator panel ready to fit (see the module docstring)."""

    family = "panel"
    fit_type = PanelFit
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

    def with_data(self, data: PanelData) -> ValidatorPanel:
        """The same study (priors) on other panel data, e.g. ``data.calibrate_on(subset)``."""
        return ValidatorPanel(require_type(data, PanelData, "data"), priors=self.priors)

    # ------------------------------------------------------------ Bayesian
    def model_spec(self, variant: str = "hierarchical", data: PanelData | None = None, **kw):
        """:class:`~judgebayes.inference.nuts.ModelSpec` of the cell model."""
        if variant not in VARIANTS:
            raise InputError(
                f"variant must be one of {tuple(VARIANTS)}, got {variant!r}",
                field="variant",
                value=variant,
            )
        d = self.data if data is None else data
        ann = d.tp + d.fn + d.tn + d.fp
        self_shift = kw.pop("self_shift", bool(d.self_judge.any()))
        return ModelSpec(
            builder=panel_cell_model,
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
                **VARIANTS[variant],
                **kw,
            },
            var_names=panel_var_names(),
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
        )

    def _refuse_overlap(self) -> None:
        d = self.data
        if d.annotation_overlap:
            gens = list(d.annotation_overlap)
            raise InputError(
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
    def _cell_replicates(self, fit: PanelFit, data: PanelData | None, random_seed):
        """(panel, [(check, observed, total, replicates)]) for :meth:`check_cells` and
        :meth:`predictive`: one replicate per posterior draw.
        """
        post = fit.idata.posterior
        if fit.is_point or "f" not in post:
            raise InputError(
                "check_cells needs a NUTS fit of the cell model (draws of f, tpr_cell, "
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

    def check_cells(
        self,
        fit: PanelFit,
        *,
        data: PanelData | None = None,
        alpha: float = 0.01,
        random_seed: int | None = 0,
    ) -> pd.DataFrame:
        r"""Posterior predictive checks of a cell-model fit, cell by cell.

        * ``check="cell"``: each cell's count of "valid" verdicts on unannotated outputs
          against its posterior predictive :math:`\text{Bin}(n_{ij}, f_i v^+_{ij} +
          (1 - f_i)(1 - v^-_{ij}))`, one draw per posterior draw.
        * ``check="tpr"`` / ``"tnr"`` (annotated cells): the confusion counts against the
          validator's panel-level rate :math:`\text{Bin}(tp + fn, v^+_j)`: a small p-value
          says this generator shifts the validator's rate (what the constant-rate
          assumption of the regression and of ``variant="pooled"`` denies).

        Two-sided predictive p-values; ``flagged`` where below ``alpha``.  Compare the
        number flagged with ``alpha`` times the number of rows.  The same replicates, as
        a DataTree for ArviZ, are :meth:`predictive`; plot them with
        :func:`judgebayes.results.plot_check`.

        Parameters
        ----------
        fit : PanelFit
            A ``"nuts"`` fit of the cell model.
        data : PanelData, optional
            The panel the fit was made on (default: the study's).
        alpha : float
            Level below which a p-value is flagged (0.01).
        random_seed : int, optional
            Seeds the predictive draws.
        """
        check_alpha(alpha)
        d, checks = self._cell_replicates(fit, data, random_seed)
        rows = []
        for name, obs, tot, rep in checks:
            lo = (rep <= obs[None]).mean(0)
            hi = (rep >= obs[None]).mean(0)
            pval = np.minimum(1.0, 2 * np.minimum(lo, hi))
            mean = rep.mean(0)
            for i, j in zip(*np.nonzero(tot > 0), strict=True):
                rows.append(
                    {
                        "generator": d.generators[i],
                        "validator": d.validators[j],
                        "check": name,
                        "observed": int(obs[i, j]),
                        "total": int(tot[i, j]),
                        "mean": float(mean[i, j]),
                        "p_value": float(pval[i, j]),
                    }
                )
        out = pd.DataFrame(rows)
        out["flagged"] = out["p_value"] < alpha
        return out

    def predictive(
        self, fit: PanelFit, *, data: PanelData | None = None, random_seed: int | None = 0
    ):
        """The replicates behind :meth:`check_cells` as a ``DataTree``.

        Groups ``posterior_predictive`` (one chain, one draw per posterior draw) and
        ``observed_data``, with variables ``cell`` (verdicts on unannotated outputs) and,
        when generators are annotated, ``tpr`` / ``tnr`` (their confusion counts), each
        over a ``cell`` dim labelled ``generator|validator`` (cells with no verdicts are
        left out).  Same seed, same replicates as :meth:`check_cells`.  For
        ``az.plot_ppc_pit`` / ``az.plot_ppc_dist``, or :func:`judgebayes.results.plot_check`.
        """
        d, checks = self._cell_replicates(fit, data, random_seed)
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

    # ------------------------------------------------------------ leave-s-out
    def cross_validate(
        self,
        s: Iterable[int] = range(6),
        methods: Sequence[str] = (
            "validator_mean",
            "best_individual",
            "majority",
            "veto",
            "regression",
        ),
        *,
        alpha: float = 0.1,
        truth: np.ndarray | None = None,
        random_seed: int | None = 0,
        n_jobs: int = 1,
        executor: Any = None,
        progress: bool | None = None,
        **fit_kwargs: Any,
    ) -> pd.DataFrame:
        """Leave-s-out evaluation over every subset of the annotated generators.

        For each s and each subset of s annotated generators, the panel is refitted with
        human information kept only for that subset, and the other annotated generators
        are scored: MaxAE = max |estimate - human precision| over them.  Returns one row
        per method and s: ``mean_maxae``, ``worst_maxae``, ``n_subsets`` and, for interval
        methods, ``coverage`` (share of held-out generators inside the ``1 - alpha``
        interval) and ``mean_width``.  For MCMC methods ``n_failed`` counts the fits that
        missed the convergence gate (their warnings are not repeated per fit: the count is
        the report), and ``coverage_passed`` / ``mean_maxae_passed`` summarise the fits that
        passed, beside the summaries over all fits; a failed fit is never pooled unseen.
        Compiled Bayesian models are reused across subsets (only the data change).

        ``executor`` (:mod:`judgebayes.inference.executors`: None, a number of local
        processes, a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``)
        says where the fits run; ``n_jobs=n`` is ``executor=n``.  Every fit uses
        ``random_seed``, so the table does not depend on where it ran.  ``progress``
        shows a bar over the fits (None: the package's switch,
        :mod:`judgebayes.inference.progress`).
        """
        A = self.data.annotated
        if A.size < 2:
            raise InputError(
                f"leave-s-out needs at least two annotated generators, got {A.size}",
                field="annotations",
                value=int(A.size),
            )
        ref = self.data.human_precision if truth is None else np.asarray(truth, dtype=float)
        ks = list(s)
        for k in ks:
            if not 0 <= k < A.size:
                raise InputError(f"s must be in 0..{A.size - 1}, got {k}", field="s", value=k)
        tasks = [
            (k, method, sub)
            for k in ks
            for method in methods
            for sub in itertools.combinations(A.tolist(), k)
        ]
        if executor is None and n_jobs > 1:
            executor = n_jobs
        shared = (self, random_seed, fit_kwargs)
        done = run_tasks(
            _fit_subset,
            [(shared, t) for t in tasks],
            executor,
            progress=progress,
            desc="leave-s-out",
        )
        results = dict(zip(tasks, done, strict=True))
        rows = []
        for k in ks:
            for method in methods:
                errs, cover, width, secs = [], [], [], 0.0
                gate: list[bool | None] = []
                cover_ok: list[bool] = []
                for sub in itertools.combinations(A.tolist(), k):
                    est, draws, sec, passed = results[(k, method, sub)]
                    held = np.setdiff1d(A, sub)
                    secs += sec
                    gate.append(passed)
                    errs.append(float(np.max(np.abs(est[held] - ref[held]))))
                    if draws is not None:
                        lo, hi = np.quantile(draws[:, held], [alpha / 2, 1 - alpha / 2], axis=0)
                        inside = list((lo <= ref[held]) & (ref[held] <= hi))
                        cover += inside
                        width += list(hi - lo)
                        if passed is not False:
                            cover_ok += inside
                mcmc = any(p is not None for p in gate)
                ok = [e for e, p in zip(errs, gate, strict=True) if p is not False]
                rows.append(
                    {
                        "method": method,
                        "s": k,
                        "mean_maxae": float(np.mean(errs)),
                        "worst_maxae": float(np.max(errs)),
                        "n_subsets": len(errs),
                        "coverage": float(np.mean(cover)) if cover else np.nan,
                        "mean_width": float(np.mean(width)) if width else np.nan,
                        "n_failed": sum(p is False for p in gate) if mcmc else np.nan,
                        "coverage_passed": (
                            float(np.mean(cover_ok)) if mcmc and cover_ok else np.nan
                        ),
                        "mean_maxae_passed": float(np.mean(ok)) if mcmc and ok else np.nan,
                        "seconds": secs,
                    }
                )
        return pd.DataFrame(rows)


def _fit_subset(task):
    """One leave-s-out fit (a task of :meth:`ValidatorPanel.cross_validate`)."""
    (panel, seed, kwargs), (_, method, sub) = task
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted in n_failed
        f = panel.with_data(panel.data.calibrate_on(sub)).fit(method, random_seed=seed, **kwargs)
    return _cv_result(f)


def _cv_result(f: PanelFit):
    """(estimate, draws (S, G) or None, seconds, gate passed or None) of one fit."""
    draws = None if f.is_point else f.draws().values
    passed = None if f.diagnostics is None else bool(f.diagnostics.passed)
    return f.estimate(), draws, f.seconds, passed


# =========================================================================== methods

ValidatorPanel.methods.refuse(
    "laplace",
    "Laplace is not offered for panels: the cell model is hierarchical (generator "
    "and validator populations with learned spreads), and a Gaussian at its mode "
    "was 2-3x too wide for g (sd 0.030-0.035 where the human labels alone give "
    "0.013-0.019) and failed the importance check (Pareto k-hat 4.9); use "
    "method='nuts' (cell model) or 'nuts_items' (item-level model)",
)


@ValidatorPanel.methods.register(
    "validator_mean", engine="votes", summary="mean of validator rates"
)
def _validator_mean(panel: ValidatorPanel, *, random_seed=None) -> FitParts:
    return panel._point(ens.validator_mean(panel.data))


@ValidatorPanel.methods.register("best_individual", engine="votes", summary="best validator")
def _best_individual(panel: ValidatorPanel, *, random_seed=None) -> FitParts:
    d = panel.data
    rates = ens.individual(d)
    H = d.annotated
    if H.size:
        err = np.nanmax(np.abs(rates[H] - d.human_precision[H, None]), axis=0)
        j = int(np.nanargmin(err))
    else:
        j = int(np.nanargmin(np.nanmean(rates, axis=0)))  # the most critical one
    return panel._point(rates[:, j], {"validator": d.validators[j]})


def _vote(panel: ValidatorPanel, rule: str, threshold: int | None, default) -> FitParts:
    d = panel.data
    counts = ens.vote_counts(d)
    H = d.annotated
    if threshold is not None:
        t = check_count(threshold, "threshold")
    elif default is not None:
        t = default
    elif H.size:
        t = ens.choose_threshold(d, rule, H, d.human_precision, counts)
    else:
        t = d.shape[1] // 2 + 1 if rule == "majority" else min(4, d.shape[1])
    return panel._point(ens.vote(d, rule, t, counts), {"threshold": t})


@ValidatorPanel.methods.register("majority", engine="votes", summary="majority vote")
def _majority(panel: ValidatorPanel, *, random_seed=None, threshold: int | None = None):
    """``threshold`` votes make "valid" (default: chosen on the annotated generators, else
    V // 2 + 1).
    """
    return _vote(panel, "majority", threshold, None)


@ValidatorPanel.methods.register("super_majority", engine="votes", summary="70% vote")
def _super_majority(panel: ValidatorPanel, *, random_seed=None, threshold: int | None = None):
    """``threshold`` votes make "valid" (default: at least 70% of the validators)."""
    return _vote(panel, "majority", threshold, int(np.ceil(0.7 * panel.data.shape[1])))


@ValidatorPanel.methods.register("veto", engine="votes", summary="minority veto")
def _veto(panel: ValidatorPanel, *, random_seed=None, threshold: int | None = None):
    """``threshold`` "invalid" votes veto (default: chosen on the annotated generators,
    else 4).
    """
    return _vote(panel, "veto", threshold, None)


@ValidatorPanel.methods.register("plug_in", engine="votes", summary="per-validator Rogan-Gladen")
def _plug_in(panel: ValidatorPanel, *, random_seed=None) -> FitParts:
    g = ens.plug_in_rogan_gladen(panel.data)
    notes = ()
    if np.isnan(np.asarray(g, float)).all():
        notes = (
            "plug_in needs confusion counts (human labels on the validators' verdicts) in "
            "every validator's cells; this panel has none, so every estimate is NaN",
        )
    return panel._point(g, notes=notes)


@ValidatorPanel.methods.register("regression", engine="regression", summary="Jain et al.")
def _regression(panel: ValidatorPanel, *, random_seed=None, restarts: int = 25) -> FitParts:
    """Jain et al.'s regression with ``restarts`` restarts (25 in the paper)."""
    r = fit_regression(panel.data, restarts=check_count(restarts, "restarts"), seed=random_seed)
    info = {"loss": r.loss, "iterations": r.iterations}
    return panel._point(r.g, info, r.tpr, r.tnr)


@ValidatorPanel.methods.register("nuts", engine="nuts", summary="cell model, NUTS", mcmc=True)
def _nuts(
    panel: ValidatorPanel,
    *,
    random_seed=None,
    variant: str = "hierarchical",
    sampler=None,
    log_likelihood: bool = False,
    prior_draws: int = 0,
) -> FitParts:
    """The cell model (``variant``: "pooled", "hierarchical" or "overdispersed");
    ``log_likelihood`` stores the unannotated cells' pointwise log-likelihood (for LOO).
    """
    panel._refuse_overlap()
    parts = panel._nuts(
        panel.model_spec(variant),
        "panel",
        sampler,
        random_seed,
        log_likelihood=["cells"] if log_likelihood else False,
        prior_draws=prior_draws,
    )
    parts.info["variant"] = variant
    if variant != "hierarchical":
        parts.info["label"] = f"nuts/{variant}"
    return parts


@ValidatorPanel.methods.register(
    "nuts_items", engine="nuts", summary="item-level Dawid-Skene model, NUTS", mcmc=True
)
def _nuts_items(
    panel: ValidatorPanel,
    *,
    random_seed=None,
    difficulty: bool = False,
    sampler=None,
    prior_draws: int = 0,
) -> FitParts:
    """The item-level model (``difficulty``: an item effect shared by the validators)."""
    panel._refuse_overlap()
    one = len(panel.data.generators) == 1
    parts = panel._nuts(
        panel.item_model_spec(difficulty=difficulty),
        "panel.single_generator" if one else "panel",
        sampler,
        random_seed,
        prior_draws=prior_draws,
    )
    parts.info["variant"] = "items"
    return parts


# =========================================================================== checks


@ValidatorPanel.checks.register(
    "cells",
    needs="draws",
    summary="each cell against the cell model's posterior predictive",
    accepts=lambda fit: "f" in fit.idata.posterior,
)
def _cells_check(panel: ValidatorPanel, fit, *, alpha: float) -> pd.DataFrame:
    t = panel.check_cells(fit, alpha=alpha)
    return t.assign(unit=t["generator"] + "|" + t["validator"]).rename(
        columns={"check": "count", "mean": "expected"}
    )
