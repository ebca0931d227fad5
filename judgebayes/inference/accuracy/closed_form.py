r"""Closed-form estimators of accuracy under misclassification (numpy, vectorised).

Notation (Lee et al., 2025).  A judge with sensitivity :math:`q_1 = P(\hat Z=1\mid Z=1)`
and specificity :math:`q_0 = P(\hat Z=0\mid Z=0)` labels ``n`` test items; ``k`` of them
positive, :math:`\hat p = k/n`.  On a human-labelled calibration set it labels ``tp`` of
``m1`` truly positive items positive and ``tn`` of ``m0`` truly negative items negative.
Because :math:`p = \theta q_1 + (1-\theta)(1-q_0)`, the naive rate :math:`\hat p` is biased
for the true accuracy :math:`\theta` unless :math:`q_0 = q_1 = 1`.

Every function broadcasts over numpy arrays; scalars in give Python floats out.  A judge
no better than chance (:math:`q_0 + q_1 \le 1`) cannot be inverted: with
``errors="raise"`` (default) a :class:`~judgebayes.errors.JudgeNoBetterThanChanceError`
says so; with ``errors="nan"`` those entries become NaN, a
:class:`NotBetterThanChanceWarning` states how many, and interval results carry the count
in ``n_invalid``.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal, NamedTuple

import numpy as np
from scipy import special, stats

from judgebayes.data.accuracy import check_counts
from judgebayes.errors import InputError, JudgeNoBetterThanChanceError, NotBetterThanChanceWarning

__all__ = [
    "Estimate",
    "Interval",
    "JudgeRates",
    "NotBetterThanChanceWarning",
    "binomial_interval",
    "calibration_only_estimate",
    "clopper_pearson_interval",
    "conditional_calibration_estimate",
    "confusion_inversion",
    "delta_method_variance",
    "difference_estimate",
    "double_sampling",
    "judge_rates",
    "lang_reiczigel_from_counts",
    "lang_reiczigel_interval",
    "misclassification_adjusted_estimate",
    "moment_start",
    "naive_bias",
    "naive_rate",
    "point_estimators",
    "ppi_plus_plus",
    "rogan_gladen",
    "rogan_gladen_bias",
    "stratified_rogan_gladen",
    "wald_interval",
    "wilson_interval",
    "z_value",
]

Errors = Literal["raise", "nan"]


# --------------------------------------------------------------------------- helpers
def _out(x: Any) -> Any:
    """Python float for 0-d results, ndarray otherwise."""
    a = np.asarray(x, dtype=float)
    return float(a) if a.ndim == 0 else a


def z_value(alpha: float) -> float:
    r"""Two-sided normal quantile :math:`z = \Phi^{-1}(1-\alpha/2)`."""
    if type(alpha) is float and 0 < alpha < 1:  # the usual call: no array round trip
        return float(special.ndtri(1.0 - alpha / 2.0))
    a = np.asarray(alpha, dtype=float)
    if np.any(~((a > 0) & (a < 1))):
        raise InputError(f"alpha must lie in (0, 1); got {alpha!r}", field="alpha", value=alpha)
    return _out(special.ndtri(1.0 - a / 2.0))


def _rate(name: str, x: Any) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    bad = ~((a >= 0) & (a <= 1))
    if np.any(bad):
        raise InputError(
            f"{name} must lie in [0, 1]; got {a[bad].flat[0]!r}", field=name, value=a[bad].flat[0]
        )
    return a


def _size(name: str, x: Any, *, positive: bool = True) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    bad = np.isnan(a) | (a <= 0 if positive else a < 0)
    if np.any(bad):
        raise InputError(
            f"{name} must be {'positive' if positive else 'non-negative'}; got {a[bad].flat[0]!r}",
            field=name,
            value=a[bad].flat[0],
        )
    return a


def _chance_mask(
    q0: np.ndarray, q1: np.ndarray, errors: Errors, what: str, also: Any = False
) -> np.ndarray:
    """Boolean mask of entries with q0 + q1 <= 1 (or ``also``); raise or warn per ``errors``."""
    if errors not in ("raise", "nan"):
        raise InputError(f"errors must be 'raise' or 'nan'; got {errors!r}", field="errors")
    bad = np.asarray((q0 + q1 <= 1.0) | also)
    nbad = int(bad.sum())
    if nbad:
        if errors == "raise":
            i = int(np.argmax(bad))
            q0v = np.broadcast_to(q0, bad.shape).flat[i]
            q1v = np.broadcast_to(q1, bad.shape).flat[i]
            raise JudgeNoBetterThanChanceError(
                f"{what}: the judge is no better than chance (specificity q0={q0v:.4g} + "
                f"sensitivity q1={q1v:.4g} <= 1) in {nbad} of {bad.size} entr"
                f"{'y' if bad.size == 1 else 'ies'}, so the misclassification cannot be "
                "inverted; use errors='nan' to get NaN for those entries"
            )
        warnings.warn(
            f"{what}: {nbad} of {bad.size} entries have q0 + q1 <= 1 (judge no better than "
            "chance) and were set to NaN",
            NotBetterThanChanceWarning,
            stacklevel=3,
        )
    return bad


class Interval(tuple):
    """A ``(lower, upper)`` pair that also carries how it was made.

    Unpacks like a 2-tuple (``lo, hi = interval``).  Extra attributes (present where
    the method defines them): ``estimate``, ``centre``, ``se``, ``degenerate`` (a boolean
    array or bool: the two-sided interval lay wholly outside [0, 1] and a one-sided one
    was reported instead), ``n_invalid`` (entries set to NaN), ``alpha``, ``method``.
    """

    def __new__(cls, lower: Any, upper: Any, **info: Any) -> Interval:  # noqa: D102
        obj = super().__new__(cls, (_out(lower), _out(upper)))
        obj.__dict__.update(
            {
                k: _out(v) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v
                for k, v in info.items()
            }
        )
        return obj

    @property
    def lower(self) -> Any:
        """Lower bound."""
        return self[0]

    @property
    def upper(self) -> Any:
        """Upper bound."""
        return self[1]

    @property
    def width(self) -> Any:
        """``upper - lower``."""
        return _out(np.asarray(self[1]) - np.asarray(self[0]))

    def __repr__(self) -> str:
        return f"Interval(lower={self[0]!r}, upper={self[1]!r})"

    def __reduce__(self):
        return (_rebuild_interval, (self[0], self[1], dict(self.__dict__)))


def _rebuild_interval(lower, upper, info):
    return Interval(lower, upper, **info)


class Estimate(NamedTuple):
    """Point estimate with a normal-theory interval."""

    estimate: Any
    lower: Any
    upper: Any
    se: Any


class JudgeRates(NamedTuple):
    """Specificity ``q0`` and sensitivity ``q1`` estimates with their intervals."""

    q0: Any
    q0_lower: Any
    q0_upper: Any
    q1: Any
    q1_lower: Any
    q1_upper: Any


# ------------------------------------------------------------------ naive rate
def naive_rate(k: Any, n: Any) -> Any:
    r"""The raw rate :math:`\hat p = k/n` (paper Eq. 2); NaN where ``n == 0``."""
    k, n = check_counts("k", k, n, total_name="n")
    with np.errstate(invalid="ignore", divide="ignore"):
        return _out(np.where(n > 0, k / np.where(n > 0, n, 1), np.nan))


def wald_interval(k: Any, n: Any, alpha: float = 0.05) -> Interval:
    r"""Wald interval :math:`\hat p \pm z\sqrt{\hat p(1-\hat p)/n}`, truncated to [0, 1].

    Its width is zero when :math:`\hat p \in \{0, 1\}`; prefer :func:`wilson_interval`.
    """
    k, n = check_counts("k", k, n, total_name="n")
    z = z_value(alpha)
    p = np.asarray(naive_rate(k, n), dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(p * (1 - p) / n)
    return Interval(
        np.clip(p - z * se, 0, 1), np.clip(p + z * se, 0, 1), estimate=p, se=se, alpha=alpha
    )


def wilson_interval(k: Any, n: Any, alpha: float = 0.05) -> Interval:
    r"""Wilson score interval.

    .. math:: \frac{\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}
    """
    k, n = check_counts("k", k, n, total_name="n")
    z = z_value(alpha)
    p = np.asarray(naive_rate(k, n), dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return Interval(
        np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1), estimate=p, alpha=alpha
    )


def clopper_pearson_interval(k: Any, n: Any, alpha: float = 0.05) -> Interval:
    r"""Exact (Clopper-Pearson) interval from Beta quantiles.

    .. math:: [B(\alpha/2; k, n-k+1),\; B(1-\alpha/2; k+1, n-k)]

    with the bound set to 0 (1) when ``k == 0`` (``k == n``).
    """
    k, n = check_counts("k", k, n, total_name="n")
    z_value(alpha)  # validates alpha
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    return Interval(lo, hi, estimate=naive_rate(k, n), alpha=alpha)


_BINOMIAL = {
    "wald": wald_interval,
    "wilson": wilson_interval,
    "clopper_pearson": clopper_pearson_interval,
}


def binomial_interval(k: Any, n: Any, alpha: float = 0.05, method: str = "wilson") -> Interval:
    """Interval for a binomial proportion: ``method`` is wald, wilson or clopper_pearson."""
    try:
        fn = _BINOMIAL[method]
    except KeyError:
        raise InputError(
            f"method must be one of {sorted(_BINOMIAL)}; got {method!r}",
            field="method",
            value=method,
        ) from None
    return fn(k, n, alpha)


def judge_rates(
    tp: Any, m1: Any, tn: Any, m0: Any, alpha: float = 0.05, method: str = "wilson"
) -> JudgeRates:
    r"""Sensitivity :math:`\hat q_1 = tp/m_1` and specificity :math:`\hat q_0 = tn/m_0`.

    Each with a binomial interval (``method`` as in :func:`binomial_interval`).
    """
    check_counts("tp", tp, m1, total_name="m1", allow_zero_total=False)
    check_counts("tn", tn, m0, total_name="m0", allow_zero_total=False)
    i0 = binomial_interval(tn, m0, alpha, method)
    i1 = binomial_interval(tp, m1, alpha, method)
    return JudgeRates(naive_rate(tn, m0), i0[0], i0[1], naive_rate(tp, m1), i1[0], i1[1])


# ------------------------------------------------------------------ Rogan-Gladen
def rogan_gladen(p_hat: Any, q0: Any, q1: Any, clip: bool = True, errors: Errors = "raise") -> Any:
    r"""Rogan-Gladen (misclassification-adjusted) estimate of the true accuracy.

    .. math:: \hat\theta = \frac{\hat p + q_0 - 1}{q_0 + q_1 - 1}

    (paper Eqs. 4-5).  Exactly unbiased when ``q0``, ``q1`` are the true rates and
    ``clip=False``; with estimated rates a second-order bias remains
    (:func:`rogan_gladen_bias`).

    Parameters
    ----------
    p_hat : float or array
        Naive rate on the test set.
    q0, q1 : float or array
        Specificity and sensitivity (known or estimated).
    clip : bool
        Truncate to [0, 1] (the reported estimate); ``False`` gives the raw inverse,
        which is what is unbiased.
    errors : {"raise", "nan"}
        What to do where ``q0 + q1 <= 1``.
    """
    p, a0, a1 = _rate("p_hat", p_hat), _rate("q0", q0), _rate("q1", q1)
    bad = _chance_mask(a0, a1, errors, "rogan_gladen")
    with np.errstate(invalid="ignore", divide="ignore"):
        th = (p + a0 - 1) / (a0 + a1 - 1)
    th = np.where(bad, np.nan, th)
    if clip:
        th = np.clip(th, 0.0, 1.0)
    return _out(th)


def delta_method_variance(
    p_hat: Any, q0_hat: Any, q1_hat: Any, n: Any, m0: Any, m1: Any, errors: Errors = "raise"
) -> Any:
    r"""First-order (delta-method) variance of the Rogan-Gladen estimate (paper Eq. 9).

    .. math::
        \operatorname{Var}(\hat\theta) = \frac{\hat p(1-\hat p)/n
        + (1-\hat\theta)^2 \hat q_0(1-\hat q_0)/m_0
        + \hat\theta^2 \hat q_1(1-\hat q_1)/m_1}{(\hat q_0 + \hat q_1 - 1)^2}

    with :math:`\hat\theta` the unclipped estimate.  ``n`` may be ``np.inf``.
    """
    p, a0, a1 = _rate("p_hat", p_hat), _rate("q0_hat", q0_hat), _rate("q1_hat", q1_hat)
    n, m0, m1 = _size("n", n), _size("m0", m0), _size("m1", m1)
    bad = _chance_mask(a0, a1, errors, "delta_method_variance")
    with np.errstate(invalid="ignore", divide="ignore"):
        th = (p + a0 - 1) / (a0 + a1 - 1)
    # Eq. 9 is the Eq. 6 standard error evaluated at the unadjusted quantities, squared
    v = _lr_se(p, n, a0, a1, m0, m1, th) ** 2
    return _out(np.where(bad, np.nan, v))


def _lr_parts(p, a0, a1, n, m0, m1, z):
    """Adjusted quantities of paper Eq. 7 and the centre shift of Eq. 8."""
    z2 = z**2
    with np.errstate(invalid="ignore", divide="ignore"):
        # n may be infinite: then p~ = p and the test-set variance term vanishes
        pt = np.where(np.isinf(n), p, (n * p + z2 / 2) / (n + z2))
        nt = n + z2
    m0t, m1t = m0 + 2, m1 + 2
    q0t = (m0 * a0 + 1) / m0t
    q1t = (m1 * a1 + 1) / m1t
    return pt, nt, q0t, q1t, m0t, m1t


def _lr_se(pt, nt, q0t, q1t, m0t, m1t, tht):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(
            pt * (1 - pt) / nt
            + (1 - tht) ** 2 * q0t * (1 - q0t) / m0t
            + tht**2 * q1t * (1 - q1t) / m1t
        ) / np.abs(q0t + q1t - 1)


def lang_reiczigel_interval(
    p_hat: Any,
    q0_hat: Any,
    q1_hat: Any,
    n: Any,
    m0: Any,
    m1: Any,
    alpha: float = 0.05,
    *,
    centre: Literal["adjusted", "point"] = "adjusted",
    errors: Errors = "raise",
) -> Interval:
    r"""Lang-Reiczigel adjusted-Wald interval for the true accuracy (paper Eqs. 6-8).

    With :math:`z = \Phi^{-1}(1-\alpha/2)` and the "add successes and failures"
    adjustments of Eq. 7,

    .. math::
        \tilde n = n + z^2,\quad \tilde p = \frac{n\hat p + z^2/2}{n + z^2},\quad
        \tilde m_c = m_c + 2,\quad \tilde q_c = \frac{m_c \hat q_c + 1}{m_c + 2},\quad
        \tilde\theta = \frac{\tilde p + \tilde q_0 - 1}{\tilde q_0 + \tilde q_1 - 1},

    the centre shift of Eq. 8,

    .. math::
        d\tilde\theta = 2z^2\Big(-(1-\tilde\theta)\frac{\tilde q_0(1-\tilde q_0)}{\tilde m_0}
        + \tilde\theta\frac{\tilde q_1(1-\tilde q_1)}{\tilde m_1}\Big),

    and the interval of Eq. 6,

    .. math::
        c \pm z\,\frac{\sqrt{\tilde p(1-\tilde p)/\tilde n
        + (1-\tilde\theta)^2\tilde q_0(1-\tilde q_0)/\tilde m_0
        + \tilde\theta^2\tilde q_1(1-\tilde q_1)/\tilde m_1}}{\tilde q_0 + \tilde q_1 - 1},

    truncated to [0, 1].  The centre is :math:`c = \tilde\theta + d\tilde\theta` with
    ``centre="adjusted"`` (default; Lang & Reiczigel 2014 and the paper's published code)
    or :math:`c = \hat\theta + d\tilde\theta` with ``centre="point"`` (Eq. 6 as printed).

    Boundary.  Truncation never yields ``lower > upper``.  When the whole two-sided
    interval lies below 0 (above 1), truncation would collapse it to the point 0 (1);
    instead the entry is flagged ``degenerate`` and the one-sided :math:`1-\alpha`
    interval :math:`[0,\ z_{1-\alpha}\,\tilde{se}_0]` (:math:`[1 - z_{1-\alpha}
    \tilde{se}_1,\ 1]`) is reported, where :math:`\tilde{se}_b` is the standard error
    above evaluated at :math:`\tilde\theta = b`.

    Point estimate.  The interval is centred on adjusted quantities, so with one or two
    calibration items in a class (where adding two pseudo-observations moves
    :math:`\tilde q_c` far from :math:`\hat q_c`) it can exclude the clipped Rogan-Gladen
    estimate; ``contains_estimate`` says whether it does.  In 4 million random inputs
    with :math:`\min(m_0, m_1) \ge 3` it always did.

    Parameters
    ----------
    p_hat : float or array
        Naive rate on the test set.
    q0_hat, q1_hat : float or array
        Specificity and sensitivity estimated on the calibration set.
    n : int or array
        Test-set size (``np.inf`` allowed: no test-set uncertainty).
    m0, m1 : int or array
        Calibration sizes of the truly negative and truly positive classes.
    alpha : float
        One minus the confidence level.
    centre : {"adjusted", "point"}
        See above.
    errors : {"raise", "nan"}
        Entries with :math:`\hat q_0 + \hat q_1 \le 1` or
        :math:`\tilde q_0 + \tilde q_1 \le 1` raise or become NaN.

    Returns
    -------
    Interval
        ``(lower, upper)`` with attributes ``estimate`` (clipped Rogan-Gladen),
        ``centre``, ``se``, ``degenerate``, ``contains_estimate``, ``n_invalid``.
    """
    if centre not in ("adjusted", "point"):
        raise InputError(f"centre must be 'adjusted' or 'point'; got {centre!r}", field="centre")
    p, a0, a1 = _rate("p_hat", p_hat), _rate("q0_hat", q0_hat), _rate("q1_hat", q1_hat)
    n, m0, m1 = _size("n", n), _size("m0", m0), _size("m1", m1)
    z = z_value(alpha)
    pt, nt, q0t, q1t, m0t, m1t = _lr_parts(p, a0, a1, n, m0, m1, z)
    # the adjusted rates shrink towards 1/2 by different amounts, so check both sums
    bad = _chance_mask(a0, a1, errors, "lang_reiczigel_interval", also=q0t + q1t <= 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tht = (pt + q0t - 1) / (q0t + q1t - 1)
        th_hat = (p + a0 - 1) / (a0 + a1 - 1)
        dth = 2 * z**2 * (-(1 - tht) * q0t * (1 - q0t) / m0t + tht * q1t * (1 - q1t) / m1t)
    se = _lr_se(pt, nt, q0t, q1t, m0t, m1t, tht)
    c = (tht if centre == "adjusted" else th_hat) + dth
    lo_raw, hi_raw = c - z * se, c + z * se
    below, above = hi_raw < 0, lo_raw > 1
    z1 = float(special.ndtri(1.0 - alpha))
    se0 = _lr_se(pt, nt, q0t, q1t, m0t, m1t, 0.0)
    se1 = _lr_se(pt, nt, q0t, q1t, m0t, m1t, 1.0)
    lo = np.where(above, 1 - z1 * se1, lo_raw)
    hi = np.where(below, z1 * se0, hi_raw)
    lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    shape = np.broadcast(p, a0, a1, n, m0, m1).shape
    bad = np.broadcast_to(bad, shape)
    est = np.clip(th_hat, 0, 1)
    contains = ((lo <= est + 1e-12) & (est <= hi + 1e-12)) | bad
    degenerate = (below | above) & ~bad

    def nanify(x):
        return np.where(bad, np.nan, x)

    def flag(x):
        return bool(x) if np.ndim(x) == 0 else np.asarray(x)

    return Interval(
        nanify(lo),
        nanify(hi),
        estimate=nanify(est),
        contains_estimate=flag(contains),
        centre=nanify(c),
        se=nanify(se),
        degenerate=flag(degenerate),
        n_invalid=int(np.sum(bad)),
        alpha=alpha,
        method="lang_reiczigel",
    )


def lang_reiczigel_from_counts(
    k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any, alpha: float = 0.05
) -> Interval:
    """:func:`lang_reiczigel_interval` from counts, NaN where it is undefined, no warning.

    The one place the package turns counts into the corrected interval: ``p = k / n``,
    ``q0 = tn / m0``, ``q1 = tp / m1`` (arrays broadcast).  Entries whose judge is no
    better than chance (q0 + q1 <= 1, raw or adjusted), whose test set is empty (n = 0)
    or whose calibration lacks a class (m0 or m1 = 0) come back as NaN, silently: callers
    count them (``np.isnan(result.estimate)``) and say so in their own report.
    """
    k, n, tp, m1, tn, m0 = (np.asarray(x, dtype=float) for x in (k, n, tp, m1, tn, m0))
    empty = (n <= 0) | (m0 <= 0) | (m1 <= 0)
    one = np.ones_like
    nn, mm0, mm1 = (
        np.where(n > 0, n, one(n)),
        np.where(m0 > 0, m0, one(m0)),
        np.where(m1 > 0, m1, one(m1)),
    )
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", NotBetterThanChanceWarning)
        iv = lang_reiczigel_interval(
            np.where(n > 0, k, 0) / nn, np.where(m0 > 0, tn, 0) / mm0,
            np.where(m1 > 0, tp, 0) / mm1, nn, mm0, mm1, alpha, errors="nan",
        )  # fmt: skip
    if not np.any(empty):
        return iv
    nan = np.where(empty, np.nan, 0.0)
    return _rebuild_interval(
        np.asarray(iv.lower, float) + nan,
        np.asarray(iv.upper, float) + nan,
        {**iv.__dict__, "estimate": np.asarray(iv.estimate, float) + nan},
    )


class StratifiedEstimate(NamedTuple):
    """Share-weighted per-stratum Rogan-Gladen (see :func:`stratified_rogan_gladen`)."""

    theta: np.ndarray
    se: np.ndarray
    theta_stratum: np.ndarray
    q0: np.ndarray
    q1: np.ndarray


def stratified_rogan_gladen(
    k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any
) -> StratifiedEstimate:
    r"""Per-stratum Rogan-Gladen weighted by each system's test shares, with a delta-method se.

    .. math::
        \hat\theta_s = \sum_t w_{s,t}\,\hat\theta_{s,t},\quad
        w_{s,t} = n_{s,t} / \textstyle\sum_t n_{s,t},\quad
        \widehat{\mathrm{se}}_s^2 = \sum_t w_{s,t}^2\,\widehat{\mathrm{Var}}(\hat\theta_{s,t})

    with :math:`\hat\theta_{s,t}` the unclipped Rogan-Gladen estimate from stratum
    :math:`t`'s own calibration rates and :math:`\widehat{\mathrm{Var}}` the delta-method
    variance (Eq. 9).  ``k, n`` are (systems, strata); ``tp, m1, tn, m0`` (strata,).  A
    stratum whose calibration lacks a class gives NaN for every system that has test
    items in it; strata without test items weigh 0.
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    tp, m1, tn, m0 = (np.asarray(x, dtype=float) for x in (tp, m1, tn, m0))
    q0 = np.where(m0 > 0, tn / np.maximum(m0, 1), np.nan)
    q1 = np.where(m1 > 0, tp / np.maximum(m1, 1), np.nan)
    w = n / n.sum(1, keepdims=True)
    a0, a1 = np.nan_to_num(q0, nan=0.5), np.nan_to_num(q1, nan=0.5)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")
        p = np.where(n > 0, k / np.maximum(n, 1), 0.5)
        th = rogan_gladen(p, a0, a1, clip=False, errors="nan")
        var = delta_method_variance(
            p, a0, a1, np.maximum(n, 1), np.maximum(m0, 1), np.maximum(m1, 1), errors="nan"
        )
    bad = np.isnan(q0) | np.isnan(q1)
    th = np.where(bad[None, :] & (w > 0), np.nan, np.where(w > 0, th, 0.0))
    var = np.where(w > 0, var, 0.0)
    theta = (w * th).sum(1)
    se = np.sqrt((w**2 * var).sum(1))
    return StratifiedEstimate(theta, se, th, q0, q1)


def moment_start(p_hat: Any, q0: Any, q1: Any, *, margin: float = 0.0) -> dict[str, np.ndarray]:
    """Sampler start values from the raw rates: clipped Rogan-Gladen and judge rates.

    Returns ``theta``, ``q0``, ``q1`` (broadcast, clipped to [0.05, 0.95]), the same rates
    as ``u0``, ``u1`` of the better-than-chance parameterisation, and ``ok``
    (where q0 + q1 > 1 + margin).  Where not ok, the start is the neutral
    (0.5, 0.75, 0.75), away from the mirror region q0 + q1 < 1.  One helper for every
    engine that starts chains or an optimiser at the moment estimates.
    """
    p, a0, a1 = (np.asarray(x, dtype=float) for x in (p_hat, q0, q1))
    ok = np.broadcast_to(a0 + a1 > 1 + margin, np.broadcast(p, a0, a1).shape)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", NotBetterThanChanceWarning)
        th = rogan_gladen(p, a0, a1, clip=False, errors="nan")
    q0s = np.where(ok, np.clip(a0, 0.05, 0.95), 0.75)
    q1s = np.where(ok, np.clip(a1, 0.05, 0.95), 0.75)
    q0s = np.where(q0s + q1s > 1.01, q0s, 0.75)
    q1s = np.where(q0s + q1s > 1.01, q1s, 0.75)
    return {
        "theta": np.where(ok, np.clip(np.nan_to_num(th, nan=0.5), 0.05, 0.95), 0.5),
        "q0": q0s,
        "q1": q1s,
        # the better-than-chance parameterisation q1 = u1, q0 = 1 - u0 u1
        "u0": (1 - q0s) / q1s,
        "u1": q1s,
        "ok": ok,
    }


def rogan_gladen_bias(theta: Any, q0: Any, q1: Any, m0: Any, m1: Any) -> Any:
    r"""Second-order bias of the Rogan-Gladen estimate with estimated rates (Prop. 5.1).

    .. math::
        E[\hat\theta] - \theta \approx \frac{-(1-\theta) q_0(1-q_0)/m_0
        + \theta q_1(1-q_1)/m_1}{(q_0+q_1-1)^2}

    (test-set error does not enter: :math:`\hat\theta` is linear in :math:`\hat p`).
    """
    t, a0, a1 = _rate("theta", theta), _rate("q0", q0), _rate("q1", q1)
    m0, m1 = _size("m0", m0), _size("m1", m1)
    _chance_mask(a0, a1, "raise", "rogan_gladen_bias")
    return _out((-(1 - t) * a0 * (1 - a0) / m0 + t * a1 * (1 - a1) / m1) / (a0 + a1 - 1) ** 2)


def naive_bias(theta: Any, q0: Any, q1: Any) -> Any:
    r"""Exact bias of the naive rate: :math:`E[\hat p] - \theta = (q_0+q_1-2)\theta + 1 - q_0`.

    For :math:`q_0 = q_1 = q` this is :math:`(1-2\theta)(1-q)`: positive below
    :math:`\theta = 1/2`.  (The proof of the paper's Prop. B.1 prints
    :math:`(2\theta-1)(1-q)`, a sign slip; its comparison of absolute biases stands.)
    """
    t, a0, a1 = _rate("theta", theta), _rate("q0", q0), _rate("q1", q1)
    return _out(t * a1 + (1 - t) * (1 - a0) - t)


# ------------------------------------------------------------------ Table 1 estimators
def _cal(tp, m1, tn, m0):
    tp, m1 = check_counts("tp", tp, m1, total_name="m1")
    tn, m0 = check_counts("tn", tn, m0, total_name="m0")
    m = m0 + m1
    if np.any(m == 0):
        raise InputError("the calibration set is empty (m0 + m1 = 0)", field="m", value=0)
    return tp, m1, tn, m0, m


def calibration_only_estimate(m1: Any, m0: Any, alpha: float = 0.05) -> Interval:
    r"""Estimator (ii): the human-labelled rate :math:`m_1/(m_0+m_1)` of the calibration set.

    Needs only the human labels; unbiased for :math:`\theta` only when the calibration set
    is a random sample of the test distribution.  Wilson interval; ``estimate`` attribute.
    """
    m1a, m0a = np.asarray(m1, float), np.asarray(m0, float)
    m1a, m = check_counts("m1", m1a, m1a + m0a, total_name="m0 + m1")
    return wilson_interval(m1a, m, alpha)


def difference_estimate(
    k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any, alpha: float = 0.05
) -> Estimate:
    r"""Estimator (iii): the difference (prediction-powered, PPI) estimator.

    .. math:: \hat\theta_{PPI} = \hat p + \frac1m\sum_{j}(z_j - \hat z_j)
       = \frac kn + \frac{m_1 - (tp + fp)}{m}

    with the normal interval :math:`\hat\theta \pm z\sqrt{\hat p(1-\hat p)/n +
    \widehat{\operatorname{Var}}_Q(Z-\hat Z)/m}` (plug-in variance).  Unbiased only when
    the calibration set is a random sample of the test distribution.
    """
    k, n = check_counts("k", k, n, total_name="n", allow_zero_total=False)
    tp, m1, tn, m0, m = _cal(tp, m1, tn, m0)
    z = z_value(alpha)
    p = k / n
    fp, fn = m0 - tn, m1 - tp
    # Z - Zhat is +1 on false negatives, -1 on false positives, 0 otherwise
    mean_r = (fn - fp) / m
    var_r = (fn + fp) / m - mean_r**2
    est = p + mean_r
    se = np.sqrt(p * (1 - p) / n + var_r / m)
    return Estimate(_out(est), _out(est - z * se), _out(est + z * se), _out(se))


def ppi_plus_plus(
    k: Any,
    n: Any,
    tp: Any,
    m1: Any,
    tn: Any,
    m0: Any,
    alpha: float = 0.05,
    clip_lambda: bool = True,
) -> tuple[Estimate, Any]:
    r"""PPI++ (power-tuned prediction-powered) estimate of the mean human label.

    .. math::
        \hat\theta_\lambda = \lambda\hat p + \bar z_Q - \lambda\bar{\hat z}_Q,\qquad
        \hat\lambda = \frac{\widehat{\operatorname{Cov}}_Q(Z,\hat Z)}
        {(1 + m/n)\,\widehat{\operatorname{Var}}_Q(\hat Z)}

    (Angelopoulos, Duchi & Zrnic 2023), clipped to [0, 1] by default, with
    :math:`\operatorname{Var} = \lambda^2\hat p(1-\hat p)/n +
    \widehat{\operatorname{Var}}_Q(Z - \lambda\hat Z)/m`.  :math:`\lambda = 1` is the
    difference estimator and :math:`\lambda = 0` the calibration-only one.

    Convention: :math:`\widehat{\operatorname{Var}}_Q(\hat Z)` here is over the calibration
    items only (divisor :math:`m`), where ``ppi_py`` pools labelled and unlabelled
    verdicts (divisor :math:`n + m - 1`); lambda, and so the interval, differ slightly
    (by up to 0.01 in the interval's ends on the paper's grid).  The items design's
    :func:`judgebayes.inference.accuracy.items.ppi_items` follows ``ppi_py`` exactly (tested to
    1e-8 against it).

    Returns
    -------
    (Estimate, lambda)
    """
    k, n = check_counts("k", k, n, total_name="n", allow_zero_total=False)
    tp, m1, tn, m0, m = _cal(tp, m1, tn, m0)
    z = z_value(alpha)
    p = k / n
    fp = m0 - tn
    ez = m1 / m
    ezh = (tp + fp) / m
    ezzh = tp / m
    cov = ezzh - ez * ezh
    var_h = ezh * (1 - ezh)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(var_h > 0, cov / ((1 + m / n) * var_h), 0.0)
    if clip_lambda:
        lam = np.clip(lam, 0.0, 1.0)
    est = lam * p + ez - lam * ezh
    # Var_Q(Z - lam Zhat) = Var(Z) + lam^2 Var(Zhat) - 2 lam Cov
    var_r = ez * (1 - ez) + lam**2 * var_h - 2 * lam * cov
    se = np.sqrt(lam**2 * p * (1 - p) / n + np.maximum(var_r, 0) / m)
    return Estimate(_out(est), _out(est - z * se), _out(est + z * se), _out(se)), _out(lam)


def conditional_calibration_estimate(k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any) -> Any:
    r"""Estimator (iv): calibration matrix :math:`P_Q(Z\mid\hat Z)` applied to the test rate.

    .. math::
        \hat\theta_{cc} = \frac{tp}{tp+fp}\,\hat p + \frac{fn}{fn+tn}\,(1-\hat p)

    NaN where the judge never said positive (``tp + fp == 0``) or never said negative on
    the calibration set.  Unbiased only when :math:`P(Z\mid\hat Z)` is the same in test and
    calibration distributions.
    """
    k, n = check_counts("k", k, n, total_name="n", allow_zero_total=False)
    tp, m1, tn, m0, _ = _cal(tp, m1, tn, m0)
    p = k / n
    fp, fn = m0 - tn, m1 - tp
    with np.errstate(invalid="ignore", divide="ignore"):
        ppv = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
        fomr = np.where(fn + tn > 0, fn / (fn + tn), np.nan)
    return _out(ppv * p + fomr * (1 - p))


def double_sampling(
    k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any, alpha: float = 0.05
) -> Estimate:
    r"""Double-sampling estimate for a calibration set drawn at random from the test population.

    The judge labelled all :math:`N = n + m` items; humans labelled a simple random sample
    of :math:`m` of them (Tenenbein 1970).  With the judge's rate on all items
    :math:`\hat p = (k + tp + fp)/N`, and from the calibration sample the share of true
    positives among the judge's positives :math:`a = tp/(tp+fp)` and among its negatives
    :math:`b = fn/(fn+tn)`,

    .. math::
        \hat\theta = a\hat p + b(1 - \hat p),\qquad
        \widehat{\operatorname{Var}} = (a - b)^2\frac{\hat p(1-\hat p)}{N}
        + \hat p^2\frac{a(1-a)}{tp+fp} + (1-\hat p)^2\frac{b(1-b)}{fn+tn}

    (delta method; the three estimates are independent to first order), with a Wald
    interval clipped to [0, 1].  Unlike Rogan-Gladen it uses what the calibration sample
    says about :math:`\theta` directly (its class counts), and it needs no
    :math:`q_0 + q_1 > 1`; it is valid only under the random design.  NaN where the judge
    gave only one verdict on the calibration sample.
    """
    k, n = check_counts("k", k, n, total_name="n")
    tp, m1, tn, m0, m = _cal(tp, m1, tn, m0)
    z = z_value(alpha)
    fp, fn = m0 - tn, m1 - tp
    big_n = n + m
    p = (k + tp + fp) / big_n
    n1, n0 = tp + fp, fn + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(n1 > 0, tp / n1, np.nan)
        b = np.where(n0 > 0, fn / n0, np.nan)
        est = a * p + b * (1 - p)
        var = (a - b) ** 2 * p * (1 - p) / big_n + p**2 * a * (1 - a) / n1
        var = var + (1 - p) ** 2 * b * (1 - b) / n0
    se = np.sqrt(var)
    lo, hi = np.clip(est - z * se, 0, 1), np.clip(est + z * se, 0, 1)
    return Estimate(_out(est), _out(lo), _out(hi), _out(se))


def misclassification_adjusted_estimate(
    k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any, errors: Errors = "raise"
) -> Any:
    r"""Estimator (v): :math:`P_Q(\hat Z\mid Z)^{-1} E_P[\hat Z]`, i.e. unclipped Rogan-Gladen.

    Needs only the test verdicts and the confusion counts; unbiased to second order under
    any shift of :math:`P(Z)` between calibration and test sets.
    """
    k, n = check_counts("k", k, n, total_name="n", allow_zero_total=False)
    tp, m1 = check_counts("tp", tp, m1, total_name="m1", allow_zero_total=False)
    tn, m0 = check_counts("tn", tn, m0, total_name="m0", allow_zero_total=False)
    return rogan_gladen(k / n, tn / m0, tp / m1, clip=False, errors=errors)


def point_estimators(
    k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any, errors: Errors = "nan"
) -> dict[str, Any]:
    """The five point estimators of the paper's Table 1, each from the data it needs.

    Returns a dict with keys ``naive``, ``calibration_only``, ``difference``,
    ``conditional_calibration``, ``misclassification_adjusted`` (plus ``ppi_plus_plus``).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotBetterThanChanceWarning)
        return {
            "naive": naive_rate(k, n),
            "calibration_only": calibration_only_estimate(m1, m0).estimate,
            "difference": difference_estimate(k, n, tp, m1, tn, m0).estimate,
            "ppi_plus_plus": ppi_plus_plus(k, n, tp, m1, tn, m0)[0].estimate,
            "conditional_calibration": conditional_calibration_estimate(k, n, tp, m1, tn, m0),
            "misclassification_adjusted": misclassification_adjusted_estimate(
                k, n, tp, m1, tn, m0, errors=errors
            ),
        }


def confusion_inversion(
    confusion: Any, test: Any, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""K-class Rogan-Gladen: invert the estimated confusion matrix (delta-method interval).

    With :math:`\hat C_{kj} = N^{cal}_{kj}/m_k` (rows: true class) and judged-class rates
    :math:`\hat y = y/n`, :math:`E[\hat y] = C^\top\pi` gives
    :math:`\hat\pi = (\hat C^\top)^{-1}\hat y`, and to first order

    .. math::
        \operatorname{Cov}(\hat\pi) = A^{-1}\Big[\Sigma_y + \sum_k \pi_k^2
        \Sigma_{C_k}\Big]A^{-\top},\quad A = \hat C^\top,\
        \Sigma_y = \frac{\operatorname{diag}(\hat y) - \hat y\hat y^\top}{n},\
        \Sigma_{C_k} = \frac{\operatorname{diag}(\hat C_k) - \hat C_k\hat C_k^\top}{m_k}.

    The Wald interval is truncated to [0, 1]; the raw estimate may leave the simplex
    (reported as is, as the binary unclipped estimator is).

    Parameters
    ----------
    confusion : array (K, K)
        Calibration counts, rows true class, columns judged class.
    test : array (S, K) or (K,)
        Judged-class counts per system.
    alpha : float
        1 - confidence level.

    Returns
    -------
    (estimate, lower, upper) : arrays of shape (S, K)
    """
    conf = np.asarray(confusion, dtype=float)
    y = np.atleast_2d(np.asarray(test, dtype=float))
    m = conf.sum(1)
    if np.any(m == 0):
        raise InputError("a true class has no calibration example", field="confusion", value=0)
    c = conf / m[:, None]
    a = c.T
    if abs(np.linalg.det(a)) < 1e-12:
        raise JudgeNoBetterThanChanceError(
            "confusion_inversion: the estimated confusion matrix is singular, so the judge's "
            "errors cannot be inverted"
        )
    ainv = np.linalg.inv(a)
    z = z_value(alpha)
    est, lo, hi = (np.empty_like(y) for _ in range(3))
    for s in range(y.shape[0]):
        n = y[s].sum()
        yh = y[s] / n
        pi = ainv @ yh
        cov = (np.diag(yh) - np.outer(yh, yh)) / n
        for k in range(len(m)):
            cov = cov + pi[k] ** 2 * (np.diag(c[k]) - np.outer(c[k], c[k])) / m[k]
        v = ainv @ cov @ ainv.T
        se = np.sqrt(np.clip(np.diag(v), 0, None))
        est[s], lo[s], hi[s] = pi, np.clip(pi - z * se, 0, 1), np.clip(pi + z * se, 0, 1)
    return est, lo, hi
