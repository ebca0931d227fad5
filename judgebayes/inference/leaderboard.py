r"""A leaderboard's closed form: many systems scored on the same items, paired by item.

``x`` is the (S, I) matrix of per-item scores (exact match 0/1, a judge's win probability,
a pass fraction) of S systems on I items, ``g`` each item's cluster (its own item when
there are none).  System :math:`s`'s mean :math:`\hat\mu_s = \bar x_{s\cdot}` estimates its
mean over the population the items were drawn from, with the cluster-robust variance

.. math::

    \widehat{\mathrm{Var}}(\hat\mu_s) = \frac{G}{G - 1} \frac{1}{I^2}
        \sum_g \Big(\sum_{i \in g} (x_{si} - \hat\mu_s)\Big)^2,

and a difference :math:`\hat\mu_s - \hat\mu_t` the same variance of the per-item
differences (the items are shared, so the difference is paired and its item effects
cancel).  Student-t intervals with :math:`G - 1` degrees of freedom.

**All pairs at once.**  The simultaneous critical value :math:`c` of every pairwise
difference is the :math:`1 - \alpha` quantile of the largest studentised deviation
:math:`\max_{s<t} |(\hat\mu^*_s - \hat\mu^*_t) - (\hat\mu_s - \hat\mu_t)| / \mathrm{se}_{st}`
over bootstrap resamples of the clusters (max-T; Bonferroni's t quantile without a
bootstrap).  With :math:`[d_{st} \pm c\,\mathrm{se}_{st}]` holding for every pair at once,
system :math:`s`'s rank lies in

.. math::

    \big[\,1 + \#\{t: d_{ts} - c\,\mathrm{se}_{ts} > 0\},\;
    S - \#\{t: d_{st} - c\,\mathrm{se}_{st} > 0\}\,\big]

for every system at once (the rank intervals of Al Mohamad et al., 2022): simultaneous
coverage at least :math:`1 - \alpha`.  Tiers group, from the top, each remaining leader
with every system the intervals cannot place below it.

**A judge's pull.**  When the judge's score follows a covariate of the row besides quality
(the answer's length), :func:`covariate_adjusted` replaces :math:`x` by pseudo-scores whose
item means are each system's mean at covariate 0 under one slope for every system, and
whose per-item spread carries the slope's estimation: everything above then applies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.inference.ranking.topk import top_k_probabilities

__all__ = [
    "Board",
    "board",
    "covariate_adjusted",
    "rank_intervals",
    "ranked_table",
    "resampled_means",
    "surely_above",
    "tiers",
]


@dataclass(frozen=True)
class Board:
    """The closed form of one leaderboard (module docstring)."""

    mean: np.ndarray  # (S,)
    se: np.ndarray  # (S,)
    diff: np.ndarray  # (S, S): mean_s - mean_t
    diff_se: np.ndarray  # (S, S)
    df: int
    crit: float  # the simultaneous critical value of every pair
    boot_means: np.ndarray  # (B, S) bootstrap means (empty without a bootstrap)


def _cluster_sums(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """(S, G) sums of each system's centred scores within each cluster."""
    n_g = int(g.max()) + 1
    dev = x - x.mean(axis=1, keepdims=True)
    out = np.zeros((x.shape[0], n_g))
    np.add.at(out.T, g, dev.T)
    return out


def board(
    x: np.ndarray,
    g: np.ndarray | None = None,
    *,
    alpha: float = 0.05,
    bootstrap: int = 1000,
    random_seed: int | None = 0,
) -> Board:
    """Means, paired differences, their standard errors and the simultaneous critical value
    of a leaderboard's (S, I) score matrix ``x`` (module docstring).
    """
    x = np.asarray(x, float)
    S, n_items = x.shape
    g = np.arange(n_items) if g is None else np.asarray(g, np.int64)
    n_g = int(g.max()) + 1
    sums = _cluster_sums(x, g)  # (S, G)
    scale = n_g / max(n_g - 1, 1) / n_items**2
    cov = scale * sums @ sums.T  # (S, S): the means' cluster-robust covariance
    var = np.diag(cov).copy()
    diff_var = var[:, None] + var[None, :] - 2 * cov
    diff_se = np.sqrt(np.maximum(diff_var, 0.0))
    mean = x.mean(axis=1)
    diff = mean[:, None] - mean[None, :]
    df = n_g - 1
    pairs = S * (S - 1) // 2
    if bootstrap and S > 1:
        boot, crit = _max_t(x, g, n_g, diff, diff_se, alpha, bootstrap, random_seed)
    else:
        boot = np.empty((0, S))
        crit = float(stats.t.ppf(1 - alpha / (2 * max(pairs, 1)), max(df, 1)))
    return Board(mean, np.sqrt(var), diff, diff_se, df, crit, boot)


