r"""A system not on the board, from its outcomes on a few of the board's items.

* :func:`new_system`: per posterior draw of the items' difficulties (and
  discriminations), the new system's ability's posterior from its prior
  :math:`N(0, \sigma_\alpha^2)` and its outcomes on the items it answered, by Newton's
  method to the mode and the Gaussian there (Laplace; the outcomes of a handful of items
  already make it close to normal, and the prior keeps it proper when every outcome is
  the same), then one ability drawn from it and the system's rate over every item of the
  board, :math:`\frac1I\sum_i p_i`.  The draws carry the items' uncertainty and its own.
  With beta-binomial cells (a concentration), the ability's posterior is taken on a grid
  instead and the rate averages the items' rates drawn given the outcomes.
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

__all__ = ["DRAWS", "GRID", "informative_items", "new_system"]

#: posterior draws of the items a new system is read against
DRAWS = 400
#: ability grid of the beta-binomial case (logits)
GRID = np.linspace(-8.0, 8.0, 321)


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
        ability = _grid_abilities(k, n, items, b, a, np.asarray(phi, float), ability_sd, rng)
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


def _grid_abilities(k, n, items, b, a, phi, sd, rng, chunk: int = 100) -> np.ndarray:
    """One ability per draw from its posterior on :data:`GRID` (beta-binomial cells)."""
    ll = np.empty((b.shape[0], GRID.size))
    for lo in range(0, b.shape[0], chunk):  # (draws, grid, items answered) a chunk at a time
        sl = slice(lo, lo + chunk)
        eta = GRID[None, :, None] - b[sl, None][:, :, items]
        if a is not None:
            eta = eta * np.asarray(a, float)[sl, None][:, :, items]
        p = special.expit(eta)
        f = phi[sl, None, None]
        ll[sl] = (
            special.betaln(k + p * f, n - k + (1 - p) * f) - special.betaln(p * f, (1 - p) * f)
        ).sum(axis=2)
    ll -= 0.5 * (GRID / sd) ** 2
    w = np.exp(ll - ll.max(axis=1, keepdims=True))
    cdf = np.cumsum(w, axis=1)
    u = rng.random(b.shape[0]) * cdf[:, -1]
    pick = np.minimum((cdf < u[:, None]).sum(axis=1), GRID.size - 1)
    step = GRID[1] - GRID[0]
    return GRID[pick] + rng.uniform(-step / 2, step / 2, b.shape[0])


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
