r"""The Rogan-Gladen correction :math:`\hat\theta = (\hat p + q_0 - 1)/(q_0 + q_1 - 1)`,
its delta-method variance, its stratified form, the moment start of the samplers and the
biases of the corrected and naive rates.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from judgebayes.data.accuracy import check_counts
from judgebayes.errors import NotBetterThanChanceWarning
from judgebayes.inference.accuracy.closed_form.binomial import (
    JudgeRates,
    as_rate,
    as_size,
    binomial_interval,
    chance_mask,
    naive_rate,
    unbox,
)
from judgebayes.inference.accuracy.closed_form.lang_reiczigel import lr_se

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.inference.accuracy.closed_form.binomial import Errors


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
    p, a0, a1 = as_rate("p_hat", p_hat), as_rate("q0", q0), as_rate("q1", q1)
    bad = chance_mask(a0, a1, errors, "rogan_gladen")
    with np.errstate(invalid="ignore", divide="ignore"):
        th = (p + a0 - 1) / (a0 + a1 - 1)
    th = np.where(bad, np.nan, th)
    if clip:
        th = np.clip(th, 0.0, 1.0)
    return unbox(th)


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
    p, a0, a1 = as_rate("p_hat", p_hat), as_rate("q0_hat", q0_hat), as_rate("q1_hat", q1_hat)
    n, m0, m1 = as_size("n", n), as_size("m0", m0), as_size("m1", m1)
    bad = chance_mask(a0, a1, errors, "delta_method_variance")
    with np.errstate(invalid="ignore", divide="ignore"):
        th = (p + a0 - 1) / (a0 + a1 - 1)
    # Eq. 9 is the Eq. 6 standard error evaluated at the unadjusted quantities, squared
    v = lr_se(p, n, a0, a1, m0, m1, th) ** 2
    return unbox(np.where(bad, np.nan, v))


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
    t, a0, a1 = as_rate("theta", theta), as_rate("q0", q0), as_rate("q1", q1)
    m0, m1 = as_size("m0", m0), as_size("m1", m1)
    chance_mask(a0, a1, "raise", "rogan_gladen_bias")
    return unbox((-(1 - t) * a0 * (1 - a0) / m0 + t * a1 * (1 - a1) / m1) / (a0 + a1 - 1) ** 2)


def naive_bias(theta: Any, q0: Any, q1: Any) -> Any:
    r"""Exact bias of the naive rate: :math:`E[\hat p] - \theta = (q_0+q_1-2)\theta + 1 - q_0`.

    For :math:`q_0 = q_1 = q` this is :math:`(1-2\theta)(1-q)`: positive below
    :math:`\theta = 1/2`.  (The proof of the paper's Prop. B.1 prints
    :math:`(2\theta-1)(1-q)`, a sign slip; its comparison of absolute biases stands.)
    """
    t, a0, a1 = as_rate("theta", theta), as_rate("q0", q0), as_rate("q1", q1)
    return unbox(t * a1 + (1 - t) * (1 - a0) - t)
