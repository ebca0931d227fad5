r"""The accuracy study: a judge's verdicts on a test set and its calibration, corrected.

:class:`AccuracyStudy` holds validated counts (one calibration set, calibration strata, or a
K-class judge) and fits them by any registered method; :class:`ReplicateStudy` fits many
independent binary problems at once (the split protocol's splits, coverage studies);
:func:`accuracy_table` is the per-system closed-form summary the CLI and the demo print.

Methods (``AccuracyStudy.methods``)
-----------------------------------
``closed_form``  Rogan-Gladen with the Lang-Reiczigel interval (binary); double sampling
                 (random design); per-stratum Rogan-Gladen with a delta-method interval
                 (strata); confusion-matrix inversion (K-class)
``exact``        the binary model's posterior by quadrature (one system, stratified design)
``laplace``      MAP + Laplace draws, checked by importance sampling (refused where it fails)
``nuts``         NUTS with the convergence gate

Checks (``AccuracyStudy.checks``): ``transfer`` (do the calibrated rates carry over to the
test set or between strata; data only) and ``ppc`` (the test counts against a fit's draws).
"""

from __future__ import annotations

import warnings
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from judgebayes.data.accuracy import (
    CalibrationCounts,
    MulticlassCounts,
    TestCounts,
    check_counts,
    counts_from_calibration_frame,
    counts_from_multiclass_frames,
    counts_from_test_frame,
)
from judgebayes.data.frames import as_pandas
from judgebayes.errors import InputError, MirrorWarning, route_keywords
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.accuracy.exact import MIRROR_WARN, exact_posterior, mirror_probability
from judgebayes.inference.laplace import K_HAT_MAX
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import check_count
from judgebayes.models import accuracy as ma
from judgebayes.results import check_alpha, point_tree, tree
from judgebayes.studies.accuracy_fit import AccuracyFit
from judgebayes.studies.base import FitParts, Study
from judgebayes.studies.items import ItemStudy  # the items design's own module

__all__ = ["AccuracyFit", "AccuracyStudy", "ReplicateStudy", "accuracy_table"]

NOT_BETTER_THAN_CHANCE = "judge no better than chance on the calibration set (q0 + q1 <= 1)"


def accuracy_table(study: AccuracyStudy, alpha: float = 0.05) -> pd.DataFrame:
    """Naive and corrected accuracy per system, with intervals, of a binary study.

    The corrected columns are the study's ``closed_form`` fit (Rogan-Gladen, clipped; the
    Lang-Reiczigel interval, its notes); beside them the judge's raw rate with its Wilson
    interval and the calibration counts.

    Returns
    -------
    DataFrame
        One row per system: ``system, n, n_missing, k, naive, naive_lower, naive_upper``
        (Wilson), ``m0, m1, calibration_n_missing, q0, q1``, ``estimate, lower, upper``,
        ``degenerate`` and ``note``.
    """
    if study.kind != "binary":
        raise InputError(
            f"accuracy_table summarises a binary study; this one is {study.kind!r}",
            field="kind",
            value=study.kind,
        )
    k, n, miss = study.test.per_system()
    cal = study.calibration.pooled()
    fit = study.fit("closed_form")
    tab = fit.interval(alpha)
    lo, hi = cf.wilson_interval(k, n, alpha)
    notes = {s: "" for s in study.systems}
    for s, note in fit.info["unit_notes"].items():
        notes[s] = note
    return pd.DataFrame(
        {
            "system": list(study.systems),
            "n": n,
            "n_missing": miss,
            "k": k,
            "naive": np.asarray(cf.naive_rate(k, n), dtype=float),
            "naive_lower": np.atleast_1d(lo),
            "naive_upper": np.atleast_1d(hi),
            "m0": int(cal.m0[0]),
            "m1": int(cal.m1[0]),
            "calibration_n_missing": int(cal.n_missing[0]),
            "q0": cal.tn[0] / cal.m0[0],
            "q1": cal.tp[0] / cal.m1[0],
            "estimate": tab["estimate"].to_numpy(),
            "lower": tab["lower"].to_numpy(),
            "upper": tab["upper"].to_numpy(),
            "degenerate": fit.info["degenerate"],
            "note": [notes[s] for s in study.systems],
        }
    )


_KINDS = ("binary", "strata", "multiclass")

#: why the pooled-strata model has no Laplace fit (measured)
STRATA_LAPLACE = (
    "Laplace is not offered for the pooled-strata model: its judge rates are a non-centred "
    "hierarchy (a learned spread between strata), and a Gaussian at the mode was 2-3x too "
    "wide (sd of q1 0.059 where NUTS gives 0.027 with 150 labels per class and stratum) and "
    "failed the importance check on every data set tried (Pareto k-hat 0.82-1.07, even with "
    "300 labels per class and stratum); use method='nuts'"
)


# =========================================================================== study


