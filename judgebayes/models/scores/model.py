r"""The Bayesian model of the scores design: the human level given the judge's scores.

Each row's human label is one of :math:`K` levels :math:`\ell_1 < \dots < \ell_K` (the
distinct labels seen: Likert levels, the raters' possible means, 0/1).  Given the judges'
standardised scores :math:`z_{ir}` and the row's system :math:`s`, the level is ordinal
(cumulative logit) with cutpoints :math:`c` on the human scale:

.. math::

    P(H_i \le k \mid z_i, s) = \operatorname{logit}^{-1}(c_k - \eta_i),\qquad
    \eta_i = \sum_r \beta_r z_{ir} + \alpha_s

    c_1 \sim N(0, 3^2),\ c_{k+1} - c_k = e^{g_k},\ g_k \sim N(0, 1),\quad
    \beta_r \sim N(0, 2.5^2),\quad
    \alpha_s = \tau u_s,\ u \sim \mathrm{ZeroSumNormal}(1),\ \tau \sim \mathrm{HalfNormal}(1)

The system offset :math:`\alpha_s` (``system_shift``) is what a judge's kindness to one
system's outputs at the same human level becomes here: the same score means a lower level
on that system's rows.  It plays the part of the closed form's per-system residual, with
the systems partially pooled; without it (``system_shift=False``) one calibration serves
every system (the check ``calibration_transport`` tests that).  The likelihood is the
labelled rows'; under labelling at random given the scores and the system the unlabelled
rows add nothing to it, and they enter through the estimands (:func:`level_probabilities`):
``mu_items`` draws each unlabelled row's level, ``mu`` averages
:math:`E[H \mid z_i, s]` over the system's rows with Bayesian-bootstrap weights (the
score distribution's own uncertainty).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import expit

__all__ = ["PAD", "distinct_lines", "level_probabilities", "scores_model"]

#: the labelled lines are padded to a multiple of this with weight-0 copies, so that label
#: sets of similar size share one compiled model (a compile costs several warm fits)
PAD = 64


def distinct_lines(x: np.ndarray, pad: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``x`` and how many times each occurs (the model's weights),
    with weight-0 copies of the first appended up to a multiple of ``pad``.
    """
    u, c = np.unique(x, axis=0, return_counts=True)
    extra = (-len(u)) % pad
    weights = np.append(c.astype(float), np.zeros(extra))
    return np.concatenate([u, np.repeat(u[:1], extra, 0)]), weights


def scores_model(
    score_lab: np.ndarray,
    level_lab: np.ndarray,
    sys_lab: np.ndarray,
    w_lab: np.ndarray,
    *,
    systems: tuple[str, ...],
    levels: tuple[float, ...],
    judges: tuple[str, ...],
    system_shift: bool = True,
):
    """The scores model (module docstring) as a ``pm.Model``.

    Parameters
    ----------
    score_lab : array, shape (n, J)
        Standardised scores of the labelled lines.
    level_lab : array of int, shape (n,)
        Their level codes (0..K-1).
    sys_lab : array of int, shape (n,)
        Their system codes.
    w_lab : array of float, shape (n,)
        How many labelled rows each line stands for (identical rows are one line; padding
        lines have weight 0, so that designs of similar size share one compiled model).
    systems, levels, judges : tuples
        Coordinates and the human levels' values.
    system_shift : bool
        A partially pooled offset per system.
    """
    import pymc as pm
    import pytensor.tensor as pt

    k = len(levels)
    coords = {
        "system": list(systems),
        "cut": [f"{a:g}|{b:g}" for a, b in itertools.pairwise(levels)],
        "judge": list(judges),
    }
    with pm.Model(coords=coords) as model:
        sl = pm.Data("score_lab", score_lab)
        ll = pm.Data("level_lab", level_lab)
        syl = pm.Data("sys_lab", sys_lab)
        wl = pm.Data("w_lab", w_lab)
        # ordered cutpoints as the first one plus positive gaps (the zero start is
        # ordered: gaps of 1)
        c1 = pm.Normal("c1", 0.0, 3.0)
        log_gap = pm.Normal("log_gap", 0.0, 1.0, shape=k - 2)
        cut = pm.Deterministic(
            "cutpoints",
            c1 + pt.concatenate([pt.zeros(1), pt.cumsum(pt.exp(log_gap))]),
            dims="cut",
        )
        beta = pm.Normal("beta", 0.0, 2.5, dims="judge")
        eta = pt.dot(sl, beta)
        if system_shift and len(systems) > 1:
            tau = pm.HalfNormal("tau", 1.0)
            # summing to zero: a common shift of the offsets is the cutpoints' (a ridge
            # that left the cutpoints' bulk ESS at 244 of 1,000 draws)
            u = pm.ZeroSumNormal("u", 1.0, dims="system")
            alpha = pm.Deterministic("alpha", tau * u, dims="system")
            eta = eta + alpha[syl]
        # P(H = k) = F(c_k - eta) - F(c_{k-1} - eta), F the logistic cdf; each line's
        # log probability times its count
        pm.CustomDist(
            "level",
            cut,
            eta,
            wl,
            logp=_weighted_ordinal_logp,
            random=_ordinal_random,
            observed=ll,
            dtype="int64",
        )
    return model


def _ordinal_random(cut, eta, w, rng=None, size=None):
    """One level per line from the cumulative-logit model (a logistic latent cut at the
    cutpoints): the posterior predictive of each labelled line's level.
    """
    rng = np.random.default_rng() if rng is None else rng
    shape = np.shape(eta) if size is None else tuple(size)
    latent = rng.logistic(loc=np.broadcast_to(eta, shape), size=shape)
    return (latent[..., None] > np.asarray(cut)).sum(axis=-1).astype(np.int64)


def _weighted_ordinal_logp(value, cut, eta, w):
    """Count-weighted cumulative-logit log probability of levels ``value``."""
    import pytensor.tensor as pt

    upper = pt.concatenate([cut, pt.as_tensor([np.inf])])[value]
    lower = pt.concatenate([pt.as_tensor([-np.inf]), cut])[value]
    p = pt.sigmoid(upper - eta) - pt.sigmoid(lower - eta)
    return w * pt.log(pt.clip(p, 1e-300, 1.0))


def level_probabilities(
    score: np.ndarray,
    sys: np.ndarray,
    cutpoints: np.ndarray,
    beta: np.ndarray,
    alpha: np.ndarray | None = None,
) -> np.ndarray:
    """Each row's level probabilities, per draw.

    Parameters
    ----------
    score : ndarray, shape (N, J)
        Standardised scores.
    sys : ndarray, shape (N,)
        System codes.
    cutpoints : ndarray, shape (D, K - 1)
        The ordered cutpoints per draw.
    beta : ndarray, shape (D, J)
        The judges' slopes per draw.
    alpha : ndarray, shape (D, S), optional
        The system offsets per draw.

    Returns
    -------
    ndarray, shape (D, N, K)
    """
    eta = beta @ score.T  # (D, N)
    if alpha is not None:
        eta = eta + alpha[:, sys]
    cdf = expit(cutpoints[:, None, :] - eta[..., None])  # (D, N, K-1)
    d, n = eta.shape
    cdf = np.concatenate([np.zeros((d, n, 1)), cdf, np.ones((d, n, 1))], axis=-1)
    return np.clip(np.diff(cdf, axis=-1), 0.0, 1.0)