def resampled_means(x: np.ndarray, g: np.ndarray, reps: int, seed) -> np.ndarray:
    """(reps, S) each system's mean over ``reps`` resamples of the clusters ``g`` (of the
    items when each is its own) with replacement: the item bootstrap HELM reports.
    """
    g = np.asarray(g, np.int64)
    n_g = int(g.max()) + 1
    size = np.bincount(g, minlength=n_g).astype(float)
    totals = np.zeros((x.shape[0], n_g))
    np.add.at(totals.T, g, np.asarray(x, float).T)
    rng = np.random.default_rng(seed)
    out = np.empty((reps, x.shape[0]))
    for lo in range(0, reps, 200):
        w = rng.multinomial(n_g, np.full(n_g, 1.0 / n_g), size=min(200, reps - lo)).astype(float)
        out[lo : lo + len(w)] = (w @ totals.T) / (w @ size)[:, None]
    return out


def _max_t(x, g, n_g, diff, diff_se, alpha, reps, seed) -> tuple[np.ndarray, float]:
    """Bootstrap means over resampled clusters (:func:`resampled_means`), and the max-T
    critical value.
    """
    means = resampled_means(x, g, reps, seed)
    iu = np.triu_indices(x.shape[0], 1)
    se = diff_se[iu]
    ok = se > 0
    worst = np.zeros(reps)
    for lo in range(0, reps, 200):  # blocks keep the (block, pairs) array small
        m = means[lo : lo + 200]
        d = m[:, iu[0]] - m[:, iu[1]] - diff[iu]
        if ok.any():
            worst[lo : lo + len(m)] = (np.abs(d[:, ok]) / se[ok]).max(axis=1)
    return means, float(np.quantile(worst, 1 - alpha))


def surely_above(b: Board) -> np.ndarray:
    """(S, S) booleans: ``[s, t]`` where the simultaneous intervals put ``s`` above ``t``
    (the pairs the rank intervals and tiers rest on).
    """
    above = b.diff - b.crit * b.diff_se > 0
    np.fill_diagonal(above, False)
    return above


def rank_intervals(b: Board) -> tuple[np.ndarray, np.ndarray]:
    """Each system's simultaneous rank interval (1 = best; module docstring)."""
    above = surely_above(b)  # [s, t]: s surely above t
    lower = 1 + above.sum(axis=0)  # the systems surely above s
    upper = b.mean.size - above.sum(axis=1)  # minus those surely below s
    return lower, upper


def tiers(b: Board) -> np.ndarray:
    """Tier of each system (1 = top): the best unassigned system and every unassigned
    system the intervals cannot place below it, in turn.
    """
    above = surely_above(b)
    tier = np.zeros(b.mean.size, dtype=np.int64)
    level = 0
    for s in np.argsort(-b.mean, kind="stable"):
        if not tier[s]:
            level += 1
            tier[(tier == 0) & ~above[s]] = level
    return tier


