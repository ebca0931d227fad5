"""The pairwise data of a ranking (:class:`PairwiseData`) and its reader from arrays."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from judgebayes.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    pass


def log_length(words) -> np.ndarray:
    """The length covariate of the real-data analyses: ``log2(1 + words)``.

    Relative length (a doubling is one unit); raw word differences are heavy-tailed.
    """
    return np.log2(1.0 + np.asarray(words, dtype=float))


#: Name of the position coefficient (kappa) in every coefficient table.
POSITION = "position"


#: Tie policies: Davidson's model (default), dropped, or half a win (comparator only).
TIES = ("davidson", "drop", "half")


TIE_WORDS = frozenset({"", "tie", "draw", "none", "nan"})


@dataclass(frozen=True)
class PairwiseData:
    """Validated pairwise verdicts.

    Attributes
    ----------
    items : tuple of str
        Item ids; ``first``/``second`` index into it.
    first, second : ndarray of int
        Presentation order of each kept comparison.
    y : ndarray of float
        1.0 when the first-shown item won, 0.0 when the second did, 0.5 for a tie
        (with ``ties="davidson"`` or ``"half"``).
    judge : ndarray of int
        Index into ``judges``.
    judges : tuple of str
        Judge names (``("judge",)`` when there is no judge column).
    X : ndarray, shape (n, d)
        Standardised covariate differences :math:`x_a - x_b`.
    covariates : tuple of str
        Covariate names, in the column order of ``X``.
    scales : dict
        ``name -> (mean, sd, level)`` with level ``"item"`` or ``"comparison"``.
    item_X : ndarray, shape (n_items, d_item) or None
        Standardised item-level covariates (for residualisation and plots).
    n_ties : int
        Ties seen (modelled under ``ties="davidson"``, dropped under ``"drop"``, kept as
        1/2 under ``"half"``).
    ties : str
        The tie policy used.
    """

    items: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    y: np.ndarray
    judge: np.ndarray
    judges: tuple[str, ...]
    X: np.ndarray
    covariates: tuple[str, ...]
    scales: dict[str, tuple[float, float, str]] = field(default_factory=dict)
    item_X: np.ndarray | None = None
    n_ties: int = 0
    ties: str = "davidson"

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @functools.cached_property
    def components(self) -> np.ndarray:
        """Connected component of each item in the comparison graph (computed once)."""
        return component_labels(self.n_items, self.first, self.second)

    @property
    def n(self) -> int:
        """Number of kept comparisons."""
        return int(self.first.size)

    @property
    def has_ties(self) -> bool:
        """True when some kept verdict is a half win."""
        return bool(np.any((self.y > 0) & (self.y < 1)))

    def to_dataset(self):
        """The verdicts as an xarray Dataset (arrays as variables, the rest as JSON attrs),
        so a saved ranking fit carries them (:meth:`from_dataset` reads them back).
        """
        arrays = {
            "first": ("comparison", self.first),
            "second": ("comparison", self.second),
            "y": ("comparison", self.y),
            "judge": ("comparison", self.judge),
            "X": (("comparison", "covariate_column"), self.X),
        }
        if self.item_X is not None:
            arrays["item_X"] = (("item_row", "item_column"), self.item_X)
        meta = {
            "items": list(self.items),
            "judges": list(self.judges),
            "covariates": list(self.covariates),
            "scales": {k: list(v) for k, v in self.scales.items()},
            "n_ties": int(self.n_ties),
            "ties": self.ties,
        }
        return xr.Dataset(arrays, attrs={"pairwise_data": json.dumps(meta)})

    @classmethod
    def from_dataset(cls, ds) -> PairwiseData:
        """The :class:`PairwiseData` that :meth:`to_dataset` wrote."""
        meta = json.loads(ds.attrs["pairwise_data"])
        return cls(
            items=tuple(meta["items"]),
            first=ds["first"].values.astype(np.int64),
            second=ds["second"].values.astype(np.int64),
            y=ds["y"].values.astype(float),
            judge=ds["judge"].values.astype(np.int64),
            judges=tuple(meta["judges"]),
            X=np.asarray(ds["X"].values, float).reshape(ds.sizes["comparison"], -1),
            covariates=tuple(meta["covariates"]),
            scales={k: (v[0], v[1], v[2]) for k, v in meta["scales"].items()},
            item_X=ds["item_X"].values if "item_X" in ds else None,
            n_ties=meta["n_ties"],
            ties=meta["ties"],
        )

    def subset(self, mask: np.ndarray) -> PairwiseData:
        """The same data restricted to the comparisons where ``mask`` is true."""
        m = np.asarray(mask, dtype=bool)
        return PairwiseData(
            items=self.items,
            first=self.first[m],
            second=self.second[m],
            y=self.y[m],
            judge=self.judge[m],
            judges=self.judges,
            X=self.X[m],
            covariates=self.covariates,
            scales=self.scales,
            item_X=self.item_X,
            n_ties=int(np.sum((self.y[m] > 0) & (self.y[m] < 1))),
            ties=self.ties,
        )

    def without_covariates(self) -> PairwiseData:
        """The same verdicts with no covariates (for the naive model)."""
        return PairwiseData(
            items=self.items,
            first=self.first,
            second=self.second,
            y=self.y,
            judge=self.judge,
            judges=self.judges,
            X=np.zeros((self.n, 0)),
            covariates=(),
            scales={},
            item_X=None,
            n_ties=self.n_ties,
            ties=self.ties,
        )


# ------------------------------------------------------------------ construction
def _standardise(values: np.ndarray, name: str) -> tuple[np.ndarray, float, float]:
    values = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(values)):
        bad = values[~np.isfinite(values)][0]
        raise InputError(
            f"covariate {name!r}: {int(np.sum(~np.isfinite(values)))} missing or non-finite "
            f"value(s) (first: {float(bad)}); fill or drop them before fitting",
            field=name,
            value=float(bad),
        )
    mean = float(values.mean())
    sd = float(values.std())
    if not sd > 0:
        raise InputError(
            f"covariate {name!r} is constant ({mean!r}) and cannot be estimated; drop it",
            field=name,
            value=mean,
        )
    return (values - mean) / sd, mean, sd


def pairwise_from_arrays(
    first: ArrayLike,
    second: ArrayLike,
    y: ArrayLike,
    *,
    n_items: int | None = None,
    items: Sequence[Any] | None = None,
    item_covariates: dict[str, Sequence[float]] | None = None,
    comparison_covariates: dict[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    judge: ArrayLike | None = None,
    judges: Sequence[str] | None = None,
    ties: str = "davidson",
    standardise: bool = True,
) -> PairwiseData:
    """Build :class:`PairwiseData` from integer arrays (simulators, the active loop).

    ``y`` is 1 when ``first`` won, 0 when ``second`` won, 0.5 (or NaN) for a tie.
    ``item_covariates`` maps a name to one value per item; ``comparison_covariates``
    maps a name to the (first, second) values of each comparison.
    """
    fa = np.asarray(first, dtype=np.int64)
    sa = np.asarray(second, dtype=np.int64)
    yv = np.asarray(y, dtype=float)
    if not (fa.shape == sa.shape == yv.shape) or fa.ndim != 1:
        raise InputError(
            f"first/second/y must be 1-d of one length, got {fa.shape}, {sa.shape}, {yv.shape}",
            field="y",
            value=yv.shape,
        )
    if items is None:
        if n_items is None:
            n_items = int(max(fa.max(initial=-1), sa.max(initial=-1)) + 1)
        items = range(n_items)
    names_ = tuple(str(i) for i in items)
    n_items = len(names_)
    for name, arr in (("first", fa), ("second", sa)):
        bad = (arr < 0) | (arr >= n_items)
        if bad.any():
            raise InputError(
                f"column {name!r}: unknown item index {int(arr[bad][0])} "
                f"(items are 0..{n_items - 1})",
                field=name,
                value=int(arr[bad][0]),
            )
    same = fa == sa
    if same.any():
        i = int(np.flatnonzero(same)[0])
        raise InputError(
            f"comparison {i} compares item {names_[fa[i]]!r} with itself",
            field="second",
            value=names_[fa[i]],
        )
    if ties not in TIES:
        raise InputError(f"ties must be one of {TIES}, got {ties!r}", field="ties", value=ties)
    tie = np.isnan(yv) | (yv == 0.5)
    bad = ~tie & (yv != 0) & (yv != 1)
    if bad.any():
        raise InputError(
            f"column 'y': verdict {yv[bad][0]!r} is not 0, 1 or 0.5", field="y", value=yv[bad][0]
        )
    yv = np.where(tie, 0.5, yv)
    judge_arr, judges = _judges(judge, judges, fa.size)

    X, names, scales, item_X = _covariate_design(
        fa, sa, n_items, item_covariates, comparison_covariates, standardise
    )
    keep = ~tie if ties == "drop" else np.ones(fa.size, dtype=bool)
    return PairwiseData(
        items=names_,
        first=fa[keep],
        second=sa[keep],
        y=yv[keep],
        judge=judge_arr[keep],
        judges=judges,
        X=X[keep],
        covariates=names,
        scales=scales,
        item_X=item_X,
        n_ties=int(tie.sum()),
        ties=ties,
    )


def _covariate_design(first, second, n_items, item_covariates, comparison_covariates, standardise):
    """The comparisons' covariate differences (first minus second), their names and scales,
    and the items' own covariate columns.
    """
    cols, names, scales = [], [], {}
    item_cols = []
    for name, vals in (item_covariates or {}).items():
        vals = np.asarray(vals, dtype=float)
        if vals.shape != (n_items,):
            raise InputError(
                f"item covariate {name!r} has {vals.size} values for {n_items} items",
                field=name,
                value=vals.size,
            )
        if standardise:
            z, mean, sd = _standardise(vals, name)
        else:
            z, mean, sd = vals, 0.0, 1.0
        item_cols.append(z)
        cols.append(z[first] - z[second])
        names.append(name)
        scales[name] = (mean, sd, "item")
    for name, (va, vb) in (comparison_covariates or {}).items():
        va = np.asarray(va, dtype=float)
        vb = np.asarray(vb, dtype=float)
        if va.shape != first.shape or vb.shape != first.shape:
            raise InputError(
                f"comparison covariate {name!r} needs one value per comparison and side",
                field=name,
                value=(va.size, vb.size),
            )
        if standardise:
            z, mean, sd = _standardise(np.concatenate([va, vb]), name)
        else:
            z, mean, sd = np.concatenate([va, vb]), 0.0, 1.0
        cols.append(z[: first.size] - z[first.size :])
        names.append(name)
        scales[name] = (mean, sd, "comparison")
    X = np.column_stack(cols) if cols else np.zeros((first.size, 0))
    item_X = np.column_stack(item_cols) if item_cols else None
    return X, tuple(names), scales, item_X


def _judges(judge, judges, n: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each comparison's judge index and the judges' names (one judge when none given)."""
    if judge is None:
        judge_arr = np.zeros(n, dtype=np.int64)
        judges = tuple(judges) if judges is not None else ("judge",)
    else:
        judge_arr = np.asarray(judge, dtype=np.int64)
        if judges is None:
            judges = tuple(str(j) for j in range(int(judge_arr.max(initial=0)) + 1))
    return judge_arr, tuple(str(j) for j in judges)


def component_labels(n_items: int, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Connected component of each item in the comparison graph (labels 0, 1, ...)."""
    g = coo_matrix((np.ones(first.size), (first, second)), shape=(n_items, n_items))
    return connected_components(g, directed=False)[1]
