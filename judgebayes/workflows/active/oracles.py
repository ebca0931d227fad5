"""Who answers an active ranking's queries (a verdict matrix, or a callable), and which
pair to ask next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import expit

from judgebayes.errors import InputError
from judgebayes.inference.ranking.topk import binary_entropy

RULES = (
    "topk",
    "topk_quality",
    "global",
    "entropy",
    "no_variance",
    "no_informativeness",
    "round_robin",
    "random",
)


class MatrixOracle:
    """Offline judge: ``verdicts[a, b]`` is 1 when ``a`` shown first beats ``b``.

    Entries that are not 0 or 1 (e.g. -1 on the diagonal, NaN for a missing verdict)
    are ties/missing and returned as NaN.
    """

    def __init__(self, verdicts: np.ndarray):
        v = np.asarray(verdicts, dtype=float)
        if v.ndim != 2 or v.shape[0] != v.shape[1]:
            raise InputError(
                f"verdict matrix must be square, got shape {v.shape}",
                field="verdicts",
                value=v.shape,
            )
        self.verdicts = v
        self.n_items = v.shape[0]

    def __call__(self, first: int, second: int) -> float:
        """Verdict for ``first`` shown first."""
        y = self.verdicts[first, second]
        return float(y) if y in (0.0, 1.0) else float("nan")


class CallableOracle:
    """Online judge: ``judge(first, second)`` returns 1 (first preferred), 0, or None/0.5 (tie)."""

    def __init__(self, judge: Callable[[int, int], Any], n_items: int):
        self.judge = judge
        self.n_items = int(n_items)

    def __call__(self, first: int, second: int) -> float:
        """Ask the judge."""
        y = self.judge(int(first), int(second))
        if y is None:
            return float("nan")
        y = float(y)
        if y not in (0.0, 0.5, 1.0):
            raise InputError(
                f"the judge returned {y!r} for ({first}, {second}); expected 1, 0 or a tie",
                field="verdict",
                value=y,
            )
        return float("nan") if y == 0.5 else y


def acquisition_scores(
    rule: str,
    theta: np.ndarray,
    cov: np.ndarray,
    p_top: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    *,
    offset: np.ndarray | None = None,
    kappa: float = 0.0,
) -> np.ndarray:
    r"""Score of each candidate pair ``(i[r], j[r])`` under a score-based ``rule``.

    ``offset`` is the per-item bias term :math:`\hat c^\top x_i` and ``kappa`` the position
    term; both enter the information factor of every rule but ``"topk_quality"``.
    """
    d = theta[i] - theta[j]
    if rule == "topk_quality" or offset is None:
        full = d
    else:
        full = d + offset[i] - offset[j]
    if rule == "topk_quality":
        kappa = 0.0
    pp, pm_ = expit(full + kappa), expit(full - kappa)
    info = 0.5 * (pp * (1 - pp) + pm_ * (1 - pm_))
    var = np.maximum(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0)
    h = binary_entropy(p_top)
    bound = h[i] + h[j]
    if rule in ("topk", "topk_quality"):
        return info * var * bound
    if rule == "global":
        return info * var
    if rule == "entropy":
        return bound
    if rule == "no_variance":
        return info * bound
    if rule == "no_informativeness":
        return var * bound
    raise InputError(f"rule {rule!r} has no score", field="rule", value=rule)


def _round_robin_pairs(n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """All unordered pairs as rounds of a round-robin tournament (circle method)."""
    players = list(rng.permutation(n))
    if n % 2:
        players.append(-1)
    m = len(players)
    out: list[tuple[int, int]] = []
    for _ in range(m - 1):
        rnd = [(players[t], players[m - 1 - t]) for t in range(m // 2)]
        rnd = [(min(a, b), max(a, b)) for a, b in rnd if a >= 0 and b >= 0]
        out += [rnd[t] for t in rng.permutation(len(rnd))]
        players = [players[0], players[-1], *players[1:-1]]
    return out
