"""Per-system accuracy summaries from validated counts: the closed-form comparison table.

Used by the CLI (``judgebayes accuracy``) and the demo; one row per system with the naive
rate and its Wilson interval next to the Rogan-Gladen estimate and its Lang-Reiczigel
interval.  Missing verdicts are reported in every row.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.inference import closed_form as cf
from judgebayes.schema import CalibrationCounts, InputError, TestCounts

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["AccuracyStudy", "accuracy_table", "calibration_split"]

NOT_BETTER_THAN_CHANCE = "judge no better than chance on the calibration set (q0 + q1 <= 1)"


def accuracy_table(
    test: TestCounts, calibration: CalibrationCounts, alpha: float = 0.05
) -> pd.DataFrame:
    """Naive and corrected accuracy per system, with intervals.

    The calibration strata are pooled (one confusion matrix for the judge); the test
    strata are summed per system.

    Returns
    -------
    DataFrame
        One row per system: ``system, n, n_missing, k, naive, naive_lower, naive_upper``
        (Wilson), ``m0, m1, calibration_n_missing, q0, q1``, ``estimate, lower, upper``
        (Rogan-Gladen, clipped; Lang-Reiczigel), ``degenerate`` and ``note``.
    """
    import pandas as pd

    k, n, miss = test.per_system()
    cal = calibration.pooled()
    tp, m1, tn, m0 = (int(getattr(cal, a)[0]) for a in ("tp", "m1", "tn", "m0"))
    q0, q1 = tn / m0, tp / m1
    naive = cf.wilson_interval(k, n, alpha)
    p = np.asarray(cf.naive_rate(k, n), dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cf.NotBetterThanChanceWarning)
        lr = cf.lang_reiczigel_interval(
            np.nan_to_num(p), q0, q1, np.maximum(n, 1), m0, m1, alpha, errors="nan"
        )
    est = np.atleast_1d(np.asarray(lr.estimate, float))
    lo, hi = np.atleast_1d(np.asarray(lr[0], float)), np.atleast_1d(np.asarray(lr[1], float))
    degen = np.broadcast_to(np.asarray(lr.degenerate), est.shape)
    contains = np.broadcast_to(np.asarray(lr.contains_estimate), est.shape)
    notes = []
    for i in range(len(test.systems)):
        if n[i] == 0:
            notes.append("no usable verdicts")
            est[i] = lo[i] = hi[i] = np.nan
        elif np.isnan(est[i]):
            notes.append(NOT_BETTER_THAN_CHANCE)
        elif degen[i]:
            notes.append("two-sided interval outside [0, 1]: one-sided bound reported")
        elif not contains[i]:
            notes.append(
                "interval excludes the point estimate: a calibration class has only 1-2 "
                "items, so the adjusted rates differ strongly from the raw ones"
            )
        else:
            notes.append("")
    return pd.DataFrame(
        {
            "system": list(test.systems),
            "n": n,
            "n_missing": miss,
            "k": k,
            "naive": p,
            "naive_lower": np.atleast_1d(naive[0]),
            "naive_upper": np.atleast_1d(naive[1]),
            "m0": m0,
            "m1": m1,
            "calibration_n_missing": int(cal.n_missing[0]),
            "q0": q0,
            "q1": q1,
            "estimate": est,
            "lower": lo,
            "upper": hi,
            "degenerate": degen,
            "note": notes,
        }
    )


def calibration_mask(
    human: np.ndarray, fraction: float, rng: np.random.Generator, *, stratify: bool = True
) -> np.ndarray:
    """Boolean calibration membership of one random split (the rule of
    :func:`calibration_split`; no checks).  Missing labels (not 0/1) are never drawn.
    """
    h = np.asarray(human)
    idx = np.arange(h.size)
    cal_pos: list[np.ndarray] = []
    if stratify:
        for cls in (0, 1):
            members = idx[h == cls]
            size = int(np.clip(np.floor(fraction * members.size + 0.5), 1, members.size - 1))
            cal_pos.append(rng.choice(members, size=size, replace=False))
    else:
        members = idx[(h == 0) | (h == 1)]
        size = int(np.floor(fraction * members.size + 0.5))
        cal_pos.append(rng.choice(members, size=size, replace=False))
    is_cal = np.zeros(h.size, bool)
    is_cal[np.concatenate(cal_pos)] = True
    return is_cal


def calibration_split(
    items: pd.DataFrame,
    fraction: float,
    *,
    human: str = "human",
    random_seed: Any = None,
    stratify: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split an item-level frame into ``(test, calibration)`` parts.

    With ``stratify=True`` each true class contributes ``round(fraction * size)`` items,
    at least one (so that both calibration classes are non-empty) and at most
    ``size - 1``; otherwise a simple random sample of ``round(fraction * len(items))``.
    Rows whose human label is missing stay in the test part.
    """
    if not 0 < fraction < 1:
        raise InputError(
            f"calibration fraction must lie in (0, 1); got {fraction!r}",
            field="fraction",
            value=fraction,
        )
    h = items[human].to_numpy()
    if stratify:
        for cls in (0, 1):
            size = int((h == cls).sum())
            if size < 2:
                raise InputError(
                    f"column {human!r}: class {cls} has {size} item(s); a stratified "
                    "split needs at least 2",
                    field=human,
                    value=cls,
                )
    is_cal = calibration_mask(h, fraction, np.random.default_rng(random_seed), stratify=stratify)
    return items[~is_cal].reset_index(drop=True), items[is_cal].reset_index(drop=True)


