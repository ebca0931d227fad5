"""How many calibration labels, and of which class: the optimal ratio, the allocation of
a budget, the interval width it buys, and where the judge is worth having.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from judgebayes.errors import InputError, JudgeNoBetterThanChanceError
from judgebayes.inference.accuracy.closed_form.binomial import as_rate, as_size, unbox, z_value
from judgebayes.inference.accuracy.closed_form.lang_reiczigel import lr_parts, lr_se


def optimal_calibration_ratio(p: Any, q0: Any, q1: Any, *, exact: bool = False) -> Any:
    r"""Optimal ratio :math:`m_0/m_1` of calibration class sizes.

    Approximate (Prop. 5.2, valid when :math:`q_0, q_1` are near 1):

    .. math:: \frac{m_0}{m_1} \approx \Big(\frac1p - 1\Big)\sqrt{\frac{1-q_0}{1-q_1}}

    Exact minimiser of the calibration part of the Eq. 6 variance (AM-GM step of the
    proof), with the rates treated as fixed:

    .. math:: \frac{m_0}{m_1} = \frac{|q_1 - p|}{|p + q_0 - 1|}
              \sqrt{\frac{q_0(1-q_0)}{q_1(1-q_1)}}

    Returns ``inf`` where all weight belongs on class 0 and 0 where it belongs on class 1.
    """
    p, a0, a1 = as_rate("p", p), as_rate("q0", q0), as_rate("q1", q1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if exact:
            num = np.abs(a1 - p) * np.sqrt(a0 * (1 - a0))
            den = np.abs(p + a0 - 1) * np.sqrt(a1 * (1 - a1))
        else:
            num = (1 - p) * np.sqrt(1 - a0)
            den = p * np.sqrt(1 - a1)
        r = np.where(den > 0, num / den, np.where(num > 0, np.inf, 1.0))
    return unbox(r)


def _round_half_up(x: np.ndarray) -> np.ndarray:
    return np.floor(x + 0.5)


def allocate_calibration(
    m: Any, p_hat: Any, q0_pilot: Any, q1_pilot: Any, m_pilot: Any = 0
) -> tuple[Any, Any]:
    r"""Split a calibration budget between truly-negative and truly-positive items (Alg. 1).

    With pilot rates smoothed as :math:`\tilde q_c = (m_{pilot}\hat q_c + 1)/(m_{pilot}+2)`
    (when ``m_pilot > 0``; otherwise the rates are used as given),

    .. math::
        m_1^* = \operatorname{round}\Big(m\,\frac{p\sqrt{1-\tilde q_1}}
        {p\sqrt{1-\tilde q_1} + (1-p)\sqrt{1-\tilde q_0}}\Big),\qquad
        m_1 = \min\{\max\{m_1^*, \ell\}, m - \ell\},\quad m_0 = m - m_1,

    which is Algorithm 1's :math:`m/(1 + (1/p-1)\sqrt{\hat\kappa})` written so that it is
    finite and continuous for every ``p`` in [0, 1] (the published form divides by zero at
    ``p = 0`` and at ``q1 = 1``).  The bound is :math:`\ell = \max(m_{pilot}, 1)`, so no class
    ever gets 0 items; where the formula is 0/0 (e.g. ``p = 0`` with ``q0 = 1``) the split is
    equal.

    Parameters
    ----------
    m : int or array
        Total calibration budget, including the pilot (``m >= 2 * max(m_pilot, 1)``).
    p_hat : float or array
        Naive positive rate on the test set.
    q0_pilot, q1_pilot : float or array
        Pilot (raw) specificity and sensitivity.
    m_pilot : int or array
        Pilot size per class (0: no pilot; the rates are taken as given).

    Returns
    -------
    (m0, m1) : ints or int arrays summing to ``m``
    """
    m = as_size("m", m)
    mp = as_size("m_pilot", m_pilot, positive=False)
    if np.any(m != np.floor(m)) or np.any(mp != np.floor(mp)):
        raise InputError("m and m_pilot must be whole numbers", field="m", value=m)
    p, a0, a1 = (
        as_rate("p_hat", p_hat),
        as_rate("q0_pilot", q0_pilot),
        as_rate("q1_pilot", q1_pilot),
    )
    lo = np.maximum(mp, 1)
    if np.any(2 * lo > m):
        i = np.argmax(np.broadcast_to(2 * lo > m, np.broadcast(m, lo).shape))
        raise InputError(
            f"budget m={np.broadcast_to(m, np.broadcast(m, lo).shape).flat[i]:g} is too small: "
            f"it must hold at least {2 * np.broadcast_to(lo, np.broadcast(m, lo).shape).flat[i]:g} "
            "items (max(m_pilot, 1) per class)",
            field="m",
            value=m,
        )
    q0t = np.where(mp > 0, (mp * a0 + 1) / (mp + 2), a0)
    q1t = np.where(mp > 0, (mp * a1 + 1) / (mp + 2), a1)
    w1 = p * np.sqrt(1 - q1t)
    w0 = (1 - p) * np.sqrt(1 - q0t)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac1 = np.where(w0 + w1 > 0, w1 / (w0 + w1), 0.5)
    m1 = np.clip(_round_half_up(m * frac1), lo, m - lo)
    m0 = m - m1
    if np.ndim(m1) == 0:
        return int(m0), int(m1)
    return m0.astype(np.int64), m1.astype(np.int64)


def interval_width(p: Any, q0: Any, q1: Any, n: Any, m0: Any, m1: Any, alpha: float = 0.05) -> Any:
    r"""Width of the Lang-Reiczigel interval (Eq. 6, before truncation) at given rates.

    .. math:: 2z\sqrt{\tilde p(1-\tilde p)/\tilde n + (1-\tilde\theta)^2\tilde q_0(1-\tilde q_0)
              /\tilde m_0 + \tilde\theta^2\tilde q_1(1-\tilde q_1)/\tilde m_1}
              \,/\,(\tilde q_0+\tilde q_1-1)

    Used for planning: the rates are the values one expects to observe.
    """
    p, a0, a1 = as_rate("p", p), as_rate("q0", q0), as_rate("q1", q1)
    n, m0, m1 = as_size("n", n), as_size("m0", m0), as_size("m1", m1)
    z = z_value(alpha)
    pt, nt, q0t, q1t, m0t, m1t = lr_parts(p, a0, a1, n, m0, m1, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        tht = (pt + q0t - 1) / (q0t + q1t - 1)
    se = lr_se(pt, nt, q0t, q1t, m0t, m1t, tht)
    return unbox(np.where(q0t + q1t > 1, 2 * z * se, np.nan))


@dataclass(frozen=True)
class CalibrationPlan:
    """Result of :func:`plan_calibration`."""

    m: int
    m0: int
    m1: int
    width: float
    target_width: float
    allocation: str
    p: float
    q0: float
    q1: float
    n: float
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-friendly; ``n`` may be ``inf``)."""
        return asdict(self)