class AccuracyStudy(Study):
    r"""Validated data and configuration of one accuracy study; fits by any method.

    Nothing samples in ``__init__``.  The model variant follows from the data:

    * ``binary`` — one or several systems sharing one calibration set (variants a-c),
      with the calibration ``design`` "stratified" (default), "random" or "shifted";
    * ``strata`` — calibration strata with partially pooled judge rates and the
      correction aggregated over each system's test stratum shares (variant d);
    * ``multiclass`` — a K-class judge (variant e).

    Methods and checks: the module docstring.

    Examples
    --------
    >>> study = AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    >>> study.fit("closed_form").interval().round(3)  # doctest: +NORMALIZE_WHITESPACE
            estimate  lower  upper
    system
    all        0.533   0.43  0.636
    """

    family = "accuracy"
    fit_type = AccuracyFit
    default_method = "nuts"
    default_methods = ("closed_form", "laplace", "nuts")

    def __init__(
        self,
        test: TestCounts | None = None,
        calibration: CalibrationCounts | None = None,
        *,
        multiclass: MulticlassCounts | None = None,
        kind: str | None = None,
        design: str = "stratified",
        priors: ma.AccuracyPriors | None = None,
        better_than_chance: bool = True,
    ):
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
        if kind == "strata" and tuple(test.strata) != tuple(calibration.strata):
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
        self.kind, self.design = kind, design
        self.better_than_chance = bool(better_than_chance)
        self.priors = ma.AccuracyPriors() if priors is None else priors

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_counts(
        cls, k, n, tn, m0, tp, m1, *, systems=None, n_missing=0, **kwargs
    ) -> AccuracyStudy:
        """Counts: ``k`` of ``n`` judged positive (scalar or one per system); calibration
        ``tn`` of ``m0`` truly negative and ``tp`` of ``m1`` truly positive judged right.
        """
        (kwargs,) = route_keywords("AccuracyStudy.from_counts", kwargs, cls.__init__)
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
        item: str | None = None,
        **kwargs,
    ) -> AccuracyStudy:
        """Item-level frames (see :mod:`judgebayes.data.accuracy`); ``stratum`` names a column of
        both frames and selects the pooled-strata model.

        No item may be in both frames (its verdict would count in the test rate and in the
        judge's calibration): the same frame passed twice is refused, and ``item`` (an id
        column of both frames) makes the check item by item.
        """
        (kwargs,) = route_keywords("AccuracyStudy.from_frames", kwargs, cls.__init__)
        same = test_df is calibration_df
        test_df = as_pandas(test_df, "test_df")
        calibration_df = as_pandas(calibration_df, "calibration_df")
        if same:
            raise InputError(
                "the test and calibration frames are the same frame: every labelled item "
                "would count twice (in the judge's test rate and in its calibration). Pass "
                "the unlabelled items as the test frame and the labelled ones as calibration, "
                "or the one frame to AccuracyStudy.from_items (blank human label = unlabelled)",
                field="calibration_df",
                value="same frame as test_df",
            )
        if item is not None:
            for name, df in (("test_df", test_df), ("calibration_df", calibration_df)):
                if item not in getattr(df, "columns", ()):
                    raise InputError(
                        f"{name} has no item id column {item!r}", field=item, value=None
                    )
            both = set(test_df[item]) & set(calibration_df[item])
            if both:
                first = sorted(map(str, both))[0]
                raise InputError(
                    f"{len(both)} item(s) are in both the test and the calibration frame "
                    f"(e.g. {item}={first!r}): each item belongs to one of them",
                    field=item,
                    value=first,
                )

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
    def from_items(cls, items, **kwargs):
        """One frame, every item judged, some labelled by humans (blank ``human`` = unlabelled).

        Returns an :class:`~judgebayes.studies.items.ItemStudy` (same ``fit`` / ``compare``
        API; its module docstring lists the estimands, designs and methods).  The column
        keywords are :func:`~judgebayes.data.items.items_from_frame`'s: ``judge`` (one
        column, or a list of several judges' columns), ``human``, ``system``, ``stratum``
        (strata of the labelling design, their sizes the frame's counts), ``cluster``
        (groups of correlated items), ``weights`` (1 / the probability of being labelled),
        ``positive``, ``count`` (multiplicities of a reduced log,
        :func:`judgebayes.data.large.reduce_items`).  The study's: ``estimand`` ("items" or
        "process"), ``judge_rates``, ``priors``, ``better_than_chance``, ``difficulty``.
        An unknown keyword is an :class:`InputError` listing these.
        """
        return ItemStudy.from_frame(items, **kwargs)

    @classmethod
    def from_multiclass_counts(
        cls, confusion, test, *, classes, systems=None, **kwargs
    ) -> AccuracyStudy:
        """K-class judge from a (K, K) confusion count matrix (rows: true class) and the
        judged-class counts of each system.
        """
        (kwargs,) = route_keywords("AccuracyStudy.from_multiclass_counts", kwargs, cls.__init__)
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

        See :func:`~judgebayes.data.accuracy.counts_from_multiclass_frames` for the arguments.
        """
        frame_kw, study_kw = route_keywords(
            "AccuracyStudy.from_multiclass_frames",
            kwargs,
            counts_from_multiclass_frames,
            cls.__init__,
        )
        return cls(
            multiclass=counts_from_multiclass_frames(test_df, calibration_df, **frame_kw),
            **study_kw,
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
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of this study."""
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
            start = cf.moment_start(
                k / np.maximum(n, 1), data["tn"] / data["m0"], data["tp"] / data["m1"]
            )
            init = None
            if start["ok"].all():
                rates = ("u0", "u1") if self.better_than_chance else ("q0", "q1")
                init = {"theta": start["theta"], **{r: start[r][0] for r in rates}}
            return ModelSpec(ma.binary_accuracy_model, data, structure, names, init)
        if self.kind == "strata":
            c = self.calibration
            data = dict(k=self.test.k, n=self.test.n, tp=c.tp, m1=c.m1, tn=c.tn, m0=c.m0)
            structure = dict(systems=self.systems, strata=c.strata, priors=self.priors)
            names = ("theta", "q0", "q1", "mu_q0", "mu_q1", "sigma_q0", "sigma_q1")
            pc = c.pooled()
            start = cf.moment_start(
                self.test.k / np.maximum(self.test.n, 1), pc.tn[0] / pc.m0[0], pc.tp[0] / pc.m1[0]
            )
            init = None
            if start["ok"].all():
                lg = lambda x: float(np.log(x / (1 - x)))  # noqa: E731
                init = {
                    "theta_stratum": start["theta"],
                    "mu_q0": lg(start["q0"].flat[0]),
                    "mu_q1": lg(start["q1"].flat[0]),
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

    # ----------------------------------------------------------------- fit hooks
    def _prepare(self, method) -> None:
        if method.name != "closed_form":
            self._check_restriction()

    def _info(self, method, parts: FitParts) -> dict:
        info = {"kind": self.kind, "design": self.design, "estimand": "process"}
        if self._mirror_matters(method):
            info["p_mirror"] = self.mirror_mass
        return info

    def _mirror_matters(self, method) -> bool:
        """A posterior's mirror mode is always checked; a closed form (no prior, no mode)
        only where its raw rates already put the judge at or below chance, where the
        mass says whether the labels look flipped (the quadrature costs 30 ms, a closed
        form well under 1 ms).
        """
        if self.kind != "binary":
            return False
        if method.engine != "closed_form":
            return True
        cal = self.calibration.pooled()
        return cal.tn[0] / max(cal.m0[0], 1) + cal.tp[0] / max(cal.m1[0], 1) <= 1

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        if "p_mirror" not in info:
            return ()
        note = self._mirror_note(posterior=method.engine != "closed_form")
        if note is None:
            return ()
        warnings.warn(note, MirrorWarning, stacklevel=3)
        return (note,)

    def _attrs(self, method, parts: FitParts) -> dict:
        return {
            "kind": self.kind,
            "design": self.design,
            "better_than_chance": self.better_than_chance,
        }

    def _check_restriction(self) -> None:
        """Refuse a Bayesian fit whose better-than-chance prior the calibration contradicts."""
        if not (self.better_than_chance and self.kind == "binary"):
            return
        cal = self.calibration.pooled()
        mass = better_than_chance_mass(cal.tp[0], cal.m1[0], cal.tn[0], cal.m0[0])
        if mass < 1e-3:
            raise InputError(
                f"better_than_chance=True (the default) excludes the data: the calibration "
                f"counts give q0 + q1 > 1 a probability of only {mass:.2g} "
                f"(q0={cal.tn[0]}/{cal.m0[0]}, q1={cal.tp[0]}/{cal.m1[0]}); the judge "
                "looks worse than chance (are its labels flipped?); pass "
                "better_than_chance=False to fit the unrestricted model",
                field="better_than_chance",
                value=True,
            )

    @cached_property
    def mirror_mass(self) -> float:
        """P(q0 + q1 < 1 | data) under the unrestricted prior (binary model; NaN for the
        random design, whose class counts inform theta, which the rule does not integrate).
        A property of the data, computed once.
        """
        if self.design == "random":
            return float("nan")
        k, n, _ = self.test.per_system()
        cal = self.calibration.pooled()
        return mirror_probability(
            k,
            n,
            int(cal.tp[0]),
            int(cal.m1[0]),
            int(cal.tn[0]),
            int(cal.m0[0]),
            q0_prior=self.priors.q0,
            q1_prior=self.priors.q1,
        )

    def _mirror_note(self, posterior: bool = True) -> str | None:
        """What :attr:`mirror_mass` calls for: for a posterior above :data:`MIRROR_WARN`; a
        closed form has no mirror mode (it is NaN where the raw rates give q0 + q1 <= 1),
        so for it only where the data favour the mirror (flipped labels?).
        """
        p = self.mirror_mass
        if not p > (MIRROR_WARN if posterior else 0.5):
            return None
        where = (
            "a closed form uses the raw rates"
            if not posterior
            else "this fit excludes it (better_than_chance=True)"
            if self.better_than_chance
            else "this fit's posterior includes that mode"
        )
        say = (
            "the data favour a judge worse than chance (are its labels flipped?)"
            if p > 0.5
            else "the data do not rule out a judge worse than chance (the mirror mode)"
        )
        return (
            f"P(q0 + q1 < 1 | data) = {p:.2f} under the unrestricted prior: {say}; {where}. "
            "More calibration labels of both classes settle it"
        )

    def _point(self, values: dict[str, Any], dims: dict[str, list[str]] | None = None):
        """A one-atom posterior over this study's coords (``results.point_tree``)."""
        coords = {}
        if self.kind == "multiclass":
            classes = list(self.multiclass.classes)
            coords = {"true_class": classes, "judged_class": classes}
        if self.kind == "strata":
            coords["stratum"] = list(self.calibration.strata)
        return point_tree(values, "system", self.systems, dims=dims, coords=coords)

    # ----------------------------------------------------------------- comparison
    def check_transfer(self, alpha: float = 0.01, draws: int = 20_000, random_seed: int = 0):
        r"""Do the judge's calibrated rates transfer?  Predictive checks of what the model
        assumes but cannot fit away.

        * Pooled strata: leave one stratum out.  Calibrated on the other strata, stratum
          :math:`t`'s counts have the predictive
          :math:`tp_t \sim \text{BetaBin}(m_{1,t},\ 1 + \sum_{s \ne t} tp_s,\
          1 + \sum_{s \ne t} fn_s)`
          (and the same for :math:`tn_t`); a small two-sided p-value says the rates differ
          between strata, so a single confusion matrix would mis-correct.
        * Binary: the judged rate :math:`k/n` of each system must be reachable, i.e. lie in
          :math:`[1 - q_0, q_1]` for the calibrated rates.  Its predictive under
          :math:`\theta \sim U(0, 1)` and the calibration posteriors of :math:`q_0, q_1`
          (``draws`` Monte-Carlo draws) gives a two-sided p-value; a small one says the
          test set's judge behaves unlike the calibration set's (a shift), whatever theta.

        Returns
        -------
        DataFrame
            One row per checked count: ``unit``, ``count``, ``observed``, ``total``,
            predictive ``mean``, ``p_value`` and ``flagged`` (``p_value < alpha``).
        """
        check_alpha(alpha)
        rows = []

        def two_sided(dist, x):
            return float(min(1.0, 2 * min(dist.cdf(x), dist.sf(x - 1))))

        if self.kind == "strata":
            c = self.calibration
            for t, name in enumerate(c.strata):
                rest = np.arange(len(c.strata)) != t
                for count, right, total in (
                    ("tp", c.tp, c.m1),
                    ("tn", c.tn, c.m0),
                ):
                    a = 1 + right[rest].sum()
                    b = 1 + (total[rest] - right[rest]).sum()
                    dist = stats.betabinom(int(total[t]), a, b)
                    rows.append(
                        {
                            "unit": name,
                            "count": count,
                            "observed": int(right[t]),
                            "total": int(total[t]),
                            "mean": float(dist.mean()),
                            "p_value": two_sided(dist, int(right[t])),
                        }
                    )
        elif self.kind == "binary":
            p = self._reachable_rate_draws(draws, np.random.default_rng(random_seed))
            k, n, _ = self.test.per_system()
            for i, name in enumerate(self.systems):
                if n[i] == 0:
                    continue
                cdf = stats.binom.cdf(k[i], n[i], p).mean()
                sf = stats.binom.sf(k[i] - 1, n[i], p).mean()
                rows.append(
                    {
                        "unit": name,
                        "count": "k",
                        "observed": int(k[i]),
                        "total": int(n[i]),
                        "mean": float(n[i] * p.mean()),
                        "p_value": float(min(1.0, 2 * min(cdf, sf))),
                    }
                )
        else:
            raise InputError(
                "check_transfer is implemented for the binary and pooled-strata models",
                field="kind",
                value=self.kind,
            )
        out = pd.DataFrame(rows)
        out["flagged"] = out["p_value"] < alpha
        return out

    def _reachable_rate_draws(self, draws: int, rng) -> np.ndarray:
        r"""Draws of the judged rate :math:`p = \theta q_1 + (1 - \theta)(1 - q_0)` with
        :math:`\theta \sim U(0, 1)` and the calibration-only Beta posteriors of
        :math:`q_0, q_1`: the binary transfer check's predictive (q0, q1, then p drawn).
        """
        cal = self.calibration.pooled()
        q0 = rng.beta(1 + cal.tn[0], 1 + cal.m0[0] - cal.tn[0], draws)
        q1 = rng.beta(1 + cal.tp[0], 1 + cal.m1[0] - cal.tp[0], draws)
        return rng.random(draws) * (q0 + q1 - 1) + (1 - q0)

    def transfer_predictive(self, draws: int = 4000, random_seed: int = 0):
        r"""The predictive distributions :meth:`check_transfer` tests, as draws in
        a ``DataTree``, for ArviZ's plots (:func:`judgebayes.results.plot_check`).

        Pooled strata: ``tp`` and ``tn`` over ``stratum``, each stratum's counts drawn
        from its leave-one-stratum-out Beta-binomial.  Binary: ``k`` over ``system``, the
        judged count drawn with :math:`\theta \sim U(0, 1)` and the calibration posteriors
        of :math:`q_0, q_1`.  Groups ``posterior_predictive`` (one chain of ``draws``) and
        ``observed_data``.
        """
        rng = np.random.default_rng(random_seed)
        pp, obs, dims, coords = {}, {}, {}, {}
        if self.kind == "strata":
            c = self.calibration
            S = len(c.strata)
            coords["stratum"] = list(c.strata)
            for count, right, total in (("tp", c.tp, c.m1), ("tn", c.tn, c.m0)):
                rest_right = right.sum() - right
                rest_wrong = (total - right).sum() - (total - right)
                rate = rng.beta(1 + rest_right, 1 + rest_wrong, (draws, S))
                pp[count] = rng.binomial(np.asarray(total, np.int64), rate)[None]
                obs[count] = np.asarray(right, np.int64)
                dims[count] = ["stratum"]
        elif self.kind == "binary":
            p = self._reachable_rate_draws(draws, rng)
            k, n, _ = self.test.per_system()
            keep = n > 0
            coords["system"] = [s for s, ok in zip(self.systems, keep, strict=True) if ok]
            pp["k"] = rng.binomial(n[keep][None, :], p[:, None])[None]
            obs["k"] = np.asarray(k)[keep]
            dims["k"] = ["system"]
        else:
            raise InputError(
                "transfer_predictive is implemented for the binary and pooled-strata models",
                field="kind",
                value=self.kind,
            )
        return tree({"posterior_predictive": pp, "observed_data": obs}, coords=coords, dims=dims)

    def ppc(self, fit, random_seed: int | None = 0) -> pd.DataFrame:
        """Posterior predictive check of the test counts: per system, the observed count,
        the predictive mean and 95% interval, and the two-sided predictive p-value.

        theta is free per system, so the model fits these counts by construction: this
        check finds sampler or data-entry problems, not a wrong model.
        :meth:`check_transfer` tests the assumption that matters (the judge's rates carry
        over).
        """
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


def better_than_chance_mass(tp, m1, tn, m0, nodes: int = 128) -> float:
    r"""P(q0 + q1 > 1) under the calibration-only posteriors
    :math:`q_1 \sim \text{Beta}(1 + tp, 1 + m_1 - tp)`, :math:`q_0 \sim \text{Beta}(1 + tn,
    1 + m_0 - tn)`: the prior-data conflict check of the better-than-chance prior.

    As :math:`E_{q_1}[P(q_0 > 1 - q_1)] = \int_0^1 S_0(1 - F_1^{-1}(u))\,du`, a smooth
    integral over :math:`q_1`'s quantiles however concentrated the Betas are, by
    ``nodes`` Gauss-Legendre nodes in one vectorised call (scipy's adaptive ``quad`` of the
    density form took ~1,700 evaluations a fit).  The mass beyond the outermost node is at
    most :math:`1 - u_{max}` (8.8e-5 at 128 nodes), so the 1e-3 refusal can change only for
    data within 1e-4 of it.
    """
    x, w = np.polynomial.legendre.leggauss(nodes)
    u = (x + 1) / 2
    q1 = stats.beta.ppf(u, 1 + tp, 1 + m1 - tp)
    return float(np.sum(w / 2 * stats.beta.sf(1 - q1, 1 + tn, 1 + m0 - tn)))


# =========================================================================== methods


@AccuracyStudy.methods.register(
    "closed_form", engine="closed_form", summary="Rogan-Gladen + Lang-Reiczigel"
)
def _closed_form(study: AccuracyStudy, *, random_seed=None) -> FitParts:
    if study.kind == "multiclass":
        mc = study.multiclass
        est, _, _ = cf.confusion_inversion(mc.confusion, mc.test)
        rates = mc.confusion / mc.confusion.sum(1, keepdims=True)

        def ifn(alpha):
            _, lo_, hi_ = cf.confusion_inversion(mc.confusion, mc.test, alpha)
            return lo_.ravel(), hi_.ravel()

        idata = tree(
            {"posterior": {"prevalence": est[None, None], "confusion_rates": rates[None, None]}},
            coords={
                "system": list(study.systems),
                "true_class": list(mc.classes),
                "judged_class": list(mc.classes),
            },
            dims={
                "prevalence": ["system", "true_class"],
                "confusion_rates": ["true_class", "judged_class"],
            },
        )
        return FitParts(
            idata,
            quantity="prevalence",
            interval_fn=ifn,
            info={"estimator": "confusion-matrix inversion, delta method"},
        )
    if study.kind == "strata":
        c = study.calibration
        st = cf.stratified_rogan_gladen(study.test.k, study.test.n, c.tp, c.m1, c.tn, c.m0)
        theta, se = st.theta, st.se

        def ifn(alpha):
            z = cf.z_value(alpha)
            return np.clip(theta - z * se, 0, 1), np.clip(theta + z * se, 0, 1)

        idata = study._point(
            {
                "theta": np.clip(theta, 0, 1),
                "theta_stratum": np.clip(st.theta_stratum, 0, 1),
                "q0": st.q0,
                "q1": st.q1,
            },
            {"theta_stratum": ["system", "stratum"], "q0": ["stratum"], "q1": ["stratum"]},
        )
        return FitParts(
            idata,
            interval_fn=ifn,
            info={
                "estimator": "per-stratum Rogan-Gladen, share-weighted, "
                "delta-method Wald interval (NaN where a stratum lacks a class)"
            },
        )
    k, n, _ = study.test.per_system()
    cal = study.calibration.pooled()
    tp, m1, tn, m0 = (float(getattr(cal, a)[0]) for a in ("tp", "m1", "tn", "m0"))
    if study.design == "random":
        return _double_sampling(study, k, n, tp, m1, tn, m0)

    def ifn(alpha):
        c2 = cf.lang_reiczigel_from_counts(k, n, tp, m1, tn, m0, alpha)
        return np.atleast_1d(c2.lower), np.atleast_1d(c2.upper)

    ci = cf.lang_reiczigel_from_counts(k, n, tp, m1, tn, m0)
    est = np.atleast_1d(ci.estimate)
    degen = np.broadcast_to(np.asarray(ci.degenerate), est.shape)
    contains = np.broadcast_to(np.asarray(ci.contains_estimate), est.shape)
    unit_notes = {}
    for i, s in enumerate(study.systems):
        if n[i] == 0:
            unit_notes[s] = "no usable verdicts"
        elif np.isnan(est[i]):
            unit_notes[s] = NOT_BETTER_THAN_CHANCE
        elif degen[i]:
            unit_notes[s] = "two-sided interval outside [0, 1]: one-sided bound reported"
        elif not contains[i]:
            unit_notes[s] = (
                "interval excludes the point estimate: a calibration class has only 1-2 "
                "items, so the adjusted rates differ strongly from the raw ones"
            )
    notes = [
        f"system {s!r} has no usable verdicts: NaN"
        for s, ni in zip(study.systems, n, strict=True)
        if ni == 0
    ]
    if tn / m0 + tp / m1 <= 1:
        notes.append(NOT_BETTER_THAN_CHANCE + ": the closed form is undefined (NaN)")
    return FitParts(
        study._point({"theta": est, "q0": tn / m0, "q1": tp / m1}),
        interval_fn=ifn,
        notes=tuple(notes),
        info={
            "estimator": "Rogan-Gladen (clipped), Lang-Reiczigel interval",
            "degenerate": degen.tolist(),
            "unit_notes": unit_notes,
        },
    )


def _double_sampling(study: AccuracyStudy, k, n, tp, m1, tn, m0) -> FitParts:
    """Closed form of the random design (``closed_form.double_sampling``)."""
    est = cf.double_sampling(k, n, tp, m1, tn, m0)

    def ifn(alpha):
        e = cf.double_sampling(k, n, tp, m1, tn, m0, alpha)
        return np.atleast_1d(e.lower), np.atleast_1d(e.upper)

    notes = ()
    if not np.all(np.isfinite(np.atleast_1d(est.estimate))):
        notes = ("the judge gave one verdict only on the calibration sample: NaN",)
    return FitParts(
        study._point({"theta": np.atleast_1d(est.estimate), "q0": tn / m0, "q1": tp / m1}),
        interval_fn=ifn,
        notes=notes,
        info={
            "estimator": "double sampling (Tenenbein 1970): the calibration's share of "
            "true positives among the judge's positives and negatives, applied to the "
            "judge's rate on all n + m items; delta-method Wald interval",
            "degenerate": [False] * len(study.systems),
            "unit_notes": {},
        },
    )


@AccuracyStudy.methods.register("laplace", engine="laplace", summary="MAP + Laplace draws")
def _laplace(
    study: AccuracyStudy, *, random_seed=None, draws: int = 4000, importance: bool = True
) -> FitParts:
    """``draws`` Laplace draws; ``importance`` checks them by PSIS (False: the plain
    Gaussian).
    """
    if study.kind == "strata":
        raise InputError(STRATA_LAPLACE, field="method", value="laplace")
    parts = study._laplace(study.model_spec(), random_seed, draws=draws, importance=importance)
    parts.quantity = study.quantity
    return parts


@AccuracyStudy.methods.register("nuts", engine="nuts", summary="NUTS with the gate", mcmc=True)
def _nuts(
    study: AccuracyStudy,
    *,
    random_seed=None,
    sampler=None,
    log_likelihood: bool = False,
    prior_draws: int = 0,
) -> FitParts:
    """NUTS (``sampler``: a SamplerConfig or a mapping of its fields); ``log_likelihood``
    and ``prior_draws`` add those groups to the fit's tree.
    """
    model = "accuracy.strata" if study.kind == "strata" else "accuracy"
    parts = study._nuts(
        study.model_spec(),
        model,
        sampler,
        random_seed,
        log_likelihood=log_likelihood,
        prior_draws=prior_draws,
    )
    parts.quantity = study.quantity
    return parts


@AccuracyStudy.methods.register("exact", engine="exact", summary="exact posterior by quadrature")
def _exact(
    study: AccuracyStudy, *, random_seed=None, draws: int = 4000, nodes: int = 64
) -> FitParts:
    """The binary model's posterior by ``nodes``-point quadrature; ``draws`` draws of it."""
    if study.kind != "binary" or study.design != "stratified" or study.priors.theta != (1.0, 1.0):
        raise InputError(
            "method='exact' is available for the binary model with a stratified "
            "calibration design and the uniform theta prior",
            field="method",
            value="exact",
        )
    if len(study.systems) != 1:
        raise InputError(
            "method='exact' handles one system (systems sharing a calibration set are "
            "coupled through q0, q1); use 'nuts'",
            field="method",
            value="exact",
        )
    nodes = check_count(nodes, "nodes")
    k, n, _ = study.test.per_system()
    cal = study.calibration.pooled()
    ep = exact_posterior(
        k,
        n,
        cal.tp,
        cal.m1,
        cal.tn,
        cal.m0,
        q0_prior=study.priors.q0,
        q1_prior=study.priors.q1,
        better_than_chance=study.better_than_chance,
        nodes=nodes,
    )
    th = np.asarray(ep.sample(draws, random_seed))

    def ifn(alpha):
        return np.atleast_1d(ep.quantile(alpha / 2)), np.atleast_1d(ep.quantile(1 - alpha / 2))

    return FitParts(
        tree(
            {"posterior": {"theta": th.reshape(1, draws, 1)}},
            coords={"system": list(study.systems)},
            dims={"theta": ["system"]},
        ),
        interval_fn=ifn,
        point=np.atleast_1d(ep.mean()),
        info={"nodes": nodes, "draws": draws},
    )


# =========================================================================== checks


@AccuracyStudy.checks.register("transfer", summary="do the calibrated rates carry over?")
def _transfer_check(study: AccuracyStudy, fit=None, *, alpha: float) -> pd.DataFrame:
    if study.kind == "multiclass":
        return pd.DataFrame()
    t = study.check_transfer(alpha=alpha)
    return t.rename(columns={"mean": "expected"})


@AccuracyStudy.checks.register(
    "ppc",
    needs="draws",
    summary="the test counts against the fit's draws",
    accepts=lambda fit: "p" in fit.idata.posterior or "theta_stratum" in fit.idata.posterior,
)
def _ppc_check(study: AccuracyStudy, fit, *, alpha: float) -> pd.DataFrame:
    if study.kind == "multiclass":
        return pd.DataFrame()
    t = study.ppc(fit)
    return t.rename(columns={"system": "unit", "predicted_mean": "expected"}).assign(
        flagged=lambda d: d["p_value"] < alpha
    )


# =========================================================================== replicates
class ReplicateStudy(Study):
    r"""Independent binary accuracy problems along a ``replicate`` dim; fits by method.

    Each replicate is one system with its own stratified calibration set (the split
    protocol's splits, a coverage study's datasets): nothing is shared, so the joint
    posterior is the product of the per-replicate posteriors and one fit covers all of
    them (:func:`~judgebayes.models.accuracy.batched_accuracy_model`; one NUTS run, one
    compile; Laplace block by block, so one flat replicate does not sink the rest).

    Fits are :class:`AccuracyFit` with ``unit="replicate"``.  A replicate without a test
    item or without a calibration item of either class is undefined: its counts enter no
    likelihood, its estimate and interval are NaN and ``fit.notes`` counts it.

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (R,)
        Test and calibration counts per replicate.
    replicates : sequence of str, optional
        Replicate names (default ``"0" .. "R-1"``).
    priors : AccuracyPriors, optional
        Beta priors (default uniform).
    better_than_chance : bool
        Restrict every replicate's prior to q0 + q1 > 1 (default, as
        :class:`AccuracyStudy`); every fit's ``info["p_mirror"]`` has each replicate's
        P(q0 + q1 < 1 | data) under the unrestricted prior, and ``notes`` counts the
        replicates above 1%.
    """

    family = "accuracy"
    fit_type = AccuracyFit
    default_method = "nuts"
    default_methods = ("closed_form", "laplace", "nuts")

    def __init__(
        self, k, n, tp, m1, tn, m0, *, replicates=None, priors=None, better_than_chance=True
    ):
        for name, c, tot, tname in (("k", k, n, "n"), ("tp", tp, m1, "m1"), ("tn", tn, m0, "m0")):
            check_counts(name, c, tot, total_name=tname)
        arrs = [np.atleast_1d(np.asarray(x)) for x in (k, n, tp, m1, tn, m0)]
        size = arrs[0].size
        for name, a in zip(("k", "n", "tp", "m1", "tn", "m0"), arrs, strict=True):
            if a.ndim != 1 or a.size != size:
                raise InputError(
                    f"{name} must be one count per replicate ({size}); got shape {a.shape}",
                    field=name,
                    value=a.shape,
                )
        self.k, self.n, self.tp, self.m1, self.tn, self.m0 = (a.astype(np.int64) for a in arrs)
        self.replicates = (
            tuple(map(str, replicates)) if replicates is not None else tuple(map(str, range(size)))
        )
        if len(self.replicates) != size:
            raise InputError(
                f"replicates names {len(self.replicates)} labels for {size} replicates",
                field="replicates",
                value=len(self.replicates),
            )
        self.priors = ma.AccuracyPriors() if priors is None else priors
        self.better_than_chance = bool(better_than_chance)

    @property
    def defined(self) -> np.ndarray:
        """Replicates with a test item and calibration items of both classes."""
        return (self.m0 > 0) & (self.m1 > 0) & (self.n > 0)

    def model_spec(self):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of the batched model."""
        ok = self.defined
        data = {
            name: np.where(ok, getattr(self, name), 0)
            for name in ("k", "n", "tp", "m1", "tn", "m0")
        }
        start = cf.moment_start(
            self.k / np.maximum(self.n, 1),
            self.tn / np.maximum(self.m0, 1),
            self.tp / np.maximum(self.m1, 1),
            margin=0.05,
        )
        rates = ("u0", "u1") if self.better_than_chance else ("q0", "q1")
        init = {v: start[v] for v in ("theta", *rates)}
        structure = {
            "replicates": self.replicates,
            "priors": self.priors,
            "better_than_chance": self.better_than_chance,
        }
        return ModelSpec(ma.batched_accuracy_model, data, structure, ("theta", "q0", "q1"), init)

    # ----------------------------------------------------------------- fit hooks
    def _info(self, method, parts: FitParts) -> dict:
        ok = self.defined
        p_mirror = np.full(ok.size, np.nan)
        if ok.any():
            p_mirror[ok] = mirror_probability(
                self.k[ok, None],
                self.n[ok, None],
                self.tp[ok],
                self.m1[ok],
                self.tn[ok],
                self.m0[ok],
                q0_prior=self.priors.q0,
                q1_prior=self.priors.q1,
                nodes=32,
            )
        return {"p_mirror": p_mirror, "estimand": "process"}

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        ok = self.defined
        notes = []
        if not ok.all():
            notes.append(
                f"{int((~ok).sum())} of {ok.size} replicates lack a test item or a calibration "
                "class: NaN"
            )
        high = int(np.sum(info["p_mirror"] > MIRROR_WARN))
        if high:
            notes.append(
                f"{high} of {ok.size} replicates leave P(q0 + q1 < 1 | data) > {MIRROR_WARN:g} "
                "under the unrestricted prior (info['p_mirror']); "
                + (
                    "their fits exclude the mirror mode (better_than_chance=True)"
                    if self.better_than_chance
                    else "their posteriors include the mirror mode"
                )
            )
        return tuple(notes)

    def _attrs(self, method, parts: FitParts) -> dict:
        return {"kind": "replicates", "better_than_chance": self.better_than_chance}

    def _masked(self, parts: FitParts) -> FitParts:
        """Undefined replicates' theta set to NaN (their counts enter no likelihood)."""
        post = parts.idata["posterior"]
        ok = xr.DataArray(
            self.defined, dims=["replicate"], coords={"replicate": post["replicate"].values}
        )
        post["theta"] = post["theta"].where(ok)
        parts.extra["unit"] = "replicate"
        return parts


@ReplicateStudy.methods.register(
    "closed_form", engine="closed_form", summary="Rogan-Gladen + Lang-Reiczigel per replicate"
)
def _replicates_closed_form(study: ReplicateStudy, *, random_seed=None) -> FitParts:
    args = (study.k, study.n, study.tp, study.m1, study.tn, study.m0)
    ci = cf.lang_reiczigel_from_counts(*args)
    est = np.asarray(ci.estimate, float)

    def interval_fn(alpha):
        c2 = cf.lang_reiczigel_from_counts(*args, alpha)
        return np.asarray(c2.lower, float), np.asarray(c2.upper, float)

    notes = ()
    undefined = int((study.defined & np.isnan(est)).sum())
    if undefined:
        notes = (
            f"{undefined} replicate(s) have a judge no better than chance on their "
            "calibration (q0 + q1 <= 1): the closed form is undefined there (NaN)",
        )
    idata = tree(
        {"posterior": {"theta": est[None, None, :]}},
        coords={"replicate": list(study.replicates)},
        dims={"theta": ["replicate"]},
    )
    parts = FitParts(
        idata,
        interval_fn=interval_fn,
        notes=notes,
        info={"estimator": "Rogan-Gladen (clipped), Lang-Reiczigel interval"},
    )
    return study._masked(parts)


@ReplicateStudy.methods.register(
    "laplace", engine="laplace", summary="MAP + Laplace, block by block"
)
def _replicates_laplace(
    study: ReplicateStudy, *, random_seed=None, draws: int = 4000, importance: bool = True
) -> FitParts:
    """``draws`` per replicate; a replicate whose Hessian or importance check fails is NaN."""
    parts = study._laplace(
        study.model_spec(),
        random_seed,
        draws=draws,
        importance=importance,
        block_size=len(study.replicates),
    )
    notes = []
    if parts.info.get("failed_blocks"):
        notes.append(
            f"{len(parts.info['failed_blocks'])} replicate(s) have a flat direction at the "
            "mode: no Laplace approximation (NaN)"
        )
    if parts.info.get("refused_blocks"):
        notes.append(
            f"{len(parts.info['refused_blocks'])} replicate(s) have a posterior the Laplace "
            f"approximation does not fit (Pareto k-hat > {K_HAT_MAX}): NaN, use NUTS"
        )
    parts.notes = tuple(notes)
    return study._masked(parts)


@ReplicateStudy.methods.register(
    "nuts", engine="nuts", summary="NUTS on the batched model, a gate per replicate", mcmc=True
)
def _replicates_nuts(study: ReplicateStudy, *, random_seed=None, sampler=None) -> FitParts:
    """One NUTS run over every replicate; ``info["passed"]`` is each replicate's gate."""
    parts = study._nuts(study.model_spec(), "accuracy.replicates", sampler, random_seed)
    ok = study.defined
    passed = _replicate_gate(parts.idata, parts.diagnostics) & ok
    parts.info["passed"] = passed
    failed = int((ok & ~passed).sum())
    if failed:
        parts.notes = (
            f"{failed} of {int(ok.sum())} replicates failed the convergence gate "
            "(info['passed'] says which; do not pool them with the rest)",
        )
    return study._masked(parts)


def _replicate_gate(idata, diag) -> np.ndarray:
    """Per replicate, whether it passes the gate.

    Its own variables' R-hat and ESS within the thresholds, and the joint criteria
    (divergences, E-BFMI, tree depth) met by the batch.
    """
    import arviz as az

    post = idata["posterior"]
    names = [v for v in post.data_vars if "replicate" in post[v].dims]
    size = post.sizes["replicate"]
    ok = np.ones(size, bool)
    for fn, bad in (
        (lambda: az.rhat(idata, var_names=names), lambda x: ~(x <= diag.r_hat_threshold)),
        (
            lambda: az.ess(idata, var_names=names, method="bulk"),
            lambda x: ~(x >= diag.ess_threshold),
        ),
        (
            lambda: az.ess(idata, var_names=names, method="tail"),
            lambda x: ~(x >= diag.ess_threshold),
        ),
    ):
        ds = fn()
        for v in ds.data_vars:
            vals = ds[v].transpose("replicate", ...).values.reshape(size, -1)
            # an undefined replicate's masked draws are constant (NaN R-hat): ignored here
            ok &= ~np.any(bad(vals) & np.isfinite(vals), axis=1)
    joint = (
        diag.divergences == 0
        and not diag.bfmi_min < diag.bfmi_threshold
        and diag.max_depth_share <= diag.depth_threshold
    )
    return ok & joint
