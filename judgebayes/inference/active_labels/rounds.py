"""A round of active labelling: inclusion probabilities for a budget, the GREG estimate
and its variance, rounds combined, and the outlook of a claim.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
from scipy import stats

import judgebayes.inference.active_labels.working as working
from judgebayes.errors import InputError
from judgebayes.inference.active_labels.working import (
    error_scale,
    regressors,
    working_model,
)
from judgebayes.inference.registry import check_seed


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
    best = (active, 0.0, np.inf)
    for tau in grid:
        pi = (1 - tau) * active + tau * uniform
        v = predicted_variance(pi, scale)
        if v < best[2] - 1e-15:
            best = (pi, float(tau), v)
    return best


def greg_estimate(
    g: np.ndarray,
    y: np.ndarray,
    selected: np.ndarray,
    pi: np.ndarray,
) -> tuple[float, float]:
    """One round's difference estimate of the mean of ``y`` over all items and its
    variance estimate (module docstring) from the working model's predictions ``g``
    (fixed before the round); ``y`` needs values where ``selected``.
    """
    g = np.asarray(g, float)
    s = np.asarray(selected, bool)
    e, p = np.asarray(y, float)[s] - g[s], np.asarray(pi, float)[s]
    n = g.size
    return float((g.sum() + np.sum(e / p)) / n), float(np.sum((1 - p) * e**2 / p**2) / n**2)


def normal_interval(est: float, var: float, alpha: float) -> tuple[float, float]:
    """``est`` +- z sd."""
    z = stats.norm.ppf(1 - alpha / 2)
    sd = np.sqrt(max(var, 0.0))
    return est - z * sd, est + z * sd


def round_model(
    f: np.ndarray,
    y: np.ndarray,
    labelled: np.ndarray,
    uncertainty: np.ndarray | None = None,
    groups: np.ndarray | None = None,
    scale_from: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What a round is planned on, from the ``labelled`` items before it: the working
    model's coefficients (:func:`working_model`), its predictions for every item and every
    item's predicted error scale (:func:`error_scale`, within ``groups``: by default the
    verdict when ``f`` is 0/1, since its two values err differently), learnt from the
    residuals of the ``scale_from`` items (default: ``labelled``).
    """
    X = regressors(f, uncertainty)
    coef = working_model(X, y, labelled)
    g = X @ coef
    learn = labelled if scale_from is None else np.asarray(scale_from, bool)
    r2 = np.where(learn, (np.nan_to_num(y) - g) ** 2, np.nan)
    if groups is None and bool(np.all(np.isin(f, (0.0, 1.0)))):
        groups = f
    u = np.zeros(f.size) if uncertainty is None else np.asarray(uncertainty, float)
    return coef, g, error_scale(u, r2, learn, groups=groups)


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
        unlabelled items drawn), ``coef`` (the working model's coefficients on
        :func:`regressors`, fixed before the round),
        ``mix``, ``expected_labels``, ``width_now`` (the estimate's width from the labels so
        far, as if they had been drawn at random), ``width_next`` (predicted for this
        round's own estimate, in which the labels so far are known values), ``width_after``
        (predicted for the estimate from every round once this one is labelled: the
        inverse-variance combination of the two, as :func:`active_estimate` weighs rounds),
        ``estimate_now`` (the difference estimate from the labels so far).
    """
    labelled = ~np.isnan(y)
    n = f.size
    c = np.ones(n) if cost is None else np.asarray(cost, float)
    coef, g, scale = round_model(f, y, labelled, uncertainty, groups)
    r2 = np.where(labelled, (np.nan_to_num(y) - g) ** 2, np.nan)
    free = ~labelled
    if labelled.sum() < working.MIN_LABELS and mix is None:
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
    v_after = combined_variance(v_now, v_next)
    z = 2 * stats.norm.ppf(1 - alpha / 2)
    # the difference estimate from the labels so far (as if drawn at random)
    est_now = float(np.mean(g) + np.mean(y[labelled] - g[labelled])) if m else np.nan
    return {
        "estimate_now": est_now,
        "prob": prob,
        "selected": selected,
        "new": draw & free,
        "coef": coef,
        "mix": tau,
        "expected_labels": float(pi_free.sum()),
        "width_now": float(z * np.sqrt(v_now)),
        "width_next": float(z * np.sqrt(v_next)),
        "width_after": float(z * np.sqrt(v_after)),
    }


def combined_variance(v_before: float, v_round: float) -> float:
    """The variance of two independent estimates combined by their inverse variances (the
    rounds so far and the next one, as :func:`active_estimate` weighs rounds); an infinite
    ``v_before`` (no labels yet) leaves the round's own.
    """
    if not np.isfinite(v_before):
        return float(v_round)
    both = v_before + v_round
    return float(v_before * v_round / both) if both > 0 else 0.0


def claim_outlook(
    estimate: float, se_now: float, se_after: float, op: str, value: float, alpha: float
) -> tuple[str, float]:
    r"""Is the claim ``mean op value`` decided now (``"pass"`` / ``"fail"`` /
    ``"continue"``), and how likely is the next round to decide it?

    Now: the interval :math:`\hat\theta \pm q s_0` (:math:`q = \Phi^{-1}(1 - \alpha/2)`).
    After the round: :math:`\hat\theta' \pm q s_1`, the round's estimate combined with
    the one now by inverse variances (:func:`combined_variance`).  Under a flat prior
    :math:`\theta \sim N(\hat\theta, s_0^2)` and the round's estimate is
    :math:`N(\theta, s_r^2)`, so :math:`\hat\theta' \sim N(\hat\theta, s_0^2 - s_1^2)`
    (the preposterior), and the chance that the round decides is

    .. math::
        \Pr(\hat\theta' - q s_1 > c) + \Pr(\hat\theta' + q s_1 < c).

    It is a probability given the labels so far, not a long-run rate for one fixed truth.
    """
    q = stats.norm.ppf(1 - alpha / 2)
    if not (np.isfinite(estimate) and np.isfinite(se_now)):
        return "continue", float("nan")
    s0, s1 = float(se_now), float(se_after)
    above, below = estimate - q * s0 > value, estimate + q * s0 < value
    now = "continue"
    if above or below:
        now = "pass" if (above if op == ">" else below) else "fail"
    move = np.sqrt(max(s0**2 - s1**2, 0.0))
    if move == 0:
        return now, float(abs(estimate - value) > q * s1)
    decide = stats.norm.sf((value + q * s1 - estimate) / move) + stats.norm.cdf(
        (value - q * s1 - estimate) / move
    )
    return now, float(decide)


def require_complete(x: np.ndarray | None, name: str) -> None:
    """An :class:`InputError` naming ``name`` when the per-item column ``x`` has blanks."""
    if x is not None and np.isnan(x).any():
        raise InputError(
            f"{name!r}: {int(np.isnan(x).sum())} judged item(s) have no value",
            field=name,
            value=None,
        )


def round_rng(seed: int | None, labelled: np.ndarray) -> np.random.Generator:
    """The random stream of a round's draw: the seed together with which items are
    labelled already.

    A round's Bernoulli draw compares one uniform per item with its probability.  With one
    stream for every round (the same seed each time) an item not drawn in round 1 has a
    uniform above its round-1 probability, and in round 2 it is drawn only if that same
    uniform falls below its round-2 probability: the round's real probabilities are not
    the stated ones (far fewer items drawn than planned, and a badly biased estimate).
    Keyed also by the labelled set, each round's uniforms
    are new and a round stays reproducible from its seed and its input.
    """
    if seed is None:
        return np.random.default_rng()
    digest = hashlib.sha256(np.packbits(np.asarray(labelled, bool)).tobytes()).digest()
    words = np.frombuffer(digest[:16], dtype=np.uint32)
    return np.random.default_rng([seed, labelled.size, *words.tolist()])


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
    ``width_next``, ``width_after``, ``coef``, ``stop`` and ``reached_next`` (``width_after``
    against ``width``).
    """
    names = {"uncertainty": "uncertainty", "cost": "cost", **(names or {})}
    for key, x in (("uncertainty", uncertainty), ("cost", cost)):
        require_complete(x, names[key])
    if cost is not None and not np.all(cost > 0):
        raise InputError(
            f"{names['cost']!r}: every cost must be > 0",
            field=names["cost"],
            value=float(np.min(cost)),
        )
    for key, size in (("k", k), ("width", 1.0 if width is None else width)):
        if isinstance(size, bool) or not isinstance(size, int | float) or not 0 < size < np.inf:
            raise InputError(
                f"{key} must be a positive number; got {size!r}", field=key, value=size
            )
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
    rng = round_rng(check_seed(random_seed), ~np.isnan(y))
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
        width_after=r["width_after"],
        coef=r["coef"],
        stop=bool(width is not None and r["width_now"] <= width),
        reached_next=bool(width is not None and r["width_after"] <= width),
        estimate_now=r["estimate_now"],
    )
    return out
