r"""Which items to label next: inclusion probabilities from per-item uncertainty, and the
design-unbiased estimate of a round of labels drawn with them.

Items :math:`i = 1..N`, every one judged (:math:`f_i`: a verdict or a score), a label
:math:`Y_i` for those sampled.  A round draws item :math:`i` with probability :math:`\pi_i`
(independently: Poisson sampling; an item already labelled costs nothing when drawn again)
and estimates the mean of :math:`Y` over the :math:`N` items by the difference (GREG)
estimator

.. math::

    \hat\theta = \frac1N \sum_i g(f_i) + \frac1N \sum_i \frac{R_i}{\pi_i} (Y_i - g(f_i)),
    \qquad
    \widehat{\mathrm{Var}} = \frac{1}{N^2} \sum_i R_i \frac{1 - \pi_i}{\pi_i^2} e_i^2,

with :math:`g` the working model fixed before the round (a least-squares line of :math:`Y`
on :math:`f` from earlier labels) and :math:`e_i = Y_i - g(f_i)`: unbiased for the rate of
the :math:`N` items whatever :math:`g` is, its variance
:math:`\frac{1}{N^2}\sum_i \frac{1 - \pi_i}{\pi_i} e_i^2` smallest for
:math:`\pi_i \propto |e_i| / \sqrt{c_i}` at a budget :math:`\sum_i \pi_i c_i` (:math:`c_i`
the cost of labelling item :math:`i`; Neyman for Poisson sampling, capped at 1).  The
:math:`|e_i|` are unknown before labelling: their root mean square is predicted from the
labels so far within quantile bins of the item's uncertainty (the judge's probability or
score, the spread of several judges or runs), shrunk to the overall value, and the
probabilities are mixed with uniform ones, :math:`\pi = (1 - \tau) \pi^{active} + \tau
\pi^{uniform}`, at the :math:`\tau \in \{0, 0.1, ..., 1\}` whose predicted variance is
smallest, so the design is never predicted worse than uniform.  Rounds combine with
fixed weights (their expected label counts): each round's estimate is unbiased given the
rounds before it, so the combination is too, and its variance is the weighted sum.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.errors import InputError
from judgebayes.inference.registry import check_seed

__all__ = [
    "MIN_LABELS",
    "design_round",
    "error_scale",
    "greg_estimate",
    "inclusion_probabilities",
    "line",
    "mixed_design",
    "normal_interval",
    "plan_round",
    "predicted_variance",
]

#: labels needed before a round leans on the uncertainty: with fewer, the error scales per
#: bin are noise and a round drawn on them was wider than uniform (after a first round of 8
#: labels, 0.220 against 0.187 at 41 labels over 50 draws on LLMBar,
#: benchmarks/active_labelling.py), so it is uniform
MIN_LABELS = 30


def line(f: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple[float, float]:
    """Intercept and slope of the (weighted) least-squares line of ``y`` on ``f``; the
    mean alone when ``f`` does not vary.
    """
    f, y = np.asarray(f, float), np.asarray(y, float)
    w = np.ones_like(f) if w is None else np.asarray(w, float)
    if f.size == 0:
        return 0.0, 0.0
    mf, my = np.average(f, weights=w), np.average(y, weights=w)
    vf = np.average((f - mf) ** 2, weights=w)
    if vf <= 1e-12:
        return float(my), 0.0
    b = np.average((f - mf) * (y - my), weights=w) / vf
    return float(my - b * mf), float(b)


def error_scale(
    uncertainty: np.ndarray,
    residual2: np.ndarray,
    labelled: np.ndarray,
    *,
    groups: np.ndarray | None = None,
    bins: int = 5,
    prior: float = 5.0,
) -> np.ndarray:
    r"""Each item's predicted root mean square residual :math:`\sqrt{E[e^2 \mid u]}`: the
    labelled items' mean :math:`e^2` within quantile bins of the uncertainty ``u`` (and
    within ``groups``, e.g. the judge's verdict), each bin's mean shrunk toward the overall
    one with ``prior`` pseudo-items.
    """
    u = np.asarray(uncertainty, float)
    groups = np.zeros(u.size, np.int64) if groups is None else np.asarray(groups)
    r2 = np.asarray(residual2, float)
    overall = float(np.mean(r2[labelled])) if labelled.any() else 0.25
    out = np.full(u.size, overall)
    for g in np.unique(groups):
        sel = groups == g
        edges = np.unique(np.quantile(u[sel], np.linspace(0, 1, bins + 1)))
        b = np.clip(np.searchsorted(edges, u, side="right") - 1, 0, max(edges.size - 2, 0))
        for k in np.unique(b[sel]):
            cell = sel & (b == k)
            lab = cell & labelled
            n = lab.sum()
            mean = (r2[lab].sum() + prior * overall) / (n + prior)
            out[cell] = mean
    return np.sqrt(np.maximum(out, 1e-6))


def inclusion_probabilities(scale: np.ndarray, budget: float, cost: np.ndarray) -> np.ndarray:
    r""":math:`\pi_i \propto s_i / \sqrt{c_i}` with :math:`\sum_i \pi_i c_i` = ``budget``,
    each at most 1 (the excess of the capped ones spread over the rest).
    """
    s = np.asarray(scale, float) / np.sqrt(cost)
    pi = np.zeros(s.size)
    free = np.ones(s.size, dtype=bool)
    left = float(budget)
    for _ in range(s.size + 1):
        denom = np.sum(s[free] * cost[free])
        if denom <= 0 or left <= 0:
            break
        trial = s * left / denom
        over = free & (trial >= 1.0)
        if not over.any():
            pi[free] = trial[free]
            break
        pi[over] = 1.0
        left -= float(np.sum(cost[over]))
        free &= ~over
    return np.clip(pi, 0.0, 1.0)


def predicted_variance(pi: np.ndarray, scale: np.ndarray) -> float:
    r""":math:`\frac{1}{N^2} \sum_i \frac{1 - \pi_i}{\pi_i} s_i^2` (items with
    :math:`\pi_i = 0` make it infinite).
    """
    with np.errstate(divide="ignore"):
        terms = np.where(pi > 0, (1 - pi) / pi * scale**2, np.inf)
    return float(np.sum(terms) / pi.size**2)


def mixed_design(
    scale: np.ndarray, budget: float, cost: np.ndarray, mix: float | None = None
) -> tuple[np.ndarray, float, float]:
    r"""The round's probabilities: active (:func:`inclusion_probabilities`) mixed with
    uniform ones of the same budget at ``mix``, or at the grid value whose
    :func:`predicted_variance` is smallest (``mix=None``).  Returns (pi, mix, predicted
    variance).
    """
    active = inclusion_probabilities(scale, budget, cost)
    uniform = inclusion_probabilities(np.ones_like(scale), budget, cost)
    grid = np.linspace(0.0, 1.0, 11) if mix is None else np.array([mix])
    best = None
    for tau in grid:
        pi = (1 - tau) * active + tau * uniform
        v = predicted_variance(pi, scale)
        if best is None or v < best[2] - 1e-15:
            best = (pi, float(tau), v)
    return best


def greg_estimate(
    f: np.ndarray,
    y: np.ndarray,
    selected: np.ndarray,
    pi: np.ndarray,
    coef: tuple[float, float],
) -> tuple[float, float]:
    """One round's difference estimate of the mean of ``y`` over all items and its
    variance estimate (module docstring); ``y`` needs values where ``selected``.
    """
    g = coef[0] + coef[1] * np.asarray(f, float)
    s = np.asarray(selected, bool)
    e, p = np.asarray(y, float)[s] - g[s], np.asarray(pi, float)[s]
    n = g.size
    return float((g.sum() + np.sum(e / p)) / n), float(np.sum((1 - p) * e**2 / p**2) / n**2)


def normal_interval(est: float, var: float, alpha: float) -> tuple[float, float]:
    """``est`` +- z sd."""
    z = stats.norm.ppf(1 - alpha / 2)
    sd = np.sqrt(max(var, 0.0))
    return est - z * sd, est + z * sd


def design_round(
    f: np.ndarray,
    y: np.ndarray,
    uncertainty: np.ndarray | None,
    budget: float,
    *,
    cost: np.ndarray | None = None,
    mix: float | None = None,
    alpha: float = 0.05,
    groups: np.ndarray | None = None,
    rng: np.random.Generator,
) -> dict:
    """One round's probabilities and draws (module docstring of
    :mod:`~judgebayes.inference.active_labels`) for arrays: verdicts or scores ``f``,
    labels ``y`` (NaN = not yet labelled), per-item ``uncertainty``, a ``budget`` of labels
    (or of cost units with ``cost``); ``groups`` (default: the verdict when ``f`` is 0/1)
    are cells whose error scales are learnt apart.  Already-labelled items have
    probability 1 and cost nothing.

    Returns
    -------
    dict
        ``prob``, ``selected`` (this round's draw; labelled items always), ``new`` (the
        unlabelled items drawn), ``coef`` (the working line, fixed before the round),
        ``mix``, ``expected_labels``, ``width_now`` (the estimate's width from the labels so
        far, as if they had been drawn at random), ``width_next`` (predicted after this
        round).
    """
    labelled = ~np.isnan(y)
    n = f.size
    c = np.ones(n) if cost is None else np.asarray(cost, float)
    coef = line(f[labelled], y[labelled]) if labelled.sum() >= 2 else (0.0, 1.0)
    g = coef[0] + coef[1] * f
    r2 = np.where(labelled, (np.nan_to_num(y) - g) ** 2, np.nan)
    if groups is None and bool(np.all(np.isin(f, (0.0, 1.0)))):
        groups = f  # a verdict: its two values err differently
    u = np.zeros(n) if uncertainty is None else np.asarray(uncertainty, float)
    scale = error_scale(u, r2, labelled, groups=groups)
    free = ~labelled
    if labelled.sum() < MIN_LABELS and mix is None:
        mix = 1.0  # too few labels to learn where the judge errs: uniform this round
    pi_free, tau, _ = mixed_design(scale[free], budget, c[free], mix)
    prob = np.ones(n)
    prob[free] = pi_free
    draw = rng.random(n) < prob
    selected = labelled | draw
    # predicted variance of this round's estimate: only the unlabelled items are sampled
    v_next = predicted_variance(pi_free, scale[free]) * (free.sum() / n) ** 2
    m = labelled.sum()
    f_now = m / n
    v_now = (1 - f_now) / max(m, 1) * float(np.mean(r2[labelled])) if m else np.inf
    z = 2 * stats.norm.ppf(1 - alpha / 2)
    return {
        "prob": prob,
        "selected": selected,
        "new": draw & free,
        "coef": coef,
        "mix": tau,
        "expected_labels": float(pi_free.sum()),
        "width_now": float(z * np.sqrt(v_now)),
        "width_next": float(z * np.sqrt(v_next)),
    }


def plan_round(
    f: np.ndarray,
    y: np.ndarray,
    k,
    index,
    *,
    uncertainty: np.ndarray | None = None,
    cost: np.ndarray | None = None,
    mix=None,
    width: float | None = None,
    alpha: float = 0.05,
    groups: np.ndarray | None = None,
    random_seed: int | None = 0,
    names: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Check a round's inputs (each error names its field; ``names`` maps ``uncertainty``
    and ``cost`` to the caller's names for them, such as its columns), draw it
    (:func:`design_round`) and return the plan indexed by ``index``: ``prob``,
    ``label_now``, ``weight``; ``attrs`` ``mix``, ``expected_labels``, ``width_now``,
    ``width_next``, ``coef``, ``stop`` and ``reached_next`` (against ``width``).
    """
    names = {"uncertainty": "uncertainty", "cost": "cost", **(names or {})}
    for key, x in (("uncertainty", uncertainty), ("cost", cost)):
        if x is not None and np.isnan(x).any():
            raise InputError(
                f"{names[key]!r}: {int(np.isnan(x).sum())} judged item(s) have no value",
                field=names[key],
                value=None,
            )
    if cost is not None and not np.all(cost > 0):
        raise InputError(
            f"{names['cost']!r}: every cost must be > 0",
            field=names["cost"],
            value=float(np.min(cost)),
        )
    if isinstance(k, bool) or not isinstance(k, int | float) or not k > 0:
        raise InputError(f"k must be a positive number; got {k!r}", field="k", value=k)
    unl = np.isnan(y)
    room = float(unl.sum() if cost is None else cost[unl].sum())
    if k > room:
        raise InputError(
            f"k={k} exceeds what the unlabelled items can take ({room:g})", field="k", value=k
        )
    if mix is not None and (
        isinstance(mix, bool) or not isinstance(mix, int | float) or not 0 <= mix <= 1
    ):
        raise InputError(f"mix must lie in [0, 1]; got {mix!r}", field="mix", value=mix)
    rng = np.random.default_rng(check_seed(random_seed))
    r = design_round(
        f, y, uncertainty, float(k), cost=cost, mix=mix, alpha=alpha, groups=groups, rng=rng
    )
    out = pd.DataFrame(
        {"prob": r["prob"], "label_now": r["new"], "weight": 1.0 / r["prob"]}, index=index
    )
    out.attrs.update(
        mix=r["mix"],
        expected_labels=r["expected_labels"],
        width_now=r["width_now"],
        width_next=r["width_next"],
        coef=r["coef"],
        stop=bool(width is not None and r["width_now"] <= width),
        reached_next=bool(width is not None and r["width_next"] <= width),
    )
    return out