def _split(m: np.ndarray, p, q0, q1, allocation: str) -> tuple[np.ndarray, np.ndarray]:
    """(m0, m1) for each total in ``m`` (1-D int array)."""
    if allocation == "equal":
        m1 = np.floor(m / 2)
    else:  # optimal: the exact AM-GM ratio, bounded to at least one per class
        r = optimal_calibration_ratio(p, q0, q1, exact=True)
        frac1 = 1.0 / (1.0 + r) if np.isfinite(r) else 0.0
        m1 = _round_half_up(m * frac1)
    m1 = np.clip(m1, 1, m - 1)
    return m - m1, m1


def _width_for_total(m: np.ndarray, p, q0, q1, n, alpha, allocation) -> tuple:
    m0, m1 = _split(m, p, q0, q1, allocation)
    w = np.asarray(interval_width(p, q0, q1, n, m0, m1, alpha), dtype=float)
    if allocation == "optimal":
        # the exact ratio treats the adjusted rates as fixed; check the neighbouring splits
        for d in (-2, -1, 1, 2):
            m1d = np.clip(m1 + d, 1, m - 1)
            wd = np.asarray(interval_width(p, q0, q1, n, m - m1d, m1d, alpha), dtype=float)
            better = wd < w
            w, m1 = np.where(better, wd, w), np.where(better, m1d, m1)
        m0 = m - m1
    return w, m0, m1


