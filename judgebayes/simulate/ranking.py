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
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.inference.registry import check_count
from judgebayes.studies.ranking import PairwiseRanking

if TYPE_CHECKING:  # pragma: no cover
    pass


__all__ = [
    "SimulatedJudgedPairs",
    "SimulatedPairwise",
    "controlled_benchmark",
    "simulate_bt_judge",
    "simulate_favouring_judge",
    "simulate_judged_pairs",
]


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
        """Top-k recall of a selected set (indices or item ids):
        ``len(selected & true_top) / k``.
        """
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


# ------------------------------------------------------------------ judge-error channel
#: default confusion matrices (rows: human outcome first, second; columns: verdict): a
#: judge that favours the first-shown answer, and a symmetric one
_DEFAULT_CONFUSION_2 = np.array([[[0.9, 0.1], [0.3, 0.7]], [[0.8, 0.2], [0.2, 0.8]]])
_DEFAULT_CONFUSION_3 = np.array(
    [
        [[0.85, 0.1, 0.05], [0.25, 0.7, 0.05], [0.4, 0.3, 0.3]],
        [[0.75, 0.15, 0.1], [0.15, 0.75, 0.1], [0.25, 0.25, 0.5]],
    ]
)


@dataclass(frozen=True)
class SimulatedJudgedPairs:
    """Judge verdicts that are noisy copies of simulated human preferences.

    Attributes
    ----------
    theta : ndarray (N,)
        True qualities of the human preference (sum to zero unless given).
    nu : float or None
        Davidson's tie parameter (None: no ties).
    confusion : ndarray (J, K, K)
        True confusion matrices, rows the human outcome (first, second[, tie]).
    frame : DataFrame
        One row per judge verdict: ``instance, first, second, winner, judge, human``
        (``human`` is missing outside the labelled subset) and ``human_truth`` (every
        instance's human outcome: what a full human budget would have given).
    """

    theta: np.ndarray
    nu: float | None
    confusion: np.ndarray
    frame: object

    def ranking(self, **kwargs):
        """The :class:`~judgebayes.studies.ranking.PairwiseRanking` of the frame, with the
        human labels of the labelled subset.
        """
        return PairwiseRanking.from_frames(self.frame, human="human", instance="instance", **kwargs)


def simulate_judged_pairs(
    n_items: int = 6,
    n_instances: int = 600,
    *,
    labelled: float = 0.2,
    confusion=None,
    nu: float | None = None,
    spread: float = 1.0,
    theta=None,
    items=None,
    seed: int | None = None,
) -> SimulatedJudgedPairs:
    r"""Simulate the judge-error channel of :mod:`judgebayes.models.ranking.channel`.

    Each instance shows a random ordered pair; the human outcome follows Bradley-Terry
    (Davidson with ``nu``) on :math:`\theta \sim N(0, \text{spread}^2)` (centred); each
    judge's verdict is drawn from its row of ``confusion``; a random ``labelled`` share
    of the instances keeps its human label.

    Parameters
    ----------
    n_items, n_instances : int
        Items, and instances (random ordered pairs, each judged by every judge).
    labelled : float
        Share of instances whose human label is kept.
    confusion : array (J, K, K), optional
        Default: two judges, one favouring the first-shown answer (K = 2 without ties,
        3 with ``nu``).
    nu : float, optional
        Davidson's tie parameter; None (default) for no ties.
    spread : float
        Standard deviation of the true qualities (drawn, then centred).
    theta : array (n_items,), optional
        The true qualities instead (kept as given: simulation-based calibration).
    seed : int, optional
        Same seed, same data.
    items : sequence of str, optional
        Item ids (default ``"item0"``, ...).
    """
    rng = np.random.default_rng(seed)
    K = 2 if nu is None else 3
    conf = np.asarray(
        (_DEFAULT_CONFUSION_2 if K == 2 else _DEFAULT_CONFUSION_3)
        if confusion is None
        else confusion,
        dtype=float,
    )
    if conf.ndim != 3 or conf.shape[1:] != (K, K) or not np.allclose(conf.sum(-1), 1):
        raise InputError(
            f"confusion must be (judges, {K}, {K}) with rows summing to 1; got {conf.shape}",
            field="confusion",
            value=conf.shape,
        )
    ids = [f"item{i}" for i in range(n_items)] if items is None else [str(v) for v in items]
    if theta is None:
        theta = rng.normal(0.0, spread, n_items)
        theta -= theta.mean()
    else:
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (n_items,):
            raise InputError(
                f"theta needs one value per item ({n_items}), got {theta.shape}",
                field="theta",
                value=theta.shape,
            )
    a = rng.integers(0, n_items, n_instances)
    b = (a + rng.integers(1, n_items, n_instances)) % n_items
    eta = theta[a] - theta[b]
    cols = [eta / 2, -eta / 2] + ([np.full(n_instances, np.log(nu))] if K == 3 else [])
    u = np.column_stack(cols)
    p = np.exp(u - u.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    h = (rng.random(n_instances)[:, None] > np.cumsum(p, 1)).sum(1)
    lab = rng.random(n_instances) < labelled
    shown_a, shown_b = np.array(ids)[a], np.array(ids)[b]

    def words(code):
        return np.where(code == 0, shown_a, np.where(code == 1, shown_b, "tie"))

    human_truth = words(h)
    rows = []
    for j in range(conf.shape[0]):
        cp = np.cumsum(conf[j][h], axis=1)
        v = (rng.random(n_instances)[:, None] > cp).sum(1)
        rows.append(
            pd.DataFrame(
                {
                    "instance": np.arange(n_instances),
                    "first": shown_a,
                    "second": shown_b,
                    "winner": np.where(v == 2, "", words(v)),
                    "judge": f"judge{j}",
                    "human": pd.array(np.where(lab, human_truth, None), dtype="string"),
                    "human_truth": human_truth,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    return SimulatedJudgedPairs(theta=theta, nu=nu, confusion=conf, frame=frame)


def simulate_favouring_judge(
    n: int,
    *,
    override: float,
    labelled: float,
    quality: tuple[float, ...] = (0.0, 0.3, -0.2, 0.5, -0.4),
    agreement: float = 0.9,
    seed: int | None = None,
) -> pd.DataFrame:
    r"""A judge that favours the first item (``s0``) whatever the human preferred.

    Each comparison shows two different items in random order; the human outcome is
    Bradley-Terry on ``quality``; the judge copies it with probability ``agreement`` and
    then, in a comparison with ``s0``, picks ``s0`` with probability ``override`` (a judge
    that prefers the longer answer when ``s0``'s are always longer, or its own model
    family's); a random ``labelled`` share carries the human's pick.

    Returns
    -------
    DataFrame
        ``first, second, winner, human`` (blank where unlabelled).
    """
    from scipy.special import expit

    n = check_count(n, "n")
    rng = np.random.default_rng(seed)
    q = np.asarray(quality, dtype=float)
    k = q.size
    items = np.array([f"s{i}" for i in range(k)], dtype=object)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    hw = np.where(rng.random(n) < expit(q[a] - q[b]), a, b)
    jw = np.where(rng.random(n) < agreement, hw, np.where(hw == a, b, a))
    jw = np.where(((a == 0) | (b == 0)) & (rng.random(n) < override), 0, jw)
    human = np.where(rng.random(n) < labelled, items[hw], None)
    return pd.DataFrame(
        {"first": items[a], "second": items[b], "winner": items[jw], "human": human}
    )