def covariate_adjusted(
    x: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Pseudo-scores whose item means are each system's mean at covariates 0, with the
    slopes' own uncertainty in their per-item spread.

    The judge's pull towards a covariate of the row (the answer's length against the
    reference's, say) is one slope vector :math:`\beta` for every system, fitted by least
    squares with an effect per system and per item (the rows two-way demeaned, tildes):
    :math:`\hat\beta = A^{-1} \sum_{si} \tilde c_{si} \tilde x_{si}`,
    :math:`A = \sum_{si} \tilde c_{si} \tilde c_{si}^\top`.  Each system's adjusted mean is
    :math:`\bar x_s - \hat\beta^\top \bar c_s`; the pseudo-score

    .. math::

        \phi_{si} = x_{si} - \hat\beta^\top c_{si} - \bar c_s^\top \psi_i, \qquad
        \psi_i = I\,A^{-1} \sum_s \tilde c_{si} \tilde e_{si},

    adds item :math:`i`'s influence on :math:`\hat\beta` (:math:`\sum_i \psi_i = 0`, so
    the means are unchanged), and the paired, cluster-robust variance of :mod:`this
    module <judgebayes.inference.leaderboard>` then carries the slopes' estimation.

    ``x`` is (S, I), ``c`` (S, I, K).  Returns the pseudo-scores, :math:`\hat\beta`, its
    standard errors (clustered by item) and, per covariate, the p-value of one slope for
    every system (:func:`_one_slope_pvalues`): where systems are pulled differently, the
    adjusted means are biased.
    """
    x = np.asarray(x, float)
    c = np.asarray(c, float).reshape(*x.shape, -1)
    n_items = x.shape[1]

    def demeaned(a):
        return a - a.mean(0, keepdims=True) - a.mean(1, keepdims=True) + a.mean((0, 1))

    xt, ct = demeaned(x), demeaned(c)
    a = np.einsum("sik,sil->kl", ct, ct)
    beta = np.linalg.solve(a, np.einsum("sik,si->k", ct, xt))
    resid = xt - ct @ beta
    psi = n_items * np.linalg.solve(a, np.einsum("sik,si->ki", ct, resid)).T  # (I, K)
    cbar = c.mean(axis=1)  # (S, K)
    phi = x - c @ beta - cbar @ psi.T
    se = np.sqrt(np.einsum("ik,ik->k", psi, psi)) / n_items
    return phi, beta, se, _one_slope_pvalues(ct, resid)


def _one_slope_pvalues(ct: np.ndarray, resid: np.ndarray) -> np.ndarray:
    r"""Per covariate, the p-value of "one slope fits every system": each system's score
    :math:`u_s = \sum_i \tilde c_{si} e_{si}` (0 under one slope), its item-clustered
    covariance :math:`V = \sum_i v_i v_i^\top`, and the Wald statistic
    :math:`u^\top V^+ u` against :math:`\chi^2_{S-1}` (the scores sum to 0).
    """
    out = []
    for k in range(ct.shape[2]):
        v = ct[:, :, k] * resid  # (S, I): each item's share of each system's score
        u = v.sum(axis=1)
        wald = float(u @ np.linalg.pinv(v @ v.T) @ u)
        out.append(stats.chi2.sf(wald, ct.shape[0] - 1))
    return np.asarray(out)


def ranked_table(b: Board, names: list[str], alpha: float, top_k: int = 1) -> pd.DataFrame:
    """One row per system of the board ``b`` (in ``names``' order): ``system``,
    ``estimate``, ``se``, the t interval ``lower`` / ``upper``, ``rank`` (by estimate),
    the simultaneous ``rank_lower`` / ``rank_upper``, ``tier`` and ``p_top_k`` (the share
    of bootstrap resamples in which the system is among the best ``top_k``; NaN without
    a bootstrap).
    """
    lower_rank, upper_rank = rank_intervals(b)
    q = stats.t.ppf(1 - alpha / 2, max(b.df, 1))
    boot = b.boot_means
    return pd.DataFrame(
        {
            "system": names,
            "estimate": b.mean,
            "se": b.se,
            "lower": b.mean - q * b.se,
            "upper": b.mean + q * b.se,
            "rank": stats.rankdata(-b.mean, method="min").astype(int),
            "rank_lower": lower_rank,
            "rank_upper": upper_rank,
            "tier": tiers(b),
            "p_top_k": np.full(len(names), np.nan)
            if boot.size == 0
            else top_k_probabilities(boot, top_k),
        }
    )
