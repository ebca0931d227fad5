r"""A system not on the board, from its outcomes on a few of the board's items.

* :func:`new_system`: per posterior draw of the items' difficulties (and
  discriminations), the new system's ability's posterior from its prior
  :math:`N(0, \sigma_\alpha^2)` and its outcomes on the items it answered, by Newton's
  method to the mode and the Gaussian there (Laplace; the outcomes of a handful of items
  already make it close to normal, and the prior keeps it proper when every outcome is
  the same), then one ability drawn from it and the system's rate over every item of the
  board, :math:`\frac1I\sum_i p_i`.  The draws carry the items' uncertainty and its own.
  With beta-binomial cells (a concentration) the same, the score by digammas, and the
  rate averages the items' rates drawn given the outcomes.
* :func:`informative_items`: the items a new system should answer for a budget: the
  items whose Fisher information :math:`a_i^2 p(1 - p)`, summed over the board's
  abilities, is largest, taken in turn from strata of difficulty so the subset spans the
  board.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from judgebayes.inference.leaderboard.posterior import cell_rates
from judgebayes.models.leaderboard import success_probabilities

__all__ = ["DRAWS", "informative_items", "new_system"]

#: posterior draws of the items a new system is read against
DRAWS = 400


def new_system(
    k: np.ndarray,
    n: np.ndarray,
    items: np.ndarray,
    draws: dict,
    ability_sd: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Draws of a new system's ability and of its rate on every item of the board (module
    docstring).

    ``k`` successes in ``n`` trials on the board's items ``items`` (codes); ``draws`` the
    fit's ``difficulty`` and ``discrimination`` (draws, I) and ``concentration`` (draws,)
    (absent: None).
    """
    b = np.asarray(draws["difficulty"], float)
    a = draws.get("discrimination")
    phi = draws.get("concentration")
    if phi is not None:
        ability = _laplace_beta_binomial(k, n, items, b, a, np.asarray(phi, float), ability_sd, rng)
    else:
        ability = _laplace_abilities(k, n, items, b, a, ability_sd, rng)
    p = success_probabilities(ability[:, None], b, a, draws.get("guessing"))[:, 0, :]
    if phi is None:
        return ability, p.mean(axis=1)
    kk, nn = np.zeros(b.shape[1]), np.zeros(b.shape[1])
    kk[items], nn[items] = k, n
    return ability, cell_rates(p, phi, kk, nn, rng).mean(axis=1)


def _laplace_abilities(k, n, items, b, a, sd, rng, steps: int = 30) -> np.ndarray:
    """One ability per draw from the Gaussian at its posterior mode (Newton's method)."""
    bi = b[:, items]
    ai = 1.0 if a is None else np.asarray(a, float)[:, items]
    theta = np.zeros(b.shape[0])
    prec = np.full(b.shape[0], 1 / sd**2)
    for _ in range(steps):
        p = special.expit(ai * (theta[:, None] - bi))
        grad = (ai * (k - n * p)).sum(axis=1) - theta / sd**2
        prec = (ai**2 * n * p * (1 - p)).sum(axis=1) + 1 / sd**2
        step = grad / prec
        theta = theta + np.clip(step, -2.0, 2.0)
        if np.max(np.abs(step)) < 1e-8:
            break
    return theta + rng.standard_normal(theta.size) / np.sqrt(prec)


def _laplace_beta_binomial(k, n, items, b, a, phi, sd, rng, steps: int = 40) -> np.ndarray:
    r"""One ability per draw from the Gaussian at its posterior mode, beta-binomial cells:
    the score :math:`\sum_i a_i\phi\,p_i(1 - p_i)[\psi(k_i + p_i\phi) - \psi(n_i - k_i +
    (1 - p_i)\phi) - \psi(p_i\phi) + \psi((1 - p_i)\phi)] - \theta/\sigma^2` by Newton's
    method, its slope by a central difference.
    """
    bi = b[:, items]
    ai = np.ones_like(bi) if a is None else np.asarray(a, float)[:, items]
    f = phi[:, None]

    def score(theta):
        p = special.expit(ai * (theta[:, None] - bi))
        inner = (
            special.digamma(k + p * f)
            - special.digamma(n - k + (1 - p) * f)
            - special.digamma(p * f)
            + special.digamma((1 - p) * f)
        )
        return (ai * f * p * (1 - p) * inner).sum(axis=1) - theta / sd**2

    theta = np.zeros(b.shape[0])
    h = 1e-4
    for _ in range(steps):
        g = score(theta)
        slope = (score(theta + h) - score(theta - h)) / (2 * h)
        prec = np.maximum(-slope, 1 / sd**2)
        step = np.clip(g / prec, -2.0, 2.0)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-7:
            break
    prec = np.maximum(-(score(theta + h) - score(theta - h)) / (2 * h), 1 / sd**2)
    return theta + rng.standard_normal(theta.size) / np.sqrt(prec)


def informative_items(
    ability: np.ndarray,
    difficulty: np.ndarray,
    discrimination: np.ndarray | None,
    budget: int,
    strata: int = 5,
) -> np.ndarray:
    """Codes of ``budget`` items (module docstring): the posterior means ``ability`` (S,),
    ``difficulty`` and ``discrimination`` (I,).
    """
    b = np.asarray(difficulty, float)
    a = np.ones_like(b) if discrimination is None else np.asarray(discrimination, float)
    p = 1 / (1 + np.exp(-a[None, :] * (np.asarray(ability, float)[:, None] - b[None, :])))
    info = (a[None, :] ** 2 * p * (1 - p)).sum(axis=0)
    edges = np.quantile(b, np.linspace(0, 1, strata + 1)[1:-1])
    stratum = np.searchsorted(edges, b)
    queues = [
        list(np.flatnonzero(stratum == s)[np.argsort(-info[stratum == s])]) for s in range(strata)
    ]
    chosen: list[int] = []
    while len(chosen) < min(budget, b.size):
        for q in sorted(queues, key=lambda q: -info[q[0]] if q else 0.0):
            if q and len(chosen) < budget:
                chosen.append(int(q.pop(0)))
    return np.sort(np.asarray(chosen, np.int64))
