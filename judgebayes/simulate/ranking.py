r"""Simulated pairwise judges with known truth (Xu et al.).

Pairwise setting (Xu et al.): a judge shown item :math:`a` first and :math:`b` second
prefers :math:`a` with probability
:math:`\sigma(s(\theta_a - \theta_b) + c^*(x_a - x_b) + \kappa^*)`, with :math:`x` the
standardised covariate; the full :math:`N(N-1)` ordered verdict matrix is drawn once and
serves as an offline oracle (:class:`SimulatedPairwise`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from judgebayes.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    pass


__all__ = ["SimulatedPairwise", "controlled_benchmark", "simulate_bt_judge"]


@dataclass(frozen=True)
class SimulatedPairwise:
    """A simulated pool of items and a judge's full ordered verdict matrix.

    Attributes
    ----------
    quality : ndarray (N,)
        True quality (the ranking target).
    x : ndarray (N,)
        Raw covariate (e.g. a verbosity flag).
    verdicts : ndarray (N, N)
        ``verdicts[a, b] = 1`` when the judge prefers ``a`` shown first over ``b``
        shown second, 0 otherwise; -1 on the diagonal.
    c, kappa : float
        True bias coefficient (per standardised covariate unit) and position term.
    k : int
        Size of the target set.
    true_top : ndarray of int
        Items whose quality is at least the k-th largest (all of them count as correct
        when quality ties at the boundary).
    """

    quality: np.ndarray
    x: np.ndarray
    verdicts: np.ndarray
    c: float
    kappa: float
    k: int
    true_top: np.ndarray

    @property
    def n_items(self) -> int:
        """Number of items."""
        return int(self.quality.size)

    def recall(self, selected) -> float:
        """Top-k recall of a selected set (indices or item ids): |selected & true top| / k."""
        chosen = {int(v) for v in np.asarray(selected).tolist()}
        return len(chosen & set(self.true_top.tolist())) / self.k

    def comparisons(self, pairs=None):
        """(first, second, y) for the given ordered pairs (default: all N(N-1))."""
        N = self.n_items
        if pairs is None:
            a, b = np.nonzero(~np.eye(N, dtype=bool))
        else:
            a, b = (np.asarray(v, dtype=np.int64) for v in zip(*pairs, strict=True))
        return a, b, self.verdicts[a, b].astype(float)

    def ranking(self, *, both_orders: bool = True):
        """A :class:`~judgebayes.studies.ranking.PairwiseRanking` of all (or one order of all)
        pairs.
        """
        from judgebayes.studies.ranking import PairwiseRanking

        a, b, y = self.comparisons()
        if not both_orders:
            keep = a < b
            a, b, y = a[keep], b[keep], y[keep]
        return PairwiseRanking.from_arrays(
            a, b, y, n_items=self.n_items, item_covariates={"x": self.x}
        )


def _verdict_matrix(rng, quality, xs, scale, c, kappa):
    eta = scale * (quality[:, None] - quality[None, :]) + c * (xs[:, None] - xs[None, :]) + kappa
    v = (rng.random(eta.shape) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int8)
    np.fill_diagonal(v, -1)
    return v


def _true_top(quality, k):
    kth = np.sort(quality)[::-1][k - 1]
    return np.flatnonzero(quality >= kth - 1e-12)


def simulate_bt_judge(
    n_items: int = 30,
    *,
    k: int = 5,
    c: float = 1.0,
    kappa: float = 0.5,
    theta_sd: float = 1.25,
    covariate: str = "binary",
    seed: int | None = None,
) -> SimulatedPairwise:
    r"""Synthetic Bradley-Terry judge (the paper's appendix simulator).

    :math:`\theta_i \sim N(0, \text{theta\_sd}^2)`, an independent covariate (a balanced
    binary flag, or standard normal with ``covariate="normal"``), and verdicts from
    Eq. (1) with the standardised covariate, ``c`` and ``kappa``.  ``c = kappa = 0`` is
    the unbiased control.
    """
    rng = np.random.default_rng(seed)
    quality = rng.normal(0.0, theta_sd, n_items)
    if covariate == "binary":
        x = rng.permutation(np.arange(n_items) % 2).astype(float)
    elif covariate == "normal":
        x = rng.normal(size=n_items)
    else:
        raise InputError(
            f"covariate must be 'binary' or 'normal', got {covariate!r}",
            field="covariate",
            value=covariate,
        )
    xs = (x - x.mean()) / x.std()
    v = _verdict_matrix(rng, quality, xs, 1.0, c, kappa)
    return SimulatedPairwise(quality, x, v, float(c), float(kappa), k, _true_top(quality, k))


def controlled_benchmark(
    n_items: int = 30,
    *,
    k: int = 5,
    statements: int = 6,
    bank_true: int = 12,
    bank_false: int = 12,
    max_corr: float = 0.12,
    scale: float = 0.5,
    c: float = 1.0,
    kappa: float = 0.35,
    seed: int | None = None,
) -> SimulatedPairwise:
    r"""The paper's controlled benchmark with a simulated biased judge.

    ``k`` items are fully correct (all ``statements`` drawn from the true bank); every
    other item draws :math:`1 + \text{Bin}(\text{statements} - 1, 0.25)` false
    statements (our choice: the paper gives the bank, not the mix), so quality
    :math:`= \#\text{true} - \#\text{false}` crowds just below the boundary.  A binary
    verbosity flag is assigned by a balanced shuffle, redrawn until
    :math:`|\text{corr}(\text{quality}, \text{verbosity})| <` ``max_corr``.  The judge
    prefers the first-shown item with probability
    :math:`\sigma(\text{scale}\,(q_a - q_b) + c (x_a - x_b) + \kappa)` on the
    standardised flag (:math:`\pm 1`), so with the defaults a verbose item one false
    statement short of perfect beats a terse perfect one.
    """
    rng = np.random.default_rng(seed)
    if statements > bank_true:
        raise InputError(
            "statements cannot exceed the true bank", field="statements", value=statements
        )
    n_false = np.zeros(n_items, dtype=int)
    n_false[k:] = 1 + rng.binomial(statements - 1, 0.25, n_items - k)
    n_false = np.minimum(n_false, bank_false)
    quality = (statements - n_false) - n_false
    perm = rng.permutation(n_items)
    quality = quality[perm].astype(float)
    for _ in range(10_000):
        x = rng.permutation(np.arange(n_items) % 2).astype(float)
        if abs(np.corrcoef(quality, x)[0, 1]) < max_corr:
            break
    else:  # pragma: no cover - practically unreachable for N >= 10
        raise RuntimeError("could not draw a verbosity flag uncorrelated with quality")
    xs = (x - x.mean()) / x.std()
    v = _verdict_matrix(rng, quality, xs, scale, c, kappa)
    return SimulatedPairwise(quality, x, v, float(c), float(kappa), k, _true_top(quality, k))


# ------------------------------------------------------------------ validator panels
