r"""Claims about a leaderboard's order that hold for every system at once.

From estimates :math:`\hat\mu` (S,), the standard errors :math:`\sigma_{jk}` of their
differences and *null draws* :math:`Z` (draws, S) of the estimates' sampling error (a
parametric bootstrap :math:`Z \sim N(0, \hat\Sigma)` or a multivariate :math:`t` with the
variance's degrees of freedom, :func:`null_draws`; or an item bootstrap's resampled means
less their mean):

**Which system is surely above which** (:func:`stepdown_above`): Romano and Wolf's
step-down over every pair.  Each pair :math:`\{j, k\}` is a hypothesis
:math:`\mu_j = \mu_k`, rejected when :math:`|\hat\mu_j - \hat\mu_k|/\sigma_{jk} > c`, with
:math:`c` the :math:`1 - \alpha` quantile of :math:`\max_{\{j,k\} \in \mathcal{I}} |Z_j -
Z_k|/\sigma_{jk}` over the pairs :math:`\mathcal{I}` not yet rejected; a rejected pair leaves
(both its directions) and the sign of its difference says which system is above; :math:`c`
is recomputed until no new pair is rejected.  The first step is the single-step max-T;
each later step's :math:`c` is at most Holm's at that step (the largest of correlated
statistics is smaller than Bonferroni allows) and at most that of Mogstad, Romano, Shaikh
and Wilhelm's step-down (csranks'), whose set keeps each rejected pair's other direction
as a hypothesis of its own.  That keeps their directional claims exactly valid at every
step; here a claim in the wrong direction needs the pair's null statistic beyond
:math:`c` *and* the true difference against it, and the joint coverage is measured, not
proven: every true rank of 0.95 or more of the simulated boards in BENCHMARKS (10 to 300
systems, ties, clusters, near-equal systems), as csranks' and Holm's.  :func:`holm_above`
is Holm's step-down over all pairs with Student's :math:`t`, the bound beside it.

**Ranks** (:func:`rank_bounds`): with "surely above" holding for every pair at once,
system :math:`s`'s rank (1 the best) lies in
:math:`[1 + \#\{t \text{ surely above } s\},\ S - \#\{t \text{ surely below } s\}]` for
every system at once.

**Tiers** (:func:`tiers`): in the order of the estimates, a boundary is placed after the
first :math:`m` systems only where their rank intervals lie within the first :math:`m`
ranks and every other system's beyond them (so every system above is surely above every
system below, and a Bayesian fit's tiers agree with its rank intervals).
The rule kept is "never split equals": two systems of equal means fall in different
tiers only if a false claim was made, which happens with probability at most
:math:`\alpha` for all pairs at once.  The price is the other rule: a pair separated on
its own (even at 99%) may share a tier when a system between them is not separated from
either.

**The best** (:func:`among_best_pvalues`): for each system, the p-value of "it is among
the best" (:math:`\mu_s \ge \max_t \mu_t`), from the statistic
:math:`T_s = \max_{t \ne s} (\hat\mu_t - \hat\mu_s)/\sigma_{ts}` against
:math:`\max_{t \ne s} (Z_t - Z_s)/\sigma_{ts}`: Hsu's multiple comparisons with the best,
which control for the leader being chosen by the data (Holm against the observed leader
does not: with ten equal systems at the top it separates a false pair on 16% of boards).

**P(top k)** (:func:`top_k_shares`): the share of draws in which each system is among the
best :math:`k`, systems tied in a draw sharing the places left (four identical systems
get a quarter each, not 1 for the first name).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgebayes.inference.multiplicity import holm

__all__ = [
    "among_best_pvalues",
    "holm_above",
    "null_draws",
    "rank_bounds",
    "stepdown_above",
    "tiers",
    "top_k_shares",
]

#: draws x ordered pairs held at once
_BLOCK = 4_000_000


def null_draws(cov: np.ndarray, df: float | None, reps: int, rng) -> np.ndarray:
    r"""(reps, S) draws of :math:`N(0, \Sigma)`, or of the multivariate :math:`t` with
    ``df`` degrees of freedom (the normal scaled by :math:`\sqrt{\nu/\chi^2_\nu}`, one
    scale a draw) when ``df`` is finite.  :math:`\Sigma` may be singular (identical
    systems): its square root comes from its eigendecomposition.
    """
    cov = np.asarray(cov, float)
    w, v = np.linalg.eigh((cov + cov.T) / 2)
    root = v * np.sqrt(np.clip(w, 0.0, None))
    z = rng.standard_normal((reps, cov.shape[0])) @ root.T
    if df is not None and np.isfinite(df):
        z /= np.sqrt(rng.chisquare(df, size=(reps, 1)) / df)
    return z[:, _same_as(cov)]


def _same_as(cov: np.ndarray) -> np.ndarray:
    """Each system's first system whose difference from it has variance 0 (itself when
    none): such systems err together, so their draws must be equal, not equal up to the
    eigendecomposition's rounding (which would break their ties at random).
    """
    d = np.diag(cov)
    var = d[:, None] + d[None, :] - 2 * cov
    zero = var <= 1e-12 * max(float(d.max()), 1e-300)
    return np.argmax(zero, axis=1)


def _max_over(null, a, b, se) -> np.ndarray:
    r"""Per draw, the largest :math:`|Z_a - Z_b|/\sigma_{ab}` over the given pairs."""
    out = np.full(null.shape[0], -np.inf)
    if a.size == 0:
        return out
    step = max(1, _BLOCK // a.size)
    for lo in range(0, null.shape[0], step):
        out[lo : lo + step] = _differences(null[lo : lo + step], a, b, se).max(axis=1)
    return out


def _differences(null, a, b, se) -> np.ndarray:
    r"""(draws, pairs) :math:`|Z_a - Z_b|/\sigma_{ab}`: by one product with the pairs'
    contrasts (BLAS) while that matrix is small, else by two gathers.
    """
    if null.shape[1] * a.size > _BLOCK:
        return np.abs(null[:, a] - null[:, b]) / se
    contrast = np.zeros((null.shape[1], a.size))
    contrast[a, np.arange(a.size)] = 1.0
    contrast[b, np.arange(a.size)] = -1.0
    return np.abs(null @ contrast) / se


class _Maxima:
    """Per draw, the largest null statistic over the pairs still active.  While the
    (draws, active pairs) array is small it is held and masked; else each step passes
    over the active pairs in blocks (on a large board the first step's pass is the cost:
    the pairs left after it are usually few enough to hold).
    """

    def __init__(self, null, a, b, se):
        self.null, self.a, self.b, self.se = null, a, b, se
        self.cols = np.arange(a.size)  # the held columns' pairs
        self.held = _differences(null, a, b, se) if null.shape[0] * a.size <= _BLOCK else None

    def __call__(self, active: np.ndarray) -> np.ndarray:
        on = np.flatnonzero(active)
        if self.held is not None and np.isin(on, self.cols).all():
            return self.held[:, np.isin(self.cols, on)].max(axis=1)
        if self.null.shape[0] * on.size <= 4 * _BLOCK:  # hold the active pairs from now on
            self.cols = on
            self.held = _differences(self.null, self.a[on], self.b[on], self.se[on])
            return self.held.max(axis=1)
        return _max_over(self.null, self.a[on], self.b[on], self.se[on])


def stepdown_above(
    estimate: np.ndarray, diff_se: np.ndarray, null: np.ndarray, alpha: float
) -> np.ndarray:
    """(S, S) booleans, ``[j, k]``: j is surely above k, for every pair at once at level
    ``1 - alpha`` (the step-down of the module docstring).  ``diff_se`` is (S, S), positive
    off the diagonal; ``null`` (draws, S).
    """
    est = np.asarray(estimate, float)
    S = est.size
    a, b = np.triu_indices(S, 1)
    se = diff_se[a, b]
    t = (est[a] - est[b]) / se
    active = np.ones(a.size, bool)
    maxima = _Maxima(null, a, b, se)
    while active.any():
        c = float(np.quantile(maxima(active), 1 - alpha))
        new = active & (np.abs(t) > c)
        if not new.any():
            break
        active &= ~new
    above = np.zeros((S, S), bool)
    done = ~active
    above[a[done & (t > 0)], b[done & (t > 0)]] = True
    above[b[done & (t < 0)], a[done & (t < 0)]] = True
    return above


def holm_above(estimate: np.ndarray, diff_se: np.ndarray, df: float, alpha: float) -> np.ndarray:
    """(S, S) "surely above" by Holm's step-down over the :math:`S(S-1)/2` pairs, two-sided
    Student's :math:`t` p-values with ``df`` degrees of freedom.
    """
    est = np.asarray(estimate, float)
    S = est.size
    a, b = np.triu_indices(S, 1)
    t = (est[a] - est[b]) / diff_se[a, b]
    rejected = holm(2 * stats.t.sf(np.abs(t), df)) < alpha
    above = np.zeros((S, S), bool)
    above[a[rejected & (t > 0)], b[rejected & (t > 0)]] = True
    above[b[rejected & (t < 0)], a[rejected & (t < 0)]] = True
    return above


def rank_bounds(above: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each system's rank interval (1 the best) from a "surely above" matrix."""
    lower = 1 + above.sum(axis=0)
    upper = above.shape[0] - above.sum(axis=1)
    return lower.astype(np.int64), upper.astype(np.int64)


