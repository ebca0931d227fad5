r"""The Bayesian model of the scores design: a latent human level behind each judge score.

Each row's human label is one of :math:`K` levels :math:`\ell_1 < \dots < \ell_K` (the
distinct labels seen: Likert levels, the raters' possible means, 0/1), observed on the
labelled rows and latent on the others.  Per system :math:`s` the levels' probabilities
tilt one shared baseline, and each judge :math:`r` scores a row at level :math:`k` around
its own mean for that level (its "cutpoints" on the human scale):

.. math::

    P(H = k \mid s) \propto \exp(\alpha_k + \eta_s z_k),\qquad
    z_k = (\ell_k - \bar\ell) / \mathrm{sd}(\ell),\qquad
    \alpha_1 = 0,\ \alpha_k \sim N(0, 2^2),\ \eta_s \sim N(0, 2^2)

    S_{ir} \mid H_i = k \sim N(m_{rk} + \delta_{r s_i}, \sigma_r^2),\qquad
    m_{rk} = a_r + b_r z_k + \tau_r u_{rk},\ u_{rk} \sim N(0, 1)

with scores standardised per judge, :math:`a_r, b_r \sim N(0, 1)`,
:math:`\tau_r \sim \mathrm{HalfNormal}(0.5)` (a judge's level means need be neither linear
nor monotone in the human level), :math:`\sigma_r \sim \mathrm{HalfNormal}(1)`, and the
optional system shift (a judge kinder to one system's outputs at the same human level)
:math:`\delta_{rs} = \omega_r v_{rs}`, :math:`v_{rs} \sim N(0, 1)`,
:math:`\omega_r \sim \mathrm{HalfNormal}(0.3)`.  The unlabelled rows' levels are summed
out.  The process mean is :math:`\mu_s = \sum_k \ell_k P(H = k \mid s)`; the mean over the
rows (``mu_items``) draws each unlabelled row's level from its posterior given its scores
(:func:`level_posterior`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["level_posterior", "scores_model"]


def scores_model(
    score_lab: np.ndarray,
    level_lab: np.ndarray,
    sys_lab: np.ndarray,
    score_unl: np.ndarray,
    sys_unl: np.ndarray,
    w_lab: np.ndarray,
    w_unl: np.ndarray,
    *,
    systems: tuple[str, ...],
    levels: tuple[float, ...],
    judges: tuple[str, ...],
    system_shift: bool = False,
):
    """The scores model (module docstring) as a ``pm.Model``.

    Parameters
    ----------
    score_lab, score_unl : array, shape (n, J)
        Standardised scores of the labelled and unlabelled rows.
    level_lab : array of int, shape (n,)
        The labelled rows' level codes (0..K-1).
    sys_lab, sys_unl : array of int
        System codes.
    w_lab, w_unl : array of float
        How many rows each line stands for (identical rows are one line: scores on a
        grid, such as 1-10 grades, make the likelihood a few hundred terms).
    systems, levels, judges : tuples
        Coordinates and the human levels' values.
    system_shift : bool
        Let each judge score each system's rows shifted at the same human level.
    """
    import pymc as pm
    import pytensor.tensor as pt

    lv = np.asarray(levels, float)
    z = (lv - lv.mean()) / (lv.std() if lv.size > 1 and lv.std() > 0 else 1.0)
    coords = {"system": list(systems), "level": [f"{v:g}" for v in lv], "judge": list(judges)}
    k = lv.size
    with pm.Model(coords=coords) as model:
        sl = pm.Data("score_lab", score_lab)
        ll = pm.Data("level_lab", level_lab)
        syl = pm.Data("sys_lab", sys_lab)
        su = pm.Data("score_unl", score_unl)
        syu = pm.Data("sys_unl", sys_unl)
        wl = pm.Data("w_lab", w_lab)
        wu = pm.Data("w_unl", w_unl)
        alpha_free = pm.Normal("alpha_free", 0.0, 2.0, shape=k - 1)
        alpha = pt.concatenate([pt.zeros(1), alpha_free])
        eta = pm.Normal("eta", 0.0, 2.0, dims="system")
        logits = alpha[None, :] + eta[:, None] * z[None, :]
        logp_level = logits - pt.logsumexp(logits, axis=1, keepdims=True)  # (S, K)
        p_level = pm.Deterministic("p_level", pt.exp(logp_level), dims=("system", "level"))
        pm.Deterministic("mu", pt.dot(p_level, lv), dims="system")
        a = pm.Normal("a", 0.0, 1.0, dims="judge")
        b = pm.Normal("b", 0.0, 1.0, dims="judge")
        tau = pm.HalfNormal("tau", 0.5, dims="judge")
        u = pm.Normal("u", 0.0, 1.0, dims=("judge", "level"))
        m = pm.Deterministic(
            "level_mean",
            a[:, None] + b[:, None] * z[None, :] + tau[:, None] * u,
            dims=("judge", "level"),
        )
        sigma = pm.HalfNormal("sigma", 1.0, dims="judge")
        if system_shift:
            omega = pm.HalfNormal("omega", 0.3, dims="judge")
            v = pm.Normal("v", 0.0, 1.0, dims=("judge", "system"))
            shift = pm.Deterministic("shift", omega[:, None] * v, dims=("judge", "system"))
            shift_l, shift_u = shift[:, syl].T, shift[:, syu].T  # (n, J)
        else:
            shift_l = shift_u = 0.0

        def normal_logp(x, mean, sd):
            return -0.5 * ((x - mean) / sd) ** 2 - pt.log(sd) - 0.5 * np.log(2 * np.pi)

        # labelled rows: their level and their scores at it
        ml = m.T[ll]  # (n, J)
        lab = logp_level[syl, ll] + normal_logp(sl, ml + shift_l, sigma[None, :]).sum(1)
        # unlabelled rows: the level summed out
        per_level = normal_logp(
            su[:, :, None], m[None, :, :] + _expand(shift_u), sigma[None, :, None]
        ).sum(1)  # (N_u, K)
        unl = pt.logsumexp(logp_level[syu] + per_level, axis=1)
        pm.Potential("labelled", (wl * lab).sum())
        pm.Potential("unlabelled", (wu * unl).sum())
    return model


def _expand(shift):
    """A (rows, judges) shift as (rows, judges, 1), or the scalar 0."""
    return shift if np.isscalar(shift) else shift[:, :, None]


def level_posterior(
    score: np.ndarray,
    sys: np.ndarray,
    p_level: np.ndarray,
    level_mean: np.ndarray,
    sigma: np.ndarray,
    shift: np.ndarray | None = None,
) -> np.ndarray:
    """Each row's posterior level probabilities, per draw.

    Parameters
    ----------
    score : ndarray, shape (N, J)
        Standardised scores.
    sys : ndarray, shape (N,)
        System codes.
    p_level : ndarray, shape (D, S, K)
        Each system's level probabilities per draw.
    level_mean : ndarray, shape (D, J, K)
        Each judge's mean score at each level.
    sigma : ndarray, shape (D, J)
        Each judge's score noise.
    shift : ndarray, shape (D, J, S), optional
        The judges' system shifts.

    Returns
    -------
    ndarray, shape (D, N, K)
    """
    mean = level_mean[:, None, :, :]  # (D, 1, J, K)
    if shift is not None:
        mean = mean + shift[:, :, sys].transpose(0, 2, 1)[..., None]  # (D, N, J, K)
    sd = sigma[:, None, :, None]
    ll = (-0.5 * ((score[None, :, :, None] - mean) / sd) ** 2 - np.log(sd)).sum(2)
    ll = ll + np.log(np.maximum(p_level[:, sys, :], 1e-300))
    ll -= ll.max(-1, keepdims=True)
    p = np.exp(ll)
    return p / p.sum(-1, keepdims=True)
