r"""What a fitted leaderboard model answers from its draws, in numpy.

* :func:`simultaneous_rank_intervals`: every system's rank interval at once.  With
  :math:`r^{(d)}_s` the rank of system :math:`s` in draw :math:`d`, the intervals are the
  per-system :math:`[q_c(r_s), q_{1-c}(r_s)]` quantiles with the largest :math:`c \le
  \alpha/2` for which the share of draws whose ranks all fall inside is at least
  :math:`1 - \alpha` (a joint posterior statement, not one per system).
* :func:`estimands`: each system's rate over the board's items and over new items like
  them, from the draws (the cells' rates drawn given their outcomes when cells hold
  several trials: :func:`cell_rates`).
"""

from __future__ import annotations

import numpy as np

from judgebayes.inference.ranking.topk import rank_draws
from judgebayes.models.leaderboard import success_probabilities

__all__ = ["CHUNK_CELLS", "cell_rates", "estimands", "simultaneous_rank_intervals"]


def simultaneous_rank_intervals(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) rank of each system, holding for all systems at once in at least
    ``1 - alpha`` of the draws ``x`` (draws, S) (module docstring).
    """
    r = rank_draws(np.asarray(x, float))
    best = (r.min(axis=0), r.max(axis=0))  # every draw's rank: the widest, at c = 0
    lo_c, hi_c = 0.0, alpha / 2
    for _ in range(30):  # bisection on the per-system tail c
        c = (lo_c + hi_c) / 2
        lo = np.floor(np.quantile(r, c, axis=0))
        hi = np.ceil(np.quantile(r, 1 - c, axis=0))
        if np.mean(np.all((r >= lo) & (r <= hi), axis=1)) >= 1 - alpha:
            lo_c, best = c, (lo, hi)
        else:
            hi_c = c
    return np.asarray(best[0], np.int64), np.asarray(best[1], np.int64)


def cell_rates(p, phi, k, n, rng) -> np.ndarray:
    r"""Draws of each cell's rate given its outcomes: :math:`r \sim \mathrm{Beta}(p\phi + k,
    (1 - p)\phi + n - k)` for ``p`` (draws, S, I) and the concentrations ``phi`` (draws,);
    ``phi`` None: the cells' rates are ``p`` itself.
    """
    if phi is None:
        return p
    f = np.asarray(phi, float).reshape(-1, *([1] * (p.ndim - 1)))
    return rng.beta(p * f + k, (1 - p) * f + n - k)


#: cells (draws x systems x items) held at once by :func:`estimands`: 8 MB a float array
#: per million, so a few arrays of this size stay under a gigabyte on any board
CHUNK_CELLS = 10_000_000


def estimands(draws: dict, k, n, rng, chunk: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""(theta, theta_process), each (draws, S): the cells' rates averaged over the items,
    and weighted by Bayesian-bootstrap weights :math:`\pi \sim \mathrm{Dirichlet}(1,
    \dots, 1)` (new items like these).  ``draws`` maps ``ability``, ``difficulty``,
    ``discrimination``, ``guessing`` and ``concentration`` (absent: None) to their draws; ``chunk``
    draws at a time (default: :data:`CHUNK_CELLS` cells' worth).
    """
    ability = draws["ability"]
    n_draws, n_items = ability.shape[0], np.shape(k)[1]
    if chunk is None:
        chunk = max(1, CHUNK_CELLS // (ability.shape[1] * n_items))
    theta, process = np.empty((n_draws, ability.shape[1])), np.empty((n_draws, ability.shape[1]))
    for lo in range(0, n_draws, chunk):
        sl = slice(lo, lo + chunk)

        def part(name, sl=sl):
            x = draws.get(name)
            return None if x is None else x[sl]

        p = success_probabilities(
            part("ability"), part("difficulty"), part("discrimination"), part("guessing")
        )
        p = np.broadcast_to(p, (p.shape[0], ability.shape[1], n_items))
        r = cell_rates(p, part("concentration"), k, n, rng)
        w = rng.dirichlet(np.ones(n_items), p.shape[0])
        theta[sl] = r.mean(axis=2)
        process[sl] = np.einsum("dsi,di->ds", r, w)
    return theta, process
