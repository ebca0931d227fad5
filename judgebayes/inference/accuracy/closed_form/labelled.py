"""Estimators that use the human labels beyond the judge's rates: labels only, the
difference estimator, PPI++, conditional calibration, double sampling, the K-class
confusion inversion, and the table of point estimators.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.data.accuracy import check_counts
from judgebayes.errors import InputError, JudgeNoBetterThanChanceError, NotBetterThanChanceWarning
from judgebayes.inference.accuracy.closed_form.binomial import (
    Estimate,
    naive_rate,
    unbox,
    wilson_interval,
    z_value,
)
from judgebayes.inference.accuracy.closed_form.rogan_gladen import rogan_gladen

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.inference.accuracy.closed_form.binomial import Errors, Interval


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
    return Estimate(unbox(est), unbox(est - z * se), unbox(est + z * se), unbox(se))


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
    :func:`judgebayes.inference.items.ppi_items` follows ``ppi_py`` exactly (tested to
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
    return Estimate(unbox(est), unbox(est - z * se), unbox(est + z * se), unbox(se)), unbox(lam)


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
    return unbox(ppv * p + fomr * (1 - p))


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
    return Estimate(unbox(est), unbox(lo), unbox(hi), unbox(se))


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
