r"""Baselines for pairwise ranking under a biased judge.

``win_counts``
    Share of comparisons won (ties count half) per item.
``order_swap_majority``
    Every unordered pair's verdicts pooled over both presentation orders and decided
    by majority (a split vote is a tie, counted half), then naive Bradley-Terry on one
    outcome per pair: the standard position fix; it cannot remove a covariate bias.
``length_residualisation``
    Naive Bradley-Terry scores :math:`\tilde\theta`, regressed by least squares on the
    item covariates (with intercept); the residual is the score.
``trusted_anchor_gate``
    Fit naive and bias-aware models; switch the covariate correction on only if the
    bias-aware point ranking agrees with a small set of trusted pairwise labels at
    least as well as the naive one (Xu et al., "Gating").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.data.ranking import PairwiseData
from judgebayes.errors import InputError
from judgebayes.inference.ranking.newton import bt_design, fit_map

__all__ = [
    "GateResult",
    "length_residualisation",
    "naive_scores",
    "order_swap_majority",
    "trusted_anchor_gate",
    "win_counts",
]


def win_counts(data: PairwiseData) -> np.ndarray:
    """Win share per item (items never compared get NaN)."""
    N = data.n_items
    wins = np.bincount(data.first, weights=data.y, minlength=N) + np.bincount(
        data.second, weights=1 - data.y, minlength=N
    )
    games = np.bincount(data.first, minlength=N) + np.bincount(data.second, minlength=N)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, wins / np.maximum(games, 1), np.nan)


def naive_scores(data: PairwiseData, lam: float = 1.0) -> np.ndarray:
    """MAP of naive Bradley-Terry (theta ~ N(0, 1/lam))."""
    return fit_map(bt_design(data, bias=False, lam=lam)).theta.copy()


def order_swap_majority(data: PairwiseData, lam: float = 1.0) -> np.ndarray:
    """Naive BT on one majority outcome per unordered pair (both orders pooled)."""
    lo = np.minimum(data.first, data.second)
    hi = np.maximum(data.first, data.second)
    # vote for the lower-index item of the pair
    vote_lo = np.where(data.first == lo, data.y, 1 - data.y)
    key = lo * data.n_items + hi
    uniq, inv = np.unique(key, return_inverse=True)
    share = np.bincount(inv, weights=vote_lo) / np.bincount(inv)
    y = np.where(share > 0.5, 1.0, np.where(share < 0.5, 0.0, 0.5))
    pooled = PairwiseData(
        items=data.items,
        first=uniq // data.n_items,
        second=uniq % data.n_items,
        y=y,
        judge=np.zeros(uniq.size, dtype=np.int64),
        judges=("judge",),
        X=np.zeros((uniq.size, 0)),
        covariates=(),
    )
    return naive_scores(pooled, lam)


def length_residualisation(data: PairwiseData, lam: float = 1.0) -> np.ndarray:
    """Residual of naive BT scores after least squares on the item covariates."""
    if data.item_X is None:
        raise InputError(
            "length residualisation needs item-level covariates (got none or only "
            "per-comparison ones)",
            field="covariates",
            value=data.covariates,
        )
    s = naive_scores(data, lam)
    A = np.column_stack([np.ones(data.n_items), data.item_X])
    coef, *_ = np.linalg.lstsq(A, s, rcond=None)
    return s - A @ coef


@dataclass(frozen=True)
class GateResult:
    """Decision of the trusted-anchor gate."""

    enabled: bool
    naive_agreement: float
    bias_agreement: float
    scores: np.ndarray
    n_anchors: int


def _agreement(scores: np.ndarray, winners: np.ndarray, losers: np.ndarray) -> float:
    d = scores[winners] - scores[losers]
    return float(np.mean(np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0))))


def trusted_anchor_gate(
    data: PairwiseData,
    anchors: np.ndarray,
    *,
    lam: float = 1.0,
    lam_b: float = 0.1,
) -> GateResult:
    """Enable the covariate correction only if it agrees with trusted labels as well.

    Parameters
    ----------
    data : PairwiseData
        The judge's verdicts with covariates.
    anchors : array (m, 2) of int
        Trusted pairs as (winner, loser) item indices.
    lam, lam_b : float
        Prior precisions of the two models.
    """
    anchors = np.asarray(anchors, dtype=np.int64).reshape(-1, 2)
    if anchors.shape[0] == 0:
        raise InputError("the gate needs at least one trusted pair", field="anchors", value=0)
    naive = naive_scores(data, lam)
    bias = fit_map(bt_design(data, bias=True, lam=lam, lam_b=lam_b)).theta.copy()
    an = _agreement(naive, anchors[:, 0], anchors[:, 1])
    ab = _agreement(bias, anchors[:, 0], anchors[:, 1])
    on = ab >= an
    return GateResult(on, an, ab, bias if on else naive, int(anchors.shape[0]))
