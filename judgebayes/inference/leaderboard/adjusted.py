r"""A judge's pull towards a covariate of the row, taken out of a leaderboard's scores.

When a judge's score follows a covariate of the row besides quality (the answer's length
against the reference's), :func:`covariate_adjusted` replaces the scores by pseudo-scores
whose item means are each system's mean at covariate 0 under one slope for every system,
and whose per-item spread carries the slope's estimation: the paired closed form
(:mod:`~judgebayes.inference.leaderboard.paired`) then applies unchanged.  Where the
systems are pulled by different slopes, one slope biases the adjusted means: the
p-value of one slope for every system says so.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["covariate_adjusted"]


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
    the means are unchanged), and the paired, cluster-robust variance of
    :mod:`~judgebayes.inference.leaderboard.paired` then carries the slopes' estimation.

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