# =========================================================================== study
_METHODS = ("closed_form", "laplace", "exact", "nuts")
_KINDS = ("binary", "strata", "multiclass")


def _version() -> str:
    from judgebayes import __version__

    return __version__


class AccuracyStudy:
    r"""Validated data and configuration of one accuracy study; fits by any method.

    Nothing samples in ``__init__``.  The model variant follows from the data:

    * ``binary`` — one or several systems sharing one calibration set (variants a-c),
      with the calibration ``design`` "stratified" (default), "random" or "shifted";
    * ``strata`` — calibration strata with partially pooled judge rates and the
      correction aggregated over each system's test stratum shares (variant d);
    * ``multiclass`` — a K-class judge (variant e).

    Methods: ``closed_form`` (Rogan-Gladen + Lang-Reiczigel; per-stratum Rogan-Gladen
    with a delta-method interval; confusion-matrix inversion), ``laplace``, ``nuts`` and
    ``exact`` (binary, one system, stratified design, uniform theta prior).

    Examples
    --------
    >>> study = AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    >>> study.fit("closed_form").interval().round(3)  # doctest: +NORMALIZE_WHITESPACE
            estimate  lower  upper
    system
    all        0.533   0.43  0.636
    """

    def __init__(
        self,
        test: TestCounts | None = None,
        calibration: CalibrationCounts | None = None,
        *,
        multiclass: Any = None,
        kind: str | None = None,
        design: str = "stratified",
        priors: Any = None,
        better_than_chance: bool = False,
    ):
        from judgebayes.schema import MulticlassCounts

        if multiclass is not None:
            if not isinstance(multiclass, MulticlassCounts):
                raise InputError("multiclass must be MulticlassCounts", field="multiclass")
            kind = "multiclass"
        elif test is None or calibration is None:
            raise InputError("give test and calibration counts", field="test")
        else:
            kind = kind or ("strata" if len(calibration.strata) > 1 else "binary")
        if kind not in _KINDS:
            raise InputError(
                f"kind must be one of {_KINDS}; got {kind!r}", field="kind", value=kind
            )
        if kind == "strata":
            if tuple(test.strata) != tuple(calibration.strata):
                raise InputError(
                    f"test strata {list(test.strata)} and calibration strata "
                    f"{list(calibration.strata)} differ: every stratum needs both",
                    field="stratum",
                    value=sorted(set(test.strata) ^ set(calibration.strata)),
                )
        if design not in ("stratified", "random", "shifted"):
            raise InputError(
                f"design must be stratified, random or shifted; got {design!r}",
                field="design",
                value=design,
            )
        if kind != "binary" and design != "stratified":
            raise InputError(
                f"design={design!r} is available for the binary model only", field="design"
            )
        if design == "random" and test is not None and len(test.systems) != 1:
            raise InputError(
                "design='random' (calibration drawn from the test distribution) needs exactly "
                f"one system; got {len(test.systems)}",
                field="design",
                value=design,
            )
        self.test, self.calibration, self.multiclass = test, calibration, multiclass
        if better_than_chance and kind == "binary":
            cal = calibration.pooled()
            # prior-data conflict: probability of q0 + q1 > 1 under the calibration-only
            # Beta(1 + successes, 1 + failures) posteriors (exact 1-D integral)
            from scipy import integrate, stats

            b0 = stats.beta(1 + cal.tn[0], 1 + cal.m0[0] - cal.tn[0])
            b1 = stats.beta(1 + cal.tp[0], 1 + cal.m1[0] - cal.tp[0])
            mass, _ = integrate.quad(lambda x: b1.pdf(x) * b0.sf(1 - x), 0, 1)
            if mass < 1e-3:
                raise InputError(
                    f"better_than_chance=True excludes the data: the calibration counts give "
                    f"q0 + q1 > 1 a probability of only {mass:.2g} (q0={cal.tn[0]}/{cal.m0[0]}, "
                    f"q1={cal.tp[0]}/{cal.m1[0]})",
                    field="better_than_chance",
                    value=True,
                )
        self.kind, self.design = kind, design
        self.better_than_chance = bool(better_than_chance)
        if priors is None:
            from judgebayes.models.accuracy import AccuracyPriors

            priors = AccuracyPriors()
        self.priors = priors

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_counts(
        cls, k, n, tn, m0, tp, m1, *, systems=None, n_missing=0, **kwargs
    ) -> AccuracyStudy:
        """Counts: ``k`` of ``n`` judged positive (scalar or one per system); calibration
        ``tn`` of ``m0`` truly negative and ``tp`` of ``m1`` truly positive judged right.
        """
        test = TestCounts.from_arrays(k, n, n_missing=n_missing, systems=systems)
        cal = CalibrationCounts(tp=[tp], m1=[m1], tn=[tn], m0=[m0])
        return cls(test, cal, **kwargs)

    @classmethod
    def from_frames(
        cls,
        test_df: pd.DataFrame,
        calibration_df: pd.DataFrame,
        *,
        judge: str = "judge",
        human: str = "human",
        system: str | None = None,
        stratum: str | None = None,
        positive: Any = None,
        **kwargs,
    ) -> AccuracyStudy:
        """Item-level frames (see :mod:`judgebayes.schema`); ``stratum`` names a column of
        both frames and selects the pooled-strata model.
        """
        from judgebayes.schema import counts_from_calibration_frame, counts_from_test_frame

        test = counts_from_test_frame(
            test_df, judge=judge, system=system, stratum=stratum, positive=positive
        )
        cal = counts_from_calibration_frame(
            calibration_df,
            human=human,
            judge=judge,
            stratum=stratum,
            positive=positive,
            allow_empty_classes=stratum is not None,
        )
        if stratum is not None:
            # align the test strata to the calibration order; a stratum missing from the
            # test set gets zero counts (weight 0), one missing from calibration is an error
            missing = [s for s in test.strata if s not in cal.strata]
            if missing:
                raise InputError(
                    f"stratum {missing[0]!r} appears in the test frame but not in the "
                    "calibration frame",
                    field=stratum,
                    value=missing[0],
                )
            order = [test.strata.index(s) if s in test.strata else -1 for s in cal.strata]

            def take(a):
                out = np.zeros((a.shape[0], len(order)), np.int64)
                for j, i in enumerate(order):
                    if i >= 0:
                        out[:, j] = a[:, i]
                return out

            test = TestCounts(
                k=take(test.k),
                n=take(test.n),
                n_missing=take(test.n_missing),
                systems=test.systems,
                strata=cal.strata,
            )
            kwargs.setdefault("kind", "strata")
        return cls(test, cal, **kwargs)

    @classmethod
    def from_multiclass_counts(
        cls, confusion, test, *, classes, systems=None, **kwargs
    ) -> AccuracyStudy:
        """K-class judge from a (K, K) confusion count matrix (rows: true class) and the
        judged-class counts of each system.
        """
        from judgebayes.schema import MulticlassCounts

        test = np.atleast_2d(np.asarray(test))
        systems = (
            tuple(systems)
            if systems is not None
            else (
                ("all",)
                if test.shape[0] == 1
                else tuple(f"system_{i}" for i in range(test.shape[0]))
            )
        )
        mc = MulticlassCounts(
            confusion=confusion, test=test, classes=tuple(map(str, classes)), systems=systems
        )
        return cls(multiclass=mc, **kwargs)

    @classmethod
    def from_multiclass_frames(cls, test_df, calibration_df, **kwargs) -> AccuracyStudy:
        """K-class item-level frames.

        See :func:`~judgebayes.schema.counts_from_multiclass_frames` for the arguments.
        """
        from judgebayes.schema import counts_from_multiclass_frames

        study_kw = {k: kwargs.pop(k) for k in ("priors",) if k in kwargs}
        return cls(
            multiclass=counts_from_multiclass_frames(test_df, calibration_df, **kwargs), **study_kw
        )

    # ----------------------------------------------------------------- model
    @property
    def systems(self) -> tuple[str, ...]:
        """System names."""
        return self.multiclass.systems if self.kind == "multiclass" else self.test.systems

    @property
    def quantity(self) -> str:
        """The reported variable."""
        return "prevalence" if self.kind == "multiclass" else "theta"

    def model_spec(self):
        """The :class:`~judgebayes.inference.sampling.ModelSpec` of this study."""
        from judgebayes.inference.sampling import ModelSpec
        from judgebayes.models import accuracy as ma

        if self.kind == "binary":
            k, n, _ = self.test.per_system()
            cal = self.calibration.pooled()
            data = dict(
                k=k, n=n, tp=int(cal.tp[0]), m1=int(cal.m1[0]), tn=int(cal.tn[0]), m0=int(cal.m0[0])
            )
            structure = dict(
                systems=self.systems,
                design=self.design,
                priors=self.priors,
                better_than_chance=self.better_than_chance,
            )
            names = ("theta", "q0", "q1") + (("theta_cal",) if self.design == "shifted" else ())
            q0h, q1h = data["tn"] / data["m0"], data["tp"] / data["m1"]
            init = None
            if not self.better_than_chance and q0h + q1h > 1:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    th = cf.rogan_gladen(k / np.maximum(n, 1), q0h, q1h)
                init = {
                    "theta": np.clip(th, 0.05, 0.95),
                    "q0": np.clip(q0h, 0.05, 0.95),
                    "q1": np.clip(q1h, 0.05, 0.95),
                }
            return ModelSpec(ma.binary_accuracy_model, data, structure, names, init)
        if self.kind == "strata":
            c = self.calibration
            data = dict(k=self.test.k, n=self.test.n, tp=c.tp, m1=c.m1, tn=c.tn, m0=c.m0)
            structure = dict(systems=self.systems, strata=c.strata, priors=self.priors)
            names = ("theta", "q0", "q1", "mu_q0", "mu_q1", "sigma_q0", "sigma_q1")
            pc = c.pooled()
            q0h, q1h = pc.tn[0] / pc.m0[0], pc.tp[0] / pc.m1[0]
            init = None
            if q0h + q1h > 1:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    p_st = self.test.k / np.maximum(self.test.n, 1)
                    th = cf.rogan_gladen(p_st, q0h, q1h)
                lg = lambda x: float(np.log(x / (1 - x)))  # noqa: E731
                init = {
                    "theta_stratum": np.clip(th, 0.05, 0.95),
                    "mu_q0": lg(np.clip(q0h, 0.05, 0.95)),
                    "mu_q1": lg(np.clip(q1h, 0.05, 0.95)),
                }
            return ModelSpec(ma.stratified_accuracy_model, data, structure, names, init)
        mc = self.multiclass
        data = dict(confusion=mc.confusion, test=mc.test)
        structure = dict(classes=mc.classes, systems=mc.systems, priors=self.priors)
        return ModelSpec(
            ma.multiclass_accuracy_model, data, structure, ("prevalence", "confusion_rates")
        )

    def build_model(self):
        """A fresh ``pm.Model`` (never sampled here)."""
        return self.model_spec().build()

    # ----------------------------------------------------------------- fitting
    def fit(
        self, method: str = "nuts", *, random_seed: int | None = None, alpha: float = 0.05, **kwargs
    ):
        """Fit by ``method``: "closed_form", "laplace", "exact" or "nuts".

        Keyword arguments go to the engine (NUTS: ``draws, tune, chains, target_accept,
        backend``; Laplace: ``draws``; exact: ``draws, nodes``).

        Returns
        -------
        AccuracyFit
        """
        if method not in _METHODS:
            raise InputError(
                f"method must be one of {_METHODS}; got {method!r}", field="method", value=method
            )
        import time

        t0 = time.perf_counter()
        fit = getattr(self, f"_fit_{method}")(random_seed=random_seed, **kwargs)
        from dataclasses import replace

        info = {
            "method": method,
            "random_seed": random_seed,
            "version": _version(),
            "kind": self.kind,
            "design": self.design,
            **fit.info,
        }
        fit.idata.posterior.attrs.update(
            {
                k: str(v)
                for k, v in info.items()
                if k in ("method", "random_seed", "version", "kind")
            }
        )
        return replace(fit, seconds=time.perf_counter() - t0, info=info)

    def _point_idata(self, values: dict[str, np.ndarray], dims: dict[str, list[str]]):
        import arviz as az

        coords = {"system": list(self.systems)}
        if self.kind == "multiclass":
            coords |= {
                "true_class": list(self.multiclass.classes),
                "judged_class": list(self.multiclass.classes),
            }
        if self.kind == "strata":
            coords["stratum"] = list(self.calibration.strata)
        post = {k: np.asarray(v, dtype=float)[None, None, ...] for k, v in values.items()}
        return az.from_dict(posterior=post, coords=coords, dims=dims)

    def _fit_closed_form(self, random_seed=None, **_):
        from judgebayes.compare import AccuracyFit

        if self.kind == "multiclass":
            mc = self.multiclass
            est, _, _ = cf.confusion_inversion(mc.confusion, mc.test)
            rates = mc.confusion / mc.confusion.sum(1, keepdims=True)
            idata = self._point_idata(
                {"prevalence": est, "confusion_rates": rates},
                {
                    "prevalence": ["system", "true_class"],
                    "confusion_rates": ["true_class", "judged_class"],
                },
            )

            def ifn(alpha):
                _, lo_, hi_ = cf.confusion_inversion(mc.confusion, mc.test, alpha)
                return lo_.ravel(), hi_.ravel()

            return AccuracyFit(
                "closed_form",
                idata,
                "prevalence",
                interval_fn=ifn,
                info={"estimator": "confusion-matrix inversion, delta method"},
            )
        if self.kind == "strata":
            c = self.calibration
            k, n = self.test.k.astype(float), self.test.n.astype(float)
            q0 = np.where(c.m0 > 0, c.tn / np.maximum(c.m0, 1), np.nan)
            q1 = np.where(c.m1 > 0, c.tp / np.maximum(c.m1, 1), np.nan)
            w = n / n.sum(1, keepdims=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                p = np.where(n > 0, k / np.maximum(n, 1), 0.5)
                th = cf.rogan_gladen(
                    p,
                    np.nan_to_num(q0, nan=0.5),
                    np.nan_to_num(q1, nan=0.5),
                    clip=False,
                    errors="nan",
                )
                var = cf.delta_method_variance(
                    p,
                    np.nan_to_num(q0, nan=0.5),
                    np.nan_to_num(q1, nan=0.5),
                    np.maximum(n, 1),
                    np.maximum(c.m0, 1),
                    np.maximum(c.m1, 1),
                    errors="nan",
                )
            bad = np.isnan(q0) | np.isnan(q1)
            th = np.where(bad[None, :] & (w > 0), np.nan, np.where(w > 0, th, 0.0))
            var = np.where(w > 0, var, 0.0)
            theta = (w * th).sum(1)
            se = np.sqrt((w**2 * var).sum(1))
            idata = self._point_idata(
                {
                    "theta": np.clip(theta, 0, 1),
                    "theta_stratum": np.clip(th, 0, 1),
                    "q0": q0,
                    "q1": q1,
                },
                {
                    "theta": ["system"],
                    "theta_stratum": ["system", "stratum"],
                    "q0": ["stratum"],
                    "q1": ["stratum"],
                },
            )

            def ifn(alpha):
                z = cf.z_value(alpha)
                return np.clip(theta - z * se, 0, 1), np.clip(theta + z * se, 0, 1)

            return AccuracyFit(
                "closed_form",
                idata,
                "theta",
                interval_fn=ifn,
                info={
                    "estimator": "per-stratum Rogan-Gladen, share-weighted, "
                    "delta-method Wald interval (NaN where a stratum lacks a class)"
                },
            )
        k, n, _ = self.test.per_system()
        cal = self.calibration.pooled()
        tp, m1, tn, m0 = (float(getattr(cal, a)[0]) for a in ("tp", "m1", "tn", "m0"))
        p = k / np.maximum(n, 1)

        def lr(alpha):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", cf.NotBetterThanChanceWarning)
                return cf.lang_reiczigel_interval(
                    p, tn / m0, tp / m1, np.maximum(n, 1), m0, m1, alpha, errors="nan"
                )

        ci = lr(0.05)
        idata = self._point_idata(
            {"theta": np.atleast_1d(ci.estimate), "q0": tn / m0, "q1": tp / m1},
            {"theta": ["system"]},
        )

        def ifn(alpha):
            c2 = lr(alpha)
            return np.atleast_1d(c2.lower), np.atleast_1d(c2.upper)

        return AccuracyFit(
            "closed_form",
            idata,
            "theta",
            interval_fn=ifn,
            info={
                "estimator": "Rogan-Gladen (clipped), Lang-Reiczigel interval",
                "degenerate": np.atleast_1d(ci.degenerate).tolist(),
            },
        )

    def _fit_laplace(self, random_seed=None, draws: int = 4000, **_):
        from judgebayes.compare import AccuracyFit
        from judgebayes.inference.laplace import fit_laplace

        idata, info = fit_laplace(self.model_spec(), draws=draws, random_seed=random_seed)
        return AccuracyFit("laplace", idata, self.quantity, info=info)

    def _fit_nuts(self, random_seed=None, **kwargs):
        from judgebayes.compare import AccuracyFit
        from judgebayes.inference.sampling import sample_nuts

        idata, diag, info = sample_nuts(self.model_spec(), random_seed=random_seed, **kwargs)
        return AccuracyFit("nuts", idata, self.quantity, diagnostics=diag, info=info)

    def _fit_exact(self, random_seed=None, draws: int = 4000, nodes: int = 64, **_):
        import arviz as az

        from judgebayes.compare import AccuracyFit
        from judgebayes.inference.exact import exact_posterior

        if self.kind != "binary" or self.design != "stratified" or self.priors.theta != (1.0, 1.0):
            raise InputError(
                "method='exact' is available for the binary model with a stratified "
                "calibration design and the uniform theta prior",
                field="method",
                value="exact",
            )
        k, n, _ = self.test.per_system()
        cal = self.calibration.pooled()
        if len(self.systems) != 1:
            raise InputError(
                "method='exact' handles one system (systems sharing a calibration set are "
                "coupled through q0, q1); use 'nuts'",
                field="method",
                value="exact",
            )
        ep = exact_posterior(
            k,
            n,
            cal.tp,
            cal.m1,
            cal.tn,
            cal.m0,
            q0_prior=self.priors.q0,
            q1_prior=self.priors.q1,
            better_than_chance=self.better_than_chance,
            nodes=nodes,
        )
        th = np.asarray(ep.sample(draws, random_seed))
        idata = az.from_dict(
            posterior={"theta": th.reshape(1, draws, 1)},
            coords={"system": list(self.systems)},
            dims={"theta": ["system"]},
        )

        def ifn(alpha):
            return np.atleast_1d(ep.quantile(alpha / 2)), np.atleast_1d(ep.quantile(1 - alpha / 2))

        return AccuracyFit(
            "exact",
            idata,
            "theta",
            interval_fn=ifn,
            estimate_override=np.atleast_1d(ep.mean()),
            info={"nodes": nodes, "draws": draws},
        )

    # ----------------------------------------------------------------- comparison
    def compare(
        self,
        methods=("closed_form", "laplace", "nuts"),
        *,
        alpha: float = 0.05,
        kind: str = "equal_tailed",
        random_seed: int | None = 0,
        fits=None,
        plot: bool = False,
        **kwargs,
    ):
        """Fit each method and return the tidy comparison table (one row per method x system).

        Per-method engine settings go in keyword arguments named after the method, e.g.
        ``nuts={"target_accept": 0.95}``.  With ``plot=True`` returns ``(table, ax)``: the
        table and the methods' forest plot (:func:`judgebayes.compare.plot_forest`).  The
        fits are kept on ``self.last_fits``.
        """
        from judgebayes.compare import comparison_table, plot_forest

        fits = (
            list(fits)
            if fits is not None
            else [self.fit(m, random_seed=random_seed, **(kwargs.get(m, {}))) for m in methods]
        )
        self.last_fits = fits
        table = comparison_table(fits, alpha=alpha, kind=kind)
        if plot:
            return table, plot_forest(fits, alpha=alpha)
        return table

    def ppc(self, fit, random_seed: int | None = 0) -> pd.DataFrame:
        """Posterior predictive check of the test counts: per system, the observed count,
        the predictive mean and 95% interval, and the two-sided predictive p-value.
        """
        import pandas as pd

        if fit.is_point:
            raise InputError(
                "a posterior predictive check needs draws", field="method", value=fit.method
            )
        rng = np.random.default_rng(random_seed)
        if self.kind == "multiclass":
            raise InputError("ppc is implemented for binary and strata models", field="kind")
        if self.kind == "binary":
            p = fit.draws("p").values if "p" in fit.idata.posterior else None
            k, n, _ = self.test.per_system()
            if p is None:  # exact: p from theta draws is not available; use q from calibration
                raise InputError("ppc needs the judge's rate p (nuts or laplace)", field="method")
            rep = rng.binomial(n[None, :], p)
        else:
            th = fit.draws("theta_stratum").values
            q0 = fit.draws("q0").values[:, None, :]
            q1 = fit.draws("q1").values[:, None, :]
            pp = th * q1 + (1 - th) * (1 - q0)
            rep = rng.binomial(self.test.n[None], pp).sum(-1)
            k = self.test.k.sum(1)
        rows = []
        for i, s in enumerate(self.systems):
            r = rep[:, i]
            pval = 2 * min((r >= k[i]).mean(), (r <= k[i]).mean())
            rows.append(
                {
                    "system": s,
                    "observed": int(k[i]),
                    "predicted_mean": r.mean(),
                    "lower": np.quantile(r, 0.025),
                    "upper": np.quantile(r, 0.975),
                    "p_value": min(pval, 1.0),
                }
            )
        return pd.DataFrame(rows)
