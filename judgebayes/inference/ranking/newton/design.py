"""The Bradley-Terry design: comparisons (or their counts) as the rows of a logistic
regression on the systems' strengths and the bias covariates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from judgebayes.data.ranking import POSITION, PairwiseData, difference_matrix
from judgebayes.errors import InputError

#: Name of the Davidson tie parameter (log nu) in the design's bias columns.
TIE_PARAM = "log_nu"


@dataclass(frozen=True)
class BTDesign:
    """Sparse design matrix and prior precisions of one Gaussian Bradley-Terry model.

    Attributes
    ----------
    Z : scipy.sparse.csr_matrix, shape (n, n_items + n_bias)
    y : ndarray
    prec : ndarray
        Diagonal prior precision (length ``n_items + n_bias``).
    n_items : int
    bias_names : list of str
        Names of the bias columns, e.g. ``"length"``, ``"position"``,
        ``"length|judgeA"`` (deviation of judge A from the shared coefficient).
    bias_level : ndarray of str
        ``"shared"`` or ``"judge"`` per bias column.
    """

    Z: Any  # a scipy.sparse matrix
    y: np.ndarray
    prec: np.ndarray
    n_items: int
    bias_names: list[str]
    bias_level: np.ndarray = field(default_factory=lambda: np.array([]))
    davidson: bool = False
    #: frequency weight of each row (``None``: 1): a row of collapsed counts stands for
    #: ``w`` comparisons with win share ``y`` (the binomial likelihood up to a constant)
    w: np.ndarray | None = None
    #: the rows' (first, second) items and dense bias features, when every row is one
    #: item difference plus ``F``'s columns (one judge): the Hessian is then assembled by
    #: ``bincount`` in O(n) instead of a sparse ``Z^T W Z`` (faster on large logs)
    pairs: tuple[np.ndarray, np.ndarray] | None = None
    F: np.ndarray | None = None

    @property
    def n_params(self) -> int:
        r"""Length of beta (the Davidson model's :math:`\log\nu` last)."""
        return int(self.prec.size)


def bt_design(
    data: PairwiseData,
    *,
    bias: bool = True,
    position: bool = True,
    lam: float = 1.0,
    lam_b: float = 0.1,
    lam_judge: float = 4.0,
    lam_nu: float = 0.25,
) -> BTDesign:
    r"""The design of the naive (``bias=False``) or bias-aware model for ``data``.

    Parameters
    ----------
    data : PairwiseData
        Verdicts and covariate differences.
    bias : bool
        Add the bias columns (covariates and position); ``False`` is naive BT.
    position : bool
        Include the position term kappa.
    lam : float
        Prior precision of theta (``theta ~ N(0, 1/lam)``); must be > 0.
    lam_b : float
        Prior precision of the shared bias coefficients (0.1 in the paper).
    lam_judge : float
        Prior precision of each judge's deviation from the shared coefficients (used
        only with several judges; 4 means deviations of about +-0.5 logit).
    lam_nu : float
        Prior precision of :math:`\log\nu` under the Davidson tie model (used when
        ``data.ties == "davidson"`` and some verdict is a tie; 0.25 means sd 2).
    """
    if not lam > 0:
        raise InputError(
            f"lam must be > 0 (it identifies theta), got {lam!r}", field="lam", value=lam
        )
    if bias and not lam_b > 0:
        raise InputError(f"lam_b must be > 0, got {lam_b!r}", field="lam_b", value=lam_b)
    n, N = data.n, data.n_items
    blocks = [difference_matrix(data)]
    prec = [np.full(N, float(lam))]
    names: list[str] = []
    level: list[str] = []
    if bias:
        F = data.X
        fnames = list(data.covariates)
        if position:
            F = np.column_stack([F, np.ones(n)])
            fnames.append(POSITION)
        P = F.shape[1]
        if P:
            blocks.append(sparse.csr_matrix(F))
            prec.append(np.full(P, float(lam_b)))
            names += fnames
            level += ["shared"] * P
            J = len(data.judges)
            if J > 1:
                # judge deviations: F placed in the judge's own block
                r = np.repeat(np.arange(n), P)
                c = (data.judge[:, None] * P + np.arange(P)[None, :]).ravel()
                Fj = sparse.csr_matrix((F.ravel(), (r, c)), shape=(n, J * P))
                blocks.append(Fj)
                prec.append(np.full(J * P, float(lam_judge)))
                names += [f"{f}|{j}" for j in data.judges for f in fnames]
                level += ["judge"] * (J * P)
    davidson = data.ties == "davidson" and data.has_ties
    if davidson:
        prec.append(np.array([float(lam_nu)]))
        names.append(TIE_PARAM)
        level.append("tie")
    Z = sparse.hstack(blocks, format="csr")
    simple = "judge" not in level
    F_dense = F if bias else np.zeros((n, 0))  # (n, P): covariates, then position
    return BTDesign(
        Z,
        data.y.astype(float),
        np.concatenate(prec),
        N,
        names,
        np.array(level),
        davidson,
        pairs=(data.first, data.second) if simple else None,
        F=np.ascontiguousarray(F_dense, dtype=float) if simple else None,
    )


def collapse_pairs(
    first: np.ndarray,
    second: np.ndarray,
    y: np.ndarray,
    n_items: int,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Win counts per ordered pair: ``(first, second, wins, total)`` over the distinct
    (first, second) pairs; a tie (y = 0.5 or NaN) counts half a win, as in the naive model.
    ``weights``: how many comparisons each row stands for (default one each).
    """
    key = first.astype(np.int64) * n_items + second
    uniq, inv = np.unique(key, return_inverse=True)
    w = np.ones(key.size) if weights is None else np.asarray(weights, dtype=float)
    total = np.bincount(inv, weights=w)
    wins = np.bincount(inv, weights=w * np.where(np.isnan(y), 0.5, y))
    return uniq // n_items, uniq % n_items, wins, total


def bt_design_from_counts(
    counts,
    *,
    first: str = "first",
    second: str = "second",
    ties: str = "half",
    items=None,
    lam: float = 1.0,
) -> tuple[BTDesign, tuple[str, ...]]:
    r"""Naive Bradley-Terry on a win-count frame (:func:`judgebayes.data.large.reduce_pairs`).

    Rows of several judges are pooled (naive BT has no judge term).  ``ties="half"``
    counts a tie as half a win, as :func:`bt_design` does for ``ties="half"`` data;
    ``"drop"`` leaves ties out.  The design has one weighted row per ordered pair, so
    :func:`fit_map` gives the mode and Hessian of the model on every row of the log.

    Parameters
    ----------
    counts : DataFrame
        ``first``, ``second``, ``n_first``, ``n_second``, ``n_tie`` columns.
    first, second : str
        Item columns.
    ties : {"half", "drop"}
        Tie handling.
    items : sequence of str, optional
        Item order (default: sorted ids that appear).
    lam : float
        Prior precision of theta.

    Returns
    -------
    (BTDesign, tuple of str)
        The design and the item ids its columns follow.
    """
    if ties not in ("half", "drop"):
        raise InputError(
            f"ties must be 'half' or 'drop' for naive BT on counts; got {ties!r}",
            field="ties",
            value=ties,
        )
    for col in (first, second, "n_first", "n_second", "n_tie"):
        if col not in counts.columns:
            raise InputError(
                f"the counts frame has no column {col!r} (reduce_pairs writes it)",
                field=col,
                value=None,
            )
    a = counts[first].astype(str).to_numpy()
    b = counts[second].astype(str).to_numpy()
    ids = tuple(sorted(set(a) | set(b))) if items is None else tuple(map(str, items))
    index = {v: i for i, v in enumerate(ids)}
    unknown = sorted((set(a) | set(b)) - set(index))
    if unknown:
        raise InputError(
            f"item {unknown[0]!r} of the counts is not in items", field="items", value=unknown[0]
        )
    fi = np.array([index[v] for v in a], dtype=np.int64)
    si = np.array([index[v] for v in b], dtype=np.int64)
    nf, ns, nt = (counts[c].to_numpy(dtype=float) for c in ("n_first", "n_second", "n_tie"))
    if ties == "drop":
        nt = np.zeros_like(nt)
    total = nf + ns + nt
    share = np.divide(nf + 0.5 * nt, total, out=np.zeros_like(total), where=total > 0)
    # judges pooled: one row per ordered pair
    f, s, wins, total = collapse_pairs(fi, si, share, len(ids), weights=total)
    keep = total > 0  # a pair seen only in ties, with ties dropped
    return bt_counts_design(f[keep], s[keep], wins[keep], total[keep], len(ids), lam=lam), ids


def bt_counts_design(
    first: np.ndarray,
    second: np.ndarray,
    wins: np.ndarray,
    total: np.ndarray,
    n_items: int,
    *,
    lam: float = 1.0,
) -> BTDesign:
    r"""Naive Bradley-Terry on collapsed win counts: one weighted row per ordered pair.

    The likelihood of :math:`w` comparisons of one pair with win share :math:`\bar y` is
    :math:`w[\operatorname{softplus}(\eta) - \bar y\eta]` up to a constant, so the mode,
    Hessian and Laplace posterior equal those of the model on every row, at the cost of
    the distinct pairs (at most :math:`n^2`) instead of the comparisons.
    """
    if not lam > 0:
        raise InputError(f"lam must be > 0, got {lam!r}", field="lam", value=lam)
    m = first.size
    rows = np.repeat(np.arange(m), 2)
    cols = np.column_stack([first, second]).ravel()
    vals = np.tile([1.0, -1.0], m)
    Z = sparse.csr_matrix((vals, (rows, cols)), shape=(m, n_items))
    share = np.divide(wins, total, out=np.zeros_like(wins, dtype=float), where=total > 0)
    return BTDesign(
        Z,
        share,
        np.full(n_items, float(lam)),
        n_items,
        [],
        np.array([]),
        False,
        w=total,
        pairs=(np.asarray(first, np.int64), np.asarray(second, np.int64)),
        F=np.zeros((m, 0)),
    )
