r"""Generator x validator panels: the user-facing study, its fits and leave-s-out evaluation.

>>> panel = ValidatorPanel.from_items(items)  # or from_frames(cells, annotations)
>>> fit = panel.fit("nuts", random_seed=0)  # hierarchical Bayesian cell model
>>> fit.interval(alpha=0.1)  # precision per generator
>>> panel.cross_validate(s=range(6), methods=("regression", "veto", "laplace"))

Methods (generator precision)
-----------------------------
``"validator_mean"``, ``"majority"``, ``"super_majority"``, ``"veto"``,
``"plug_in"`` (per-validator Rogan-Gladen), ``"best_individual"``
    baselines of :mod:`judgebayes.inference.ensembles`; thresholds and the best
    validator are chosen on the annotated generators.
``"regression"``
    Jain et al.'s regression (:mod:`judgebayes.inference.panel_regression`).
``"nuts"``, ``"laplace"``
    the Bayesian cell model (:mod:`judgebayes.models.panel`), variant chosen by
    ``variant="pooled" | "hierarchical" | "overdispersed"``; ``"nuts_items"`` the
    item-level Dawid-Skene model.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.panel_data import PanelData, panel_from_arrays, panel_from_frames, panel_from_items
from judgebayes.schema import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["PANEL_METHODS", "PanelFit", "ValidatorPanel"]

BASELINES = ("validator_mean", "majority", "super_majority", "veto", "plug_in", "best_individual")
BAYES = ("nuts", "laplace", "nuts_items")
PANEL_METHODS = (*BASELINES, "regression", *BAYES)
VARIANTS = {
    "pooled": {"rate_shift": False, "overdispersion": False},
    "hierarchical": {"rate_shift": True, "overdispersion": False},
    "overdispersed": {"rate_shift": True, "overdispersion": True},
}


@dataclass
class PanelFit:
    """Generator precision from one method.

    Attributes
    ----------
    method : str
    estimate : ndarray (G,)
        Point estimate (posterior mean for Bayesian fits).
    generators : tuple of str
    draws : ndarray (S, G) or None
        Posterior (or Laplace) draws of g for Bayesian fits.
    idata : arviz.InferenceData or None
    diagnostics : Diagnostics or None
    info : dict
        Method facts (threshold, chosen validator, seconds, ...).
    tpr, tnr : ndarray (V,) or None
        Validator rates where the method estimates them.
    """

    method: str
    estimate: np.ndarray
    generators: tuple[str, ...]
    draws: np.ndarray | None = None
    idata: Any = None
    diagnostics: Any = None
    info: dict[str, Any] = field(default_factory=dict)
    tpr: np.ndarray | None = None
    tnr: np.ndarray | None = None

    def interval(self, alpha: float = 0.1) -> pd.DataFrame:
        """Estimate and equal-tailed ``1 - alpha`` interval per generator (NaN for points)."""
        import pandas as pd

        if self.draws is not None:
            lo, hi = np.quantile(self.draws, [alpha / 2, 1 - alpha / 2], axis=0)
        else:
            lo = hi = np.full(self.estimate.size, np.nan)
        return pd.DataFrame(
            {"estimate": self.estimate, "lower": lo, "upper": hi},
            index=pd.Index(self.generators, name="generator"),
        )


class ValidatorPanel:
    """A generator x validator panel ready to fit (see the module docstring)."""

    def __init__(self, data: PanelData):
        self.data = data
        self.fits: dict[str, PanelFit] = {}

    @classmethod
    def from_frames(cls, cells: pd.DataFrame, annotations: pd.DataFrame | None = None):
        """From the cell table and the annotation table."""
        return cls(panel_from_frames(cells, annotations))

    @classmethod
    def from_items(cls, items: pd.DataFrame, **columns: Any):
        """From an item-level table (output, generator, validator, verdict, human)."""
        return cls(panel_from_items(items, **columns))

    @classmethod
    def from_arrays(cls, n_judged, n_valid, **kwargs: Any):
        """From generator x validator arrays (see :func:`panel_from_arrays`)."""
        return cls(panel_from_arrays(n_judged, n_valid, **kwargs))

    # ------------------------------------------------------------ Bayesian
    def model_spec(self, variant: str = "hierarchical", data: PanelData | None = None, **kw):
        """:class:`~judgebayes.inference.sampling.ModelSpec` of the cell model."""
        from judgebayes.inference.sampling import ModelSpec
        from judgebayes.models.panel import panel_cell_model, panel_var_names

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
                **VARIANTS[variant],
                **kw,
            },
            var_names=panel_var_names(),
        )

    def item_model_spec(self, data: PanelData | None = None, difficulty: bool = False):
        """ModelSpec of the item-level model (needs item-level data)."""
        from judgebayes.inference.sampling import ModelSpec
        from judgebayes.models.panel import panel_item_model, panel_var_names

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
                "difficulty": difficulty,
                "self_shift": bool(d.self_judge.any()),
            },
            var_names=panel_var_names(),
        )

    def _bayes(self, method, data, variant, seed, draws, nuts, log_likelihood, difficulty):
        from judgebayes.inference.laplace import fit_laplace
        from judgebayes.inference.sampling import add_log_likelihood, sample_nuts

        if method == "laplace" and VARIANTS.get(variant, {}).get("rate_shift"):
            raise InputError(
                f"Laplace needs variant='pooled': the {variant!r} variant's density peaks "
                "where the spread of the generator-level rate deviations is 0 (a funnel), "
                "so its mode says nothing about the posterior; use method='nuts'",
                field="variant",
                value=variant,
            )
        if method == "nuts_items":
            spec = self.item_model_spec(data, difficulty)
        else:
            spec = self.model_spec(variant, data)
        if method == "laplace":
            idata, info = fit_laplace(spec, draws=draws, random_seed=seed)
            diag = None
        else:
            opts = {"chains": 4, "tune": 1000, "target_accept": 0.9}
            opts.update(nuts or {})
            idata, diag, info = sample_nuts(spec, random_seed=seed, draws=draws, **opts)
            if log_likelihood and method == "nuts":
                add_log_likelihood(idata, spec, ["cells"])
        post = idata.posterior
        g = post["g"].values.reshape(-1, len(self.data.generators))
        info = dict(info)
        info["variant"] = variant if method != "nuts_items" else "items"
        return PanelFit(
            method if method != "nuts" or variant == "hierarchical" else f"nuts/{variant}",
            g.mean(0),
            self.data.generators,
            draws=g,
            idata=idata,
            diagnostics=diag,
            info=info,
            tpr=post["tpr"].values.reshape(-1, len(self.data.validators)).mean(0),
            tnr=post["tnr"].values.reshape(-1, len(self.data.validators)).mean(0),
        )

    # ------------------------------------------------------------ fit
    def fit(
        self,
        method: str = "nuts",
        *,
        variant: str | None = None,
        random_seed: int | None = None,
        draws: int = 1000,
        nuts: dict[str, Any] | None = None,
        log_likelihood: bool = False,
        difficulty: bool = False,
        restarts: int = 25,
        threshold: int | None = None,
        data: PanelData | None = None,
    ) -> PanelFit:
        """Estimate every generator's precision with one method.

        Parameters
        ----------
        method : str
            One of :data:`PANEL_METHODS`.
        variant : {"pooled", "hierarchical", "overdispersed"}, optional
            Bayesian cell-model variant (constant rates; generator-level rate deviations;
            plus beta-binomial overdispersion).  Default ``"hierarchical"`` for NUTS and
            ``"pooled"`` for Laplace (the only variant with a meaningful mode).
        random_seed : int, optional
            Seeds the sampler, the Laplace draws and the regression's restarts.
        draws : int
            Posterior draws per chain (NUTS) or Laplace draws.
        nuts : dict, optional
            ``chains``, ``tune``, ``target_accept`` (default 0.9).
        log_likelihood : bool
            Store the pointwise log-likelihood of the unannotated cells (for LOO).
        difficulty : bool
            Item difficulty in the item-level model.
        restarts : int
            Regression restarts (25 in the paper).
        threshold : int, optional
            Voting threshold; by default chosen on the annotated generators
            (majority: V // 2 + 1 and veto: 4 when none are annotated;
            super-majority: at least 70% of the validators).
        data : PanelData, optional
            Fit on this panel instead (leave-s-out uses it).
        """
        from judgebayes.inference import ensembles as ens
        from judgebayes.inference.panel_regression import fit_regression

        if method not in PANEL_METHODS:
            raise InputError(
                f"method must be one of {PANEL_METHODS}, got {method!r}",
                field="method",
                value=method,
            )
        if variant is None:
            variant = "pooled" if method == "laplace" else "hierarchical"
        d = self.data if data is None else data
        t0 = time.perf_counter()
        V = d.shape[1]
        H = d.annotated
        truth = d.human_precision
        info: dict[str, Any] = {}
        if method in BAYES:
            fit = self._bayes(
                method, d, variant, random_seed, draws, nuts, log_likelihood, difficulty
            )
        elif method == "regression":
            r = fit_regression(d, restarts=restarts, seed=random_seed)
            fit = PanelFit("regression", r.g, d.generators, tpr=r.tpr, tnr=r.tnr,
                           info={"loss": r.loss, "iterations": r.iterations})  # fmt: skip
        elif method == "validator_mean":
            fit = PanelFit(method, ens.validator_mean(d), d.generators)
        elif method == "plug_in":
            fit = PanelFit(method, ens.plug_in_rogan_gladen(d), d.generators)
        elif method == "best_individual":
            rates = ens.individual(d)
            if H.size:
                err = np.nanmax(np.abs(rates[H] - truth[H, None]), axis=0)
                j = int(np.nanargmin(err))
            else:
                j = int(np.nanargmin(np.nanmean(rates, axis=0)))  # the most critical validator
            info = {"validator": d.validators[j]}
            fit = PanelFit(method, rates[:, j], d.generators, info=info)
        else:
            counts = ens.vote_counts(d)
            rule = "veto" if method == "veto" else "majority"
            if threshold is not None:
                t = int(threshold)
            elif method == "super_majority":
                t = int(np.ceil(0.7 * V))
            elif H.size:
                t = ens.choose_threshold(d, rule, H, truth, counts)
            else:
                t = V // 2 + 1 if rule == "majority" else min(4, V)
            fit = PanelFit(
                method, ens.vote(d, rule, t, counts), d.generators, info={"threshold": t}
            )
        fit.info.update(info)
        fit.info["seconds"] = time.perf_counter() - t0
        if data is None:
            self.fits[fit.method] = fit
        return fit

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
        **fit_kwargs: Any,
    ) -> pd.DataFrame:
        """Leave-s-out evaluation over every subset of the annotated generators.

        For each s and each subset of s annotated generators, the panel is refitted with
        human information kept only for that subset, and the other annotated generators
        are scored: MaxAE = max |estimate - human precision| over them.  Returns one row
        per method and s: ``mean_maxae``, ``worst_maxae``, ``n_subsets`` and, for interval
        methods, ``coverage`` (share of held-out generators inside the ``1 - alpha``
        interval) and ``mean_width``.  Compiled Bayesian models are reused across subsets
        (only the data change).
        """
        import pandas as pd

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
        par = [t for t in tasks if t[1] not in BAYES] if n_jobs > 1 else []
        results: dict[tuple, tuple] = {}
        if par:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            global _SHARED
            _SHARED = (self, random_seed, fit_kwargs)
            try:
                with ProcessPoolExecutor(n_jobs, mp_context=mp.get_context("fork")) as ex:
                    for key, res in zip(par, ex.map(_fit_subset, par, chunksize=4), strict=True):
                        results[key] = res
            finally:
                _SHARED = None
        for t in tasks:
            if t not in results:
                f = self.fit(
                    t[1], data=self.data.calibrate_on(t[2]), random_seed=random_seed, **fit_kwargs
                )
                results[t] = (f.estimate, f.draws, f.info["seconds"])
        rows = []
        for k in ks:
            for method in methods:
                errs, cover, width, secs = [], [], [], 0.0
                for sub in itertools.combinations(A.tolist(), k):
                    est, draws, sec = results[(k, method, sub)]
                    held = np.setdiff1d(A, sub)
                    secs += sec
                    errs.append(float(np.max(np.abs(est[held] - ref[held]))))
                    if draws is not None:
                        lo, hi = np.quantile(draws[:, held], [alpha / 2, 1 - alpha / 2], axis=0)
                        cover += list((lo <= ref[held]) & (ref[held] <= hi))
                        width += list(hi - lo)
                rows.append(
                    {
                        "method": method,
                        "s": k,
                        "mean_maxae": float(np.mean(errs)),
                        "worst_maxae": float(np.max(errs)),
                        "n_subsets": len(errs),
                        "coverage": float(np.mean(cover)) if cover else np.nan,
                        "mean_width": float(np.mean(width)) if width else np.nan,
                        "seconds": secs,
                    }
                )
        return pd.DataFrame(rows)


_SHARED: Any = None


def _fit_subset(task):
    """Worker of :meth:`ValidatorPanel.cross_validate` (forked: reads ``_SHARED``)."""
    from threadpoolctl import threadpool_limits

    panel, seed, kwargs = _SHARED
    _, method, sub = task
    # one BLAS thread per worker: n_jobs workers x a multi-threaded BLAS oversubscribe
    # the cores (measured: 175 s instead of 6.7 s for the 63-subset regression pipeline)
    with threadpool_limits(limits=1):
        f = panel.fit(method, data=panel.data.calibrate_on(sub), random_seed=seed, **kwargs)
    return f.estimate, f.draws, f.info["seconds"]
