r"""Summaries of posterior quality draws: top-k membership, ranks and separable groups.

All functions take ``theta`` draws of shape (S, N) (Laplace or NUTS, flattened over
chains) and are vectorised over draws.

* :math:`p_i = \Pr(i \in S_k(\theta))` is the share of draws in which item :math:`i` is
  among the :math:`k` largest; its Monte-Carlo error is at most
  :math:`0.5/\sqrt{S}` (0.013 with the paper's S = 1500).
* Rank 1 is the best item; rank intervals are equal-tailed quantiles of the rank
  draws.
* Identification: Bradley-Terry qualities are defined up to an additive constant per
  connected component of the comparison graph.  :func:`identify` maps draws to the
  identified scale: sum-to-zero within each component, or relative to a reference
  item (its component then reads "quality minus the reference's").  Every summary
  below is invariant to that shift except the quality intervals themselves.
* Top-k set: the set :math:`S` of size :math:`k` that maximises the expected recall
  :math:`E|S \cap T_k|/k` of the true top-k :math:`T_k` is the :math:`k` items with the
  largest :math:`p_i` (expected recall is :math:`\sum_{i\in S} p_i / k`).
* Tiers: a cut after position :math:`m` of the point order claims that every item above
  it beats every item below it in quality.  :func:`separable_groups` places cuts
  greedily from the top and keeps a cut only if the posterior probability that *all*
  kept claims hold at once stays at least ``level``: the chance that any stated
  separation is wrong is at most ``1 - level`` (simultaneous, not per-cut, control).
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = [
    "binary_entropy",
    "expected_recall_set",
    "identify",
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


def identify(draws: np.ndarray, components: np.ndarray, reference: int | None = None) -> np.ndarray:
    """Quality draws on the identified scale.

    Parameters
    ----------
    draws : ndarray, shape (..., N)
        Quality draws (any leading shape; the last axis is the item).
    components : ndarray of int, shape (N,)
        Connected component of each item (:func:`judgebayes.data.ranking.component_labels`).
    reference : int, optional
        Index of the reference item: its component is shifted so that the reference is 0.
        Other components (and all of them without a reference) sum to zero.
    """
    out = np.array(draws, dtype=float, copy=True)
    comps = np.asarray(components)
    for c in np.unique(comps):
        m = comps == c
        if reference is not None and comps[reference] == c:
            shift = out[..., reference : reference + 1]
        else:
            shift = out[..., m].mean(axis=-1, keepdims=True)
        out[..., m] -= shift
    return out


def expected_recall_set(p_top_k: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` items with the largest P(top-k): the expected-recall-optimal set."""
    return top_k_set(p_top_k, k)


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
    r"""Tiers with simultaneous error control (best tier first).

    Items are taken in the order of the point estimate.  A cut after position :math:`m`
    claims :math:`\min_{i \le m}\theta_{(i)} > \max_{i > m}\theta_{(i)}`.  Cuts are tried
    from the top; a cut is kept when the posterior probability that it and every cut
    already kept hold in the same draw is at least ``level``.  So with posterior
    probability at least ``level`` every item of a tier beats every item of every lower
    tier, and the statement "these tiers are separated" is wrong with posterior
    probability at most ``1 - level``.  Items within a tier are not claimed to be equal.
    """
    draws = np.atleast_2d(np.asarray(draws, dtype=float))
    point = draws.mean(axis=0) if point is None else np.asarray(point, dtype=float)
    order = np.argsort(-point, kind="stable")
    sd = draws[:, order]
    N = sd.shape[1]
    # running min from the top and max from the bottom, per draw
    top_min = np.minimum.accumulate(sd, axis=1)
    bottom_max = np.maximum.accumulate(sd[:, ::-1], axis=1)[:, ::-1]
    holds = np.ones(sd.shape[0], dtype=bool)
    cuts = []
    for m in range(1, N):
        cand = holds & (top_min[:, m - 1] > bottom_max[:, m])
        if cand.mean() >= level:
            holds = cand
            cuts.append(m)
    bounds = [0, *cuts, N]
    return [order[a:b] for a, b in itertools.pairwise(bounds)]


def binary_entropy(p: np.ndarray) -> np.ndarray:
    r""":math:`H(p) = -p\log p - (1-p)\log(1-p)` in nats, 0 at p in {0, 1}."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log(p) + (1 - p) * np.log1p(-p))
    return np.nan_to_num(h, nan=0.0)
