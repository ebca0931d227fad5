r"""Summaries of posterior quality draws: top-k membership, ranks and separable groups.

All functions take ``theta`` draws of shape (S, N) (Laplace or NUTS, flattened over
chains) and are vectorised over draws.

* :math:`p_i = \Pr(i \in S_k(\theta))` is the share of draws in which item :math:`i` is
  among the :math:`k` largest; its Monte-Carlo error is at most
  :math:`0.5/\sqrt{S}` (0.013 with the paper's S = 1500).
* Rank 1 is the best item; rank intervals are equal-tailed quantiles of the rank
  draws.
* Groups (tiers): in the order of the point estimate, an item starts a new tier when
  the current tier's leader beats it with posterior probability at least ``level``;
  otherwise it joins that tier.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "binary_entropy",
    "prob_better",
    "rank_draws",
    "rank_intervals",
    "separable_groups",
    "top_k_probabilities",
    "top_k_set",
]


def top_k_set(theta: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest entries (ties broken by index), sorted best first."""
    theta = np.asarray(theta, dtype=float)
    order = np.argsort(-theta, kind="stable")
    return order[:k]


def top_k_probabilities(draws: np.ndarray, k: int) -> np.ndarray:
    r""":math:`\Pr(i \in S_k)` for every item from (S, N) draws."""
    draws = np.atleast_2d(np.asarray(draws, dtype=float))
    S, N = draws.shape
    if not 1 <= k <= N:
        raise ValueError(f"k must be in 1..{N}, got {k}")
    if k == N:
        return np.ones(N)
    idx = np.argpartition(-draws, k - 1, axis=1)[:, :k]
    counts = np.bincount(idx.ravel(), minlength=N)
    return counts / S


def rank_draws(draws: np.ndarray) -> np.ndarray:
    """Rank of each item in each draw (1 = best), shape (S, N)."""
    draws = np.atleast_2d(np.asarray(draws, dtype=float))
    order = np.argsort(-draws, axis=1, kind="stable")
    ranks = np.empty_like(order)
    rows = np.arange(draws.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, draws.shape[1] + 1)[None, :]
    return ranks


def rank_intervals(draws: np.ndarray, alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Median rank and equal-tailed ``1 - alpha`` rank interval per item."""
    r = rank_draws(draws)
    lo, med, hi = np.quantile(r, [alpha / 2, 0.5, 1 - alpha / 2], axis=0, method="inverted_cdf")
    return {"rank_median": med, "rank_lower": lo, "rank_upper": hi, "rank_mean": r.mean(0)}


def prob_better(draws: np.ndarray) -> np.ndarray:
    r"""Matrix of :math:`\Pr(\theta_i > \theta_j)`."""
    draws = np.atleast_2d(np.asarray(draws, dtype=float))
    return (draws[:, :, None] > draws[:, None, :]).mean(axis=0)


def separable_groups(
    draws: np.ndarray, point: np.ndarray | None = None, level: float = 0.95
) -> list[np.ndarray]:
    r"""Tiers of items that cannot be separated from their tier's leader (best tier first).

    Items are taken in the order of the point estimate; the first item leads the first
    tier, and each following item joins the current tier unless the leader beats it with
    posterior probability at least ``level``, in which case it leads a new tier.  So every
    tier's leader is separated at ``level`` from the next tier's leader, and no member of
    a tier is separated from its leader.
    """
    draws = np.atleast_2d(np.asarray(draws, dtype=float))
    point = draws.mean(axis=0) if point is None else np.asarray(point, dtype=float)
    order = np.argsort(-point, kind="stable")
    groups: list[list[int]] = [[int(order[0])]]
    for i in order[1:]:
        leader = groups[-1][0]
        if np.mean(draws[:, leader] > draws[:, i]) >= level:
            groups.append([int(i)])
        else:
            groups[-1].append(int(i))
    return [np.asarray(g) for g in groups]


def binary_entropy(p: np.ndarray) -> np.ndarray:
    r""":math:`H(p) = -p\log p - (1-p)\log(1-p)` in nats, 0 at p in {0, 1}."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log(p) + (1 - p) * np.log1p(-p))
    return np.nan_to_num(h, nan=0.0)