def plan_calibration(
    p: float,
    q0: float,
    q1: float,
    width: float,
    n: float = np.inf,
    alpha: float = 0.05,
    allocation: Literal["optimal", "equal"] = "optimal",
    max_m: int = 10_000_000,
) -> CalibrationPlan:
    r"""Smallest calibration size whose interval (Eq. 6) is at most ``width`` wide.

    The expected rates ``p`` (judge's positive rate on the test set), ``q0`` and ``q1``
    are plugged into :func:`interval_width`.  ``allocation="equal"`` splits
    :math:`m_1 = \lfloor m/2\rfloor`; ``"optimal"`` uses the exact ratio of
    :func:`optimal_calibration_ratio` and then the best of the neighbouring splits.
    The returned ``m`` is the smallest total meeting the target (the width is not
    exactly monotone in ``m`` because the adjustments depend on it, so the search
    brackets by doubling and then scans the bracket).

    Raises
    ------
    InputError
        If the target cannot be reached: with finite ``n`` the test-set term alone sets
        a floor on the width, which the message states.
    JudgeNoBetterThanChanceError
        If ``q0 + q1 <= 1``.
    """
    if allocation not in ("optimal", "equal"):
        raise InputError(
            f"allocation must be 'optimal' or 'equal'; got {allocation!r}",
            field="allocation",
            value=allocation,
        )
    p, q0, q1 = (float(as_rate(nm, v)) for nm, v in (("p", p), ("q0", q0), ("q1", q1)))
    n = float(as_size("n", n))
    if isinstance(width, bool) or not isinstance(width, int | float) or not (0 < width <= 2):
        raise InputError(
            f"width must be a number in (0, 2]; got {width!r}", field="width", value=width
        )
    if q0 + q1 <= 1:
        raise JudgeNoBetterThanChanceError(
            f"plan_calibration: q0={q0:g} + q1={q1:g} <= 1: a judge no better than chance "
            "cannot be calibrated"
        )
    # floor on the width as m -> infinity: only the test-set term is left
    z = z_value(alpha)
    if np.isfinite(n):
        pt = (n * p + z**2 / 2) / (n + z**2)
        floor = 2 * z * np.sqrt(pt * (1 - pt) / (n + z**2)) / (q0 + q1 - 1)
        if floor >= width:
            raise InputError(
                f"width={width:g} cannot be reached with n={n:g} test items: even an infinite "
                f"calibration set leaves a width of {floor:.4g}; raise n or the target width",
                field="width",
                value=width,
            )

    def width_at(ms):
        return _width_for_total(np.asarray(ms, float), p, q0, q1, n, alpha, allocation)

    hi = 4
    while width_at([hi])[0][0] > width:
        hi *= 2
        if hi > max_m:
            raise InputError(
                f"width={width:g} needs more than max_m={max_m} calibration items",
                field="width",
                value=width,
            )
    ms = np.arange(2, hi + 1, dtype=float)
    w, m0, m1 = width_at(ms)
    i = int(np.argmax(w <= width))
    return CalibrationPlan(
        m=int(ms[i]),
        m0=int(m0[i]),
        m1=int(m1[i]),
        width=float(w[i]),
        target_width=float(width),
        allocation=allocation,
        p=p,
        q0=q0,
        q1=q1,
        n=n,
        alpha=float(alpha),
    )


def llm_advantage_region(q: Any, q1: Any = None) -> tuple[Any, Any]:
    r"""True accuracies for which a calibrated LLM judge beats human-only evaluation.

    With :math:`n\to\infty` and a calibration set of size ``m`` drawn at random, the
    Rogan-Gladen variance is :math:`[(1-\theta)a_0 + \theta a_1]/(m(q_0+q_1-1)^2)` with
    :math:`a_c = q_c(1-q_c)`, and human-only evaluation of ``m`` items has variance
    :math:`\theta(1-\theta)/m`.  The judge wins on the interval of :math:`\theta` where
    :math:`\theta^2 - \theta(1 - (a_1-a_0)/D) + a_0/D \le 0`, :math:`D=(q_0+q_1-1)^2`.
    For :math:`q_0 = q_1 = q` this is Prop. 6.1:

    .. math:: \theta\in\Big[\tfrac12 - \sqrt{\tfrac12 - \tfrac{1}{4(2q-1)^2}},\;
              \tfrac12 + \sqrt{\tfrac12 - \tfrac{1}{4(2q-1)^2}}\Big],

    non-empty only for :math:`q \ge \tfrac12 + \tfrac{1}{2\sqrt2} \approx 0.854`.

    Parameters
    ----------
    q : float or array
        Common accuracy :math:`q_0 = q_1` (or :math:`q_0` when ``q1`` is given).
    q1 : float or array, optional
        Sensitivity, for a judge with unequal rates.

    Returns
    -------
    (theta_lo, theta_hi)
        NaN where the region is empty (judge never preferable).
    """
    a0r = as_rate("q", q)
    a1r = a0r if q1 is None else as_rate("q1", q1)
    with np.errstate(divide="ignore", invalid="ignore"):
        a0, a1 = a0r * (1 - a0r), a1r * (1 - a1r)
        d = (a0r + a1r - 1) ** 2
        b = 1 - (a1 - a0) / d
        c = a0 / d
        disc = b**2 / 4 - c
        ok = (disc >= 0) & (a0r + a1r > 1)
        root = np.sqrt(np.where(ok, disc, np.nan))
        lo = np.clip(b / 2 - root, 0, 1)
        hi = np.clip(b / 2 + root, 0, 1)
    return unbox(np.where(ok, lo, np.nan)), unbox(np.where(ok, hi, np.nan))
