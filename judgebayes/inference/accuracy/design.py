r"""Calibration design: how many human labels to collect, and of which class.

* :func:`optimal_calibration_ratio` — Prop. 5.2 of Lee et al.: the Lang-Reiczigel interval
  is shortest when :math:`m_0/m_1 \approx (1/p - 1)\sqrt{\kappa}` with the error ratio
  :math:`\kappa = (1-q_0)/(1-q_1)`; the exact AM-GM ratio is available too.
* :func:`allocate_calibration` — Algorithm 1: split a budget ``m`` between the classes
  from Laplace-smoothed pilot rates; continuous in ``p`` and never 0 for a class.
* :func:`plan_calibration` — the smallest total ``m`` whose interval reaches a target
  width for given ``p, q0, q1, n`` (``n`` may be infinite), under equal or optimal split.
* :func:`plan_paired` — what a paired comparison of two systems on the same prompts can
  detect, and how many prompts to label on both systems for a given difference.
* :func:`llm_advantage_region` — Prop. 6.1: the true accuracies for which a calibrated
  LLM judge (with :math:`n\to\infty`) beats human-only evaluation of the same budget.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from judgebayes.errors import InputError, JudgeNoBetterThanChanceError
from judgebayes.inference.accuracy.closed_form.binomial import _out, _rate, _size, z_value
from judgebayes.inference.accuracy.closed_form.lang_reiczigel import _lr_parts, _lr_se
from judgebayes.inference.registry import check_count

__all__ = [
    "CalibrationPlan",
    "PairedPlan",
    "allocate_calibration",
    "interval_width",
    "llm_advantage_region",
    "optimal_calibration_ratio",
    "paired_joint",
    "plan_calibration",
    "plan_paired",
]


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
    p, a0, a1 = _rate("p", p), _rate("q0", q0), _rate("q1", q1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if exact:
            num = np.abs(a1 - p) * np.sqrt(a0 * (1 - a0))
            den = np.abs(p + a0 - 1) * np.sqrt(a1 * (1 - a1))
        else:
            num = (1 - p) * np.sqrt(1 - a0)
            den = p * np.sqrt(1 - a1)
        r = np.where(den > 0, num / den, np.where(num > 0, np.inf, 1.0))
    return _out(r)


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
    m = _size("m", m)
    mp = _size("m_pilot", m_pilot, positive=False)
    if np.any(m != np.floor(m)) or np.any(mp != np.floor(mp)):
        raise InputError("m and m_pilot must be whole numbers", field="m", value=m)
    p, a0, a1 = _rate("p_hat", p_hat), _rate("q0_pilot", q0_pilot), _rate("q1_pilot", q1_pilot)
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
    p, a0, a1 = _rate("p", p), _rate("q0", q0), _rate("q1", q1)
    n, m0, m1 = _size("n", n), _size("m0", m0), _size("m1", m1)
    z = z_value(alpha)
    pt, nt, q0t, q1t, m0t, m1t = _lr_parts(p, a0, a1, n, m0, m1, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        tht = (pt + q0t - 1) / (q0t + q1t - 1)
    se = _lr_se(pt, nt, q0t, q1t, m0t, m1t, tht)
    return _out(np.where(q0t + q1t > 1, 2 * z * se, np.nan))


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
    p, q0, q1 = (float(_rate(nm, v)) for nm, v in (("p", p), ("q0", q0), ("q1", q1)))
    n = float(_size("n", n))
    if not (0 < width <= 2):
        raise InputError(f"width must lie in (0, 2]; got {width!r}", field="width", value=width)
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
    a0r = _rate("q", q)
    a1r = a0r if q1 is None else _rate("q1", q1)
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
    return _out(np.where(ok, lo, np.nan)), _out(np.where(ok, hi, np.nan))


def _scalar(name: str, x, low: float, high: float, *, closed=False, upper=False) -> float:
    """``x`` as a float in (low, high) (``closed``: [low, high]; ``upper``: (low, high]),
    else one :class:`InputError` naming it.
    """
    ok = isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool)
    v = float(x) if ok else float("nan")
    inside = (low <= v <= high) if closed else (low < v <= high) if upper else (low < v < high)
    if not inside:
        span = f"[{low:g}, {high:g}]" if closed else f"({low:g}, {high:g}{']' if upper else ')'}"
        raise InputError(f"{name} must be a number in {span}; got {x!r}", field=name, value=x)
    return v


@dataclass(frozen=True)
class PairedPlan:
    """What a paired comparison of two systems on the same items can detect.

    Attributes
    ----------
    se : float
        Predicted standard error of the paired difference (process estimand).
    detectable_difference : float
        The smallest true difference a two-sided test at ``alpha`` detects with ``power``.
    labelled_fraction_for : dict
        For each difference asked about, the share of items to label on both systems
        (NaN: not reachable with these items, even labelling all).
    agreement : float
        The agreement the figures are for: the one given, or, for a range, the one in
        it that needs the most labels (the plan holds over the whole range).
    se_range : tuple of float
        The standard error at the range's best and worst agreement (equal for one value).
    """

    se: float
    detectable_difference: float
    labelled_fraction_for: dict
    agreement: float = float("nan")
    se_range: tuple = ()


def paired_joint(rate_a: float, rate_b: float, agreement: float) -> dict:
    """The joint of two systems' correctness on one item, ``{(h_a, h_b): probability}``,
    fixed by their rates and ``agreement`` (the share both right or both wrong):
    :math:`P(1, 0) = (1 - g + r_a - r_b)/2`, :math:`P(0, 1) = (1 - g - r_a + r_b)/2`.
    An agreement the rates cannot have is an :class:`~judgebayes.errors.InputError`.
    """
    p10 = (1 - agreement + rate_a - rate_b) / 2
    p01 = (1 - agreement - rate_a + rate_b) / 2
    joint = {(1, 1): rate_a - p10, (1, 0): p10, (0, 1): p01, (0, 0): 1 - rate_b - p10}
    if min(joint.values()) < -1e-12:
        raise InputError(
            f"agreement {agreement} is not possible with rates {rate_a} and {rate_b}: the two "
            "systems can agree on at most 1 - |rate_a - rate_b| of the items",
            field="agreement",
            value=agreement,
        )
    return {k: max(v, 0.0) for k, v in joint.items()}


def _paired_terms(rate_a, rate_b, agreement, sensitivity, specificity) -> tuple[float, float]:
    """(variance of the per-category mean difference, mean within-category variance)."""
    joint = paired_joint(rate_a, rate_b, agreement)

    def p_verdict(v, h):
        return (
            (sensitivity if v else 1 - sensitivity)
            if h
            else (specificity if not v else 1 - specificity)
        )

    mu, var, share = [], [], []
    for va in (0, 1):
        for vb in (0, 1):
            w = {hh: pj * p_verdict(va, hh[0]) * p_verdict(vb, hh[1]) for hh, pj in joint.items()}
            tot = sum(w.values())
            if tot <= 0:
                continue
            d = np.array([hh[0] - hh[1] for hh in w])
            pr = np.array(list(w.values())) / tot
            m = float(d @ pr)
            mu.append(m)
            var.append(float(((d - m) ** 2) @ pr))
            share.append(tot)
    share, mu, var = (np.asarray(x) for x in (share, mu, var))
    mean = share @ mu
    return float(share @ (mu - mean) ** 2), float(share @ var)


def plan_paired(
    n_items: int,
    labelled_fraction: float,
    *,
    rate_a: float,
    rate_b: float,
    agreement: float | tuple[float, float],
    sensitivity: float,
    specificity: float,
    alpha: float = 0.05,
    power: float = 0.8,
    differences: tuple[float, ...] = (),
) -> PairedPlan:
    r"""Plan a paired comparison of two systems judged on the same ``n_items`` prompts,
    with a ``labelled_fraction`` of the prompts labelled on both systems.

    For the paired double-sampling contrast (joint verdict categories :math:`c` of the two
    systems' rows; :func:`~judgebayes.inference.accuracy.items.paired_difference`) the
    process variance is

    .. math::
        \operatorname{Var}\hat\delta \approx \frac{1}{N}\Big(\operatorname{Var}_c \mu_c +
        \frac{1}{f}\,E_c\,\sigma_c^2\Big),

    with :math:`\mu_c, \sigma_c^2` the mean and variance of :math:`d = h_a - h_b` in
    category :math:`c`, computed exactly from the systems' rates, their agreement (the
    share of items on which both are right or both wrong) and the judge's sensitivity and
    specificity (its verdicts on the two rows independent given the truth).  The detectable
    difference is :math:`(z_{1-\alpha/2} + z_{\text{power}})\,\mathrm{se}`; the labelled
    fraction for a difference :math:`\delta` solves the same equation for :math:`f`.
    Labelling both systems on the same prompts is what makes the pairing pay: a prompt
    labelled on one system only tells nothing about the difference.

    The agreement is rarely known before labelling, and the plan is sensitive to it (at
    rates 0.75 / 0.70, planned at 0.9 when the truth is 0.8, power 0.8 becomes about
    0.55).  ``agreement=(low, high)`` plans for the range: the figures are those of the
    agreement in it (on a grid of 41) with the largest standard error, and ``se_range``
    says how much the range matters.
    """
    n_items = check_count(n_items, "n_items")
    span = _agreement_range(agreement)
    for name, x in (
        ("rate_a", rate_a),
        ("rate_b", rate_b),
        ("sensitivity", sensitivity),
        ("specificity", specificity),
    ):
        _scalar(name, x, 0.0, 1.0, closed=True)
    _scalar("labelled_fraction", labelled_fraction, 0.0, 1.0, closed=False, upper=True)
    _scalar("alpha", alpha, 0.0, 1.0)
    _scalar("power", power, 0.0, 1.0)
    if isinstance(differences, int | float | np.number) and not isinstance(differences, bool):
        differences = (differences,)
    if isinstance(differences, str) or not hasattr(differences, "__iter__"):
        raise InputError(
            f"differences must be a sequence of numbers in (0, 1]; got {differences!r}",
            field="differences",
            value=differences,
        )
    for delta in differences:
        _scalar("differences", delta, 0.0, 1.0, closed=False, upper=True)
    grid = np.linspace(span[0], span[1], 41) if span[1] > span[0] else np.array(span[:1])
    terms = [_paired_terms(rate_a, rate_b, g, sensitivity, specificity) for g in grid]
    ses = [float(np.sqrt((vm + es / labelled_fraction) / n_items)) for vm, es in terms]
    worst = int(np.argmax(ses))
    v_mu, e_s2 = terms[worst]
    z = z_value(alpha) + z_value(2 * (1 - power))
    se = ses[worst]
    need = {}
    for delta in differences:
        room = n_items * (abs(delta) / z) ** 2 - v_mu
        f = e_s2 / room if room > 0 else np.nan
        need[float(delta)] = float(f) if np.isfinite(f) and f <= 1 else float("nan")
    return PairedPlan(se, float(z * se), need, float(grid[worst]), (min(ses), max(ses)))


def _agreement_range(agreement) -> tuple[float, float]:
    """``agreement`` as (low, high): one number in [0, 1] or an increasing pair of them."""
    if isinstance(agreement, tuple | list | np.ndarray) and len(agreement) == 2:
        low, high = (_scalar("agreement", x, 0.0, 1.0, closed=True) for x in agreement)
        if low > high:
            raise InputError(
                f"agreement as a range must be (low, high) with low <= high; got {agreement!r}",
                field="agreement",
                value=agreement,
            )
        return low, high
    v = _scalar("agreement", agreement, 0.0, 1.0, closed=True)
    return v, v
