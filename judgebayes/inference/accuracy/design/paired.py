"""How many labels for a paired comparison of two systems judged on the same items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.errors import InputError
from judgebayes.inference.accuracy.closed_form.binomial import z_value
from judgebayes.inference.registry import check_count


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
    s, m_, v = np.asarray(share), np.asarray(mu), np.asarray(var)
    mean = s @ m_
    return float(s @ (m_ - mean) ** 2), float(s @ v)


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
    systems' rows; :func:`~judgebayes.inference.items.paired_difference`) the
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
