r"""What a fitted leaderboard model answers from its draws, in numpy.

* :func:`simultaneous_rank_intervals`: every system's rank interval at once.  With
  :math:`r^{(d)}_s` the rank of system :math:`s` in draw :math:`d`, the intervals are the
  per-system :math:`[q_c(r_s), q_{1-c}(r_s)]` quantiles with the largest :math:`c \le
  \alpha/2` for which the share of draws whose ranks all fall inside is at least
  :math:`1 - \alpha` (a joint posterior statement, not one per system).
* :func:`estimands`: each system's rate over the board's items and over new items like
  them, from the draws (the cells' rates drawn given their outcomes when cells hold
  several trials: :func:`cell_rates`).
* :func:`new_system`: a system not on the board, answered on a subset of its items.  Per
  posterior draw of the items' difficulties (and discriminations, concentration), its
  ability's posterior on a grid (its prior :math:`N(0, \sigma_\alpha^2)` times the
  subset's binomial or beta-binomial likelihood), one ability drawn from it, and its
  accuracy over every item of the board, :math:`\frac1I\sum_i r_i`: the draws carry the
  items' uncertainty and its own.
* :func:`informative_items`: the items a new system should answer for a budget: the
  items whose Fisher information :math:`a_i^2 p(1 - p)`, summed over the board's
  abilities, is largest, taken in turn from strata of difficulty so the subset spans the
  board.
"""

from __future__ import annotations

import numpy as np

from judgebayes.inference.ranking.topk import rank_draws, separable_groups, top_k_probabilities
from judgebayes.models.leaderboard import success_probabilities

__all__ = [
    "cell_rates",
    "estimands",
    "informative_items",
    "new_system",
    "posterior_table",
    "simultaneous_rank_intervals",
]

#: ability grid of :func:`new_system` (logits)
GRID = np.linspace(-8.0, 8.0, 321)


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
    ``discrimination`` and ``concentration`` (absent: None) to their draws; ``chunk``
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

        p = success_probabilities(part("ability"), part("difficulty"), part("discrimination"))
        p = np.broadcast_to(p, (p.shape[0], ability.shape[1], n_items))
        r = cell_rates(p, part("concentration"), k, n, rng)
        w = rng.dirichlet(np.ones(n_items), p.shape[0])
        theta[sl] = r.mean(axis=2)
        process[sl] = np.einsum("dsi,di->ds", r, w)
    return theta, process


def new_system(
    k: np.ndarray,
    n: np.ndarray,
    items: np.ndarray,
    draws: dict,
    ability_sd: float,
    rng: np.random.Generator,
    chunk: int = 100,
) -> tuple[np.ndarray, np.ndarray]:
    """Draws of a new system's ability and of its accuracy on every item of the board.

    ``k`` successes in ``n`` trials on the board's items ``items`` (codes); ``draws``
    the fit's ``difficulty`` and ``discrimination`` (draws, I) and ``concentration``
    (draws,) (absent: None): with a concentration each item's outcomes are beta-binomial
    and the accuracy averages the items' rates drawn given them.
    """
    b = np.asarray(draws["difficulty"], float)
    a = draws.get("discrimination")
    phi = draws.get("concentration")
    ll = np.empty((b.shape[0], GRID.size))
    for lo in range(0, b.shape[0], chunk):  # (draws, grid, items answered) a chunk at a time
        sl = slice(lo, lo + chunk)
        eta = GRID[None, :, None] - b[sl, None][:, :, items]
        if a is not None:
            eta = eta * np.asarray(a, float)[sl, None][:, :, items]
        ll[sl] = _log_likelihood(eta, k, n, None if phi is None else phi[sl]).sum(axis=2)
    ll -= 0.5 * (GRID / ability_sd) ** 2
    w = np.exp(ll - ll.max(axis=1, keepdims=True))
    cdf = np.cumsum(w, axis=1)
    u = rng.random(b.shape[0]) * cdf[:, -1]
    pick = np.minimum((cdf < u[:, None]).sum(axis=1), GRID.size - 1)
    step = GRID[1] - GRID[0]
    ability = GRID[pick] + rng.uniform(-step / 2, step / 2, b.shape[0])
    p = success_probabilities(ability[:, None], b, a)[:, 0, :]
    kk, nn = np.zeros(b.shape[1]), np.zeros(b.shape[1])
    kk[items], nn[items] = k, n
    return ability, cell_rates(p, phi, kk, nn, rng).mean(axis=1)


def _log_likelihood(eta, k, n, phi) -> np.ndarray:
    """Each answered item's log likelihood (up to a constant) at each grid ability."""
    if phi is None:
        return k * -np.logaddexp(0.0, -eta) + (n - k) * -np.logaddexp(0.0, eta)
    from scipy.special import betaln

    p = 1 / (1 + np.exp(-eta))
    f = np.asarray(phi, float)[:, None, None]
    return betaln(k + p * f, n - k + (1 - p) * f) - betaln(p * f, (1 - p) * f)


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


def posterior_table(x: np.ndarray, interval, alpha: float, top_k: int = 1):
    """The leaderboard table of ``(draws, systems)`` draws ``x`` and their equal-tailed
    ``interval`` (a frame indexed by system with ``estimate``, ``lower``, ``upper``): one
    row per system, best first, with ``rank``, the simultaneous ``rank_lower`` /
    ``rank_upper``, ``tier`` (groups every member of which is above every member of the
    next, all at once, with posterior probability at least ``1 - alpha``) and ``p_top_k``.
    """
    import pandas as pd
    from scipy import stats

    lo_r, hi_r = simultaneous_rank_intervals(x, alpha)
    tier = np.zeros(x.shape[1], np.int64)
    for t, members in enumerate(separable_groups(x, level=1 - alpha), start=1):
        tier[members] = t
    mean = interval["estimate"].to_numpy()
    out = pd.DataFrame(
        {
            "system": list(interval.index),
            "estimate": mean,
            "lower": interval["lower"].to_numpy(),
            "upper": interval["upper"].to_numpy(),
            "rank": stats.rankdata(-mean, method="min").astype(int),
            "rank_lower": lo_r,
            "rank_upper": hi_r,
            "tier": tier,
            "p_top_k": top_k_probabilities(x, top_k),
        }
    )
    return out.sort_values("rank", kind="stable").reset_index(drop=True)
