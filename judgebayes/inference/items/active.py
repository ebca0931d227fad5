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

with :math:`g` the working model fixed before the round (a least-squares fit of :math:`Y`
on :math:`f` from earlier labels; with an uncertainty :math:`u` known for every item, on
:math:`f`, :math:`u` and :math:`f u`, a line in :math:`u` per verdict, since the
uncertainty that says where the judge errs also says which way) and
:math:`e_i = Y_i - g(f_i)`: unbiased for the rate of
the :math:`N` items whatever :math:`g` is, its variance
:math:`\frac{1}{N^2}\sum_i \frac{1 - \pi_i}{\pi_i} e_i^2` smallest for
:math:`\pi_i \propto |e_i| / \sqrt{c_i}` at a budget :math:`\sum_i \pi_i c_i` (:math:`c_i`
the cost of labelling item :math:`i`; Neyman for Poisson sampling, capped at 1).  The
:math:`|e_i|` are unknown before labelling: their root mean square is predicted from the
labels so far within quantile bins of the item's uncertainty (the judge's probability or
score, the spread of several judges or runs), shrunk to the overall value, and the
probabilities are mixed with uniform ones, :math:`\pi = (1 - \tau) \pi^{active} + \tau
\pi^{uniform}`, at the :math:`\tau \in \{0, 0.1, ..., 1\}` whose predicted variance is
smallest, so the design is never predicted worse than uniform.

A round's design needs :math:`g` fixed before the round; its estimate can do better.  The
items are split into folds :math:`1..K` at random once (:func:`fold_of`), and the items of
fold :math:`k` are predicted by the working model fitted on the labels before the round
and on the round's own labels in folds :math:`1..k-1` (sequential cross-fitting,
:func:`crossfit_predictions`).  Given the past and the draws in earlier folds, that model
is fixed and fold :math:`k`'s draws are still independent with probabilities
:math:`\pi_i`, so the folds' parts of the sum are martingale differences: the round's
estimate stays exactly unbiased given the rounds before it, and so does the variance
formula above, while the model learns from the round's own labels too (a round with fewer
than :data:`MIN_LABELS` labels before it reads those alone).  Fitting each fold's model on
every other fold's labels instead keeps the estimate unbiased but not the variance: the
folds' models lean on each other's draws, a covariance the formula misses.  Each round's
estimate is unbiased given the rounds before it, so the rounds' errors are uncorrelated and a
combination with fixed weights has the weighted sum of their variances.  The default
weights are the inverses of each round's variance as the design formula gives it with
error scales learnt from the labels before the round (the first round's from the labels
after it), so no round's weight follows its own residuals.  Weights that do are too
narrow: each round's own variance estimate lets a small round whose few residuals happen
to be near zero take the weight, and scales learnt from all labels under-estimate the se
(BENCHMARKS.md, evaluation as it runs).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.errors import InputError
from judgebayes.inference.registry import check_seed

#: labels needed before a round leans on the uncertainty: with fewer, the error scales per
#: bin are noise and a round drawn on them was wider than uniform (after a first round of 8
#: labels, 0.220 against 0.187 at 41 labels over 50 draws on LLMBar,
#: benchmarks/active_labelling.py), so it is uniform
MIN_LABELS = 30


#: the uncertainty enters only where the labels show it matters, by a test at this level:
#: the working model takes its terms when their partial F test rejects, a group's bins get
#: their own error scales when Levene's test (a one-way F test on the absolute residuals)
#: rejects equal scales.  Otherwise the line on the judge and one scale (a uniform
#: design).  On HANNA, where the spread of a judge's ratings says nothing, choosing by
#: leave-one-out error or by a positive moment estimate of the bins' spread (each right
#: about half the time by chance there) cost 1-2% more labels than uniform
#: (benchmarks/active_labelling.py)
EVIDENCE_LEVEL = 0.05


def regressors(f: np.ndarray, uncertainty: np.ndarray | None = None) -> np.ndarray:
    """The working model's columns: 1 and ``f``; with an ``uncertainty`` that varies, also
    its standardised value :math:`z` and :math:`f z` (over all items, so fixed before any
    round).
    """
    f = np.asarray(f, float)
    cols = [np.ones_like(f), f]
    if uncertainty is not None:
        u = np.asarray(uncertainty, float)
        sd = float(u.std())
        if sd > 1e-12:
            z = (u - u.mean()) / sd
            cols += [z, f * z]
    return np.column_stack(cols)