def tiers(lower: np.ndarray, upper: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """Each system's tier (1 the top) from rank intervals that hold for every system at
    once: in the order of ``estimate``, a boundary after the first ``m`` systems where
    their rank intervals lie within the first ``m`` ranks and every other system's beyond
    them (module docstring: equal systems are split only when a claim is false).
    """
    order = np.argsort(-np.asarray(estimate, float), kind="stable")
    S = order.size
    top = np.maximum.accumulate(np.asarray(upper)[order])  # the top m's worst upper rank
    rest = np.minimum.accumulate(np.asarray(lower)[order][::-1])[::-1]  # the rest's best
    m = np.arange(1, S)
    cuts = (top[:-1] <= m) & (rest[1:] >= m + 1)
    level = np.concatenate([[1], 1 + np.cumsum(cuts)])
    out = np.empty(S, np.int64)
    out[order] = level
    return out


def among_best_pvalues(
    estimate: np.ndarray, diff_se: np.ndarray, null: np.ndarray, df: float | None = None
) -> np.ndarray:
    r"""(S,) p-values of "system s is among the best" (module docstring); the best
    estimate's is 1.  Each is the share of the null draws beyond the statistic, or
    Bonferroni's bound over the system's comparisons, :math:`(S - 1)` times the normal
    (Student's :math:`t` with ``df``) tail at the statistic, when that is smaller: the
    draws' share cannot go below :math:`1/(1 + \text{draws})`, which Holm over many
    systems would never let through.
    """
    est = np.asarray(estimate, float)
    S, reps = est.size, null.shape[0]
    p = np.ones(S)
    off = ~np.eye(S, dtype=bool)
    t_obs = np.where(off, (est[None, :] - est[:, None]) / np.where(off, diff_se, 1.0), -np.inf)
    t_obs = t_obs.max(axis=1)  # [s]: the largest of (est_t - est_s) / se_ts
    tail = stats.norm if df is None or not np.isfinite(df) else stats.t(df)
    bonferroni = np.minimum(1.0, (S - 1) * tail.sf(t_obs))
    least_se = np.where(off, diff_se, np.inf).min(axis=1)
    bound = (null.max(axis=1, keepdims=True) - null) / least_se  # (draws, S)
    for s in np.flatnonzero(t_obs > 0):
        if not (bound[:, s] >= t_obs[s]).any():  # beyond every draw: the draws' floor
            p[s] = min(1 / (1 + reps), bonferroni[s])
            continue
        others = off[s]
        m = ((null[:, others] - null[:, [s]]) / diff_se[others, s]).max(axis=1)
        p[s] = min((1 + np.count_nonzero(m >= t_obs[s])) / (1 + reps), bonferroni[s])
    return p


def top_k_shares(draws: np.ndarray, k: int) -> np.ndarray:
    """(S,) each system's share of the (draws, S) ``draws`` in which it is among the best
    ``k``, systems tied in a draw sharing the places left among them.
    """
    x = np.atleast_2d(np.asarray(draws, float))
    best = stats.rankdata(-x, method="min", axis=1)  # 1 + the systems strictly above
    size = stats.rankdata(-x, method="max", axis=1) - best + 1  # the systems tied with it
    places = np.clip(k - (best - 1), 0, size)
    return (places / size).mean(axis=0)
