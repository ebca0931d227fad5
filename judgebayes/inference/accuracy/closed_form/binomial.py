"""The pieces every closed form shares (input checks, the interval type) and the
binomial intervals of a judged rate with no correction: Wald, Wilson, Clopper-Pearson.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal, NamedTuple

import numpy as np
from scipy import special, stats

from judgebayes.data.accuracy import check_counts
from judgebayes.errors import InputError, JudgeNoBetterThanChanceError, NotBetterThanChanceWarning

Errors = Literal["raise", "nan"]


# --------------------------------------------------------------------------- helpers
def unbox(x: Any) -> Any:
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
    return unbox(special.ndtri(1.0 - a / 2.0))


def as_rate(name: str, x: Any) -> np.ndarray:
    """``x`` as a float array in [0, 1], else a typed error naming ``name``."""
    a = np.asarray(x, dtype=float)
    bad = ~((a >= 0) & (a <= 1))
    if np.any(bad):
        raise InputError(
            f"{name} must lie in [0, 1]; got {a[bad].flat[0]!r}", field=name, value=a[bad].flat[0]
        )
    return a


def as_size(name: str, x: Any, *, positive: bool = True) -> np.ndarray:
    """``x`` as a float array of positive sizes (``positive=False``: non-negative), else a
    typed error naming ``name``.
    """
    a = np.asarray(x, dtype=float)
    bad = np.isnan(a) | (a <= 0 if positive else a < 0)
    if np.any(bad):
        raise InputError(
            f"{name} must be {'positive' if positive else 'non-negative'}; got {a[bad].flat[0]!r}",
            field=name,
            value=a[bad].flat[0],
        )
    return a


def chance_mask(
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

    # set per instance by the method that makes the interval (where it defines them)
    estimate: Any
    centre: Any
    se: Any
    degenerate: Any
    n_invalid: Any
    alpha: Any
    method: Any

    def __new__(cls, lower: Any, upper: Any, **info: Any) -> Interval:  # noqa: D102
        obj = super().__new__(cls, (unbox(lower), unbox(upper)))
        obj.__dict__.update(
            {
                k: unbox(v) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v
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
        return unbox(np.asarray(self[1]) - np.asarray(self[0]))

    def __repr__(self) -> str:
        return f"Interval(lower={self[0]!r}, upper={self[1]!r})"

    def __reduce__(self):
        return (rebuild_interval, (self[0], self[1], dict(self.__dict__)))


def rebuild_interval(lower, upper, info):
    """An :class:`Interval` from its bounds and facts (how one is unpickled)."""
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
        return unbox(np.where(n > 0, k / np.where(n > 0, n, 1), np.nan))


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