def working_model(X: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """Least-squares coefficients of ``y`` on the columns of ``X`` (:func:`regressors`)
    over the ``labelled`` rows: the line on the judge alone from 2 labels; from
    :data:`MIN_LABELS`, all columns when the partial F test of the extra ones rejects at
    :data:`EVIDENCE_LEVEL`, so an uncertainty that says nothing about the label costs
    nothing; the judge itself (:math:`g(f) = f`) below 2.
    """
    lab = np.asarray(labelled, bool)
    n = int(lab.sum())
    coef = np.zeros(X.shape[1])
    if n < 2:
        coef[1] = 1.0
        return coef
    yl = np.asarray(y, float)[lab]
    line, _, rank_line, _ = np.linalg.lstsq(X[lab, :2], yl, rcond=None)
    coef[:2] = line
    if n < MIN_LABELS or X.shape[1] == 2:
        return coef
    full, _, rank_full, _ = np.linalg.lstsq(X[lab], yl, rcond=None)
    rss = [float(np.sum((yl - A @ c) ** 2)) for A, c in ((X[lab, :2], line), (X[lab], full))]
    return full if _f_rejects(rss[0], rss[1], rank_full - rank_line, n - rank_full) else coef


def fold_of(n: int, folds: int) -> np.ndarray:
    """Each of ``n`` items' cross-fitting fold: its place in a fixed random permutation of
    the positions (seeded by ``n``), modulo ``folds``; so it depends on nothing drawn or
    labelled, and the same frame gives the same folds.
    """
    return np.random.default_rng(n).permutation(n) % folds


def crossfit_predictions(
    X: np.ndarray, y: np.ndarray, before: np.ndarray, now: np.ndarray, fold: np.ndarray
) -> np.ndarray:
    """A round's working-model predictions, cross-fitted in sequence: the items of fold
    :math:`k` are predicted by :func:`working_model` on the labels ``before`` the round and
    the round's own labels (``now``) in the folds numbered below :math:`k`, in a round
    with at least :data:`MIN_LABELS` labels before it; otherwise, as with one fold, on the
    labels before the round alone.  A round's first few labels mislead: a line on a
    handful of them puts some scores far off and widens the interval many times over
    (BENCHMARKS.md, evaluation as it runs).
    """
    if before.sum() < MIN_LABELS:  # a line on a round's first few labels misleads
        return X @ working_model(X, y, before)  # one model for every fold
    g = np.empty(X.shape[0])
    for k in np.unique(fold):
        mine = fold == k
        g[mine] = X[mine] @ working_model(X, y, before | (now & (fold < k)))
    return g


def _f_rejects(rss_small: float, rss_big: float, df1: float, df2: float) -> bool:
    """Whether the F test of a smaller model (residual sum of squares ``rss_small``)
    against a bigger one (``rss_big``, ``df1`` more parameters, ``df2`` residual degrees
    of freedom) rejects at :data:`EVIDENCE_LEVEL`; a perfect bigger fit rejects when the
    smaller one is not perfect too, and no degrees of freedom never reject.
    """
    if df1 <= 0 or df2 <= 0:
        return False
    if rss_big <= 0:
        return rss_small > 0
    return bool(
        stats.f.sf((rss_small - rss_big) / df1 / (rss_big / df2), df1, df2) <= EVIDENCE_LEVEL
    )


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
    labelled items' mean :math:`e^2` within quantile bins of the uncertainty ``u``, inside
    ``groups`` (e.g. the judge's verdict), each shrunk toward the overall mean with
    ``prior`` pseudo-items.  Where the bins' scales do not differ (Levene's test, a one-way
    F test on the absolute residuals, does not reject at :data:`EVIDENCE_LEVEL`), the
    group gets one scale, so an uncertainty that says nothing gives a uniform design instead of one
    drawn on noise.  (Shrinking each bin by its James-Stein factor instead let bins
    with a few near-zero residuals keep a tiny scale, and the rare large residual drawn
    there at a small probability made the rounds wider than uniform ones with the same
    model.)
    """
    u = np.asarray(uncertainty, float)
    groups = np.zeros(u.size, np.int64) if groups is None else np.asarray(groups)
    r2 = np.asarray(residual2, float)
    overall = float(np.mean(r2[labelled])) if labelled.any() else 0.25
    out = np.full(u.size, overall)
    for g in np.unique(groups):
        sel = groups == g
        lab = sel & labelled
        edges = np.unique(np.quantile(u[sel], np.linspace(0, 1, bins + 1)))
        b = np.clip(np.searchsorted(edges, u, side="right") - 1, 0, max(edges.size - 2, 0))
        cells = [lab & (b == k) for k in np.unique(b[sel])]
        n_k = np.array([c.sum() for c in cells], float)
        m_k = np.array([r2[c].sum() for c in cells]) / (n_k + prior) + overall * prior / (
            n_k + prior
        )
        seen = [np.sqrt(r2[c]) for c in cells if c.any()]  # |e|: Levene's test about 0
        if len(seen) < 2 or n_k.sum() <= len(seen) or _same_scale(seen):
            m_k[:] = (r2[lab].sum() + prior * overall) / (lab.sum() + prior)
        for k, m in zip(np.unique(b[sel]), m_k, strict=True):
            out[sel & (b == k)] = m
    return np.sqrt(np.maximum(out, 1e-6))


def _same_scale(samples: list[np.ndarray]) -> bool:
    """One-way F test of equal means across ``samples`` (absolute residuals: Levene's
    test of equal scales): True unless it rejects at :data:`EVIDENCE_LEVEL`.
    """
    pooled = np.concatenate(samples)
    within = sum(float(np.sum((x - x.mean()) ** 2)) for x in samples)
    total = float(np.sum((pooled - pooled.mean()) ** 2))
    return not _f_rejects(total, within, len(samples) - 1, pooled.size - len(samples))


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
    """One round's probabilities and draws (module docstring) for arrays: verdicts or
    scores ``f``, labels ``y`` (NaN = not yet labelled), per-item ``uncertainty``, a
    ``budget`` of labels (or of cost units with ``cost``); ``groups`` (default: the verdict
    when ``f`` is 0/1) are cells whose error scales are learnt apart.  Already-labelled
    items have probability 1 and cost nothing.

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
