r"""Claims about a leaderboard's order that hold for every system at once.

From estimates :math:`\hat\mu` (S,), the standard errors :math:`\sigma_{jk}` of their
differences and *null draws* :math:`Z` (draws, S) of the estimates' sampling error (a
parametric bootstrap :math:`Z \sim N(0, \hat\Sigma)` or a multivariate :math:`t` with the
variance's degrees of freedom, :func:`null_draws`; or an item bootstrap's resampled means
less their mean):

**Which system is surely above which** (:func:`stepdown_above`): the step-down procedure
of Mogstad, Romano, Shaikh and Wilhelm (2024), as Romano and Wolf's step-down over every
ordered pair.  Each ordered pair :math:`(j, k)` is a hypothesis
:math:`H_{jk}: \mu_j \le \mu_k`, rejected when
:math:`(\hat\mu_j - \hat\mu_k)/\sigma_{jk} > c`, with :math:`c` the :math:`1 - \alpha`
quantile of :math:`\max_{(j,k) \in \mathcal{I}} (Z_j - Z_k)/\sigma_{jk}` over the pairs
:math:`\mathcal{I}` not yet rejected; the rejected pairs leave :math:`\mathcal{I}` and
:math:`c` is recomputed until no new pair is rejected.  Every claim "j above k" then holds
at once with probability at least :math:`1 - \alpha` (asymptotically).  The first step is
the single-step max-T (two-sided over all pairs); each later step uses a smaller
:math:`c`.  :func:`holm_above` is Holm's step-down over all pairs with Student's
:math:`t`, the bound beside it.

**Ranks** (:func:`rank_bounds`): with "surely above" holding for every pair at once,
system :math:`s`'s rank (1 the best) lies in
:math:`[1 + \#\{t \text{ surely above } s\},\ S - \#\{t \text{ surely below } s\}]` for
every system at once.

**Tiers** (:func:`tiers`): in the order of the estimates, a boundary is placed between
two neighbours only where every system above it is surely above every system below it.
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
#: the largest per-draw values kept from the first step, so later steps rarely revisit pairs
_KEEP = 16


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


def _pairs(S: int) -> tuple[np.ndarray, np.ndarray]:
    """Ordered pairs (j, k), j != k, as two index arrays."""
    j, k = np.nonzero(~np.eye(S, dtype=bool))
    return j, k


def _top_values(null, j, k, se, keep: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Per draw, the ``keep`` largest :math:`(Z_j - Z_k)/\sigma_{jk}` over the pairs and
    the pairs' positions, largest first.
    """
    reps, m = null.shape[0], j.size
    keep = min(keep, m)
    vals = np.empty((reps, keep))
    where = np.empty((reps, keep), np.int64)
    step = max(1, _BLOCK // max(m, 1))
    for lo in range(0, reps, step):
        z = null[lo : lo + step]
        d = (z[:, j] - z[:, k]) / se
        part = np.argpartition(-d, keep - 1, axis=1)[:, :keep]
        top = np.take_along_axis(d, part, axis=1)
        order = np.argsort(-top, axis=1)
        vals[lo : lo + step] = np.take_along_axis(top, order, axis=1)
        where[lo : lo + step] = np.take_along_axis(part, order, axis=1)
    return vals, where


def _max_over(null, j, k, se) -> np.ndarray:
    r"""Per draw, the largest :math:`(Z_j - Z_k)/\sigma_{jk}` over the given pairs."""
    out = np.full(null.shape[0], -np.inf)
    if j.size == 0:
        return out
    step = max(1, _BLOCK // j.size)
    for lo in range(0, null.shape[0], step):
        z = null[lo : lo + step]
        out[lo : lo + step] = ((z[:, j] - z[:, k]) / se).max(axis=1)
    return out


def stepdown_above(
    estimate: np.ndarray, diff_se: np.ndarray, null: np.ndarray, alpha: float
) -> np.ndarray:
    """(S, S) booleans, ``[j, k]``: j is surely above k, for every pair at once at level
    ``1 - alpha`` (the step-down of the module docstring).  ``diff_se`` is (S, S), positive
    off the diagonal; ``null`` (draws, S).
    """
    est = np.asarray(estimate, float)
    S = est.size
    j, k = _pairs(S)
    se = diff_se[j, k]
    t = (est[j] - est[k]) / se
    active = np.ones(j.size, bool)
    vals, where = _top_values(null, j, k, se, _KEEP)
    while True:
        # each draw's largest value over the active pairs: from its kept values, or over
        # every active pair when all of its kept pairs were rejected
        ok = active[where]
        first = np.argmax(ok, axis=1)
        m = vals[np.arange(vals.shape[0]), first]
        lost = ~ok.any(axis=1)
        if lost.any():
            m[lost] = _max_over(null[lost], j[active], k[active], se[active])
        c = float(np.quantile(m, 1 - alpha))
        new = active & (t > c)
        if not new.any():
            break
        active &= ~new
        if not active.any():
            break
    above = np.zeros((S, S), bool)
    above[j[~active], k[~active]] = True
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


def tiers(above: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """Each system's tier (1 the top): boundaries in the order of ``estimate`` only where
    every system above is surely above every system below (module docstring).
    """
    est = np.asarray(estimate, float)
    order = np.argsort(-est, kind="stable")
    a = above[np.ix_(order, order)]
    S = est.size
    # cut after position m when a[:m+1, m+1:] is all True; count the False entries of each
    # top-right block through a 2-d cumulative sum
    bad = (~a).astype(np.int64)
    csum = bad.cumsum(axis=0)[:, ::-1].cumsum(axis=1)[:, ::-1]  # rows <= r, columns >= c
    cuts = np.array([csum[m, m + 1] == 0 for m in range(S - 1)], bool)
    level = np.concatenate([[1], 1 + np.cumsum(cuts)])
    out = np.empty(S, np.int64)
    out[order] = level
    return out


def among_best_pvalues(estimate: np.ndarray, diff_se: np.ndarray, null: np.ndarray) -> np.ndarray:
    """(S,) p-values of "system s is among the best" (module docstring); the best
    estimate's is 1.
    """
    est = np.asarray(estimate, float)
    S = est.size
    p = np.ones(S)
    for s in range(S):
        others = np.arange(S) != s
        se = diff_se[others, s]
        t_obs = np.max((est[others] - est[s]) / se)
        if t_obs <= 0:
            continue
        m = ((null[:, others] - null[:, [s]]) / se).max(axis=1)
        p[s] = (1 + np.count_nonzero(m >= t_obs)) / (1 + m.size)
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
