r"""Pairwise comparison data: validation, covariate standardisation and identifiability.

Everything a pairwise ranking model needs leaves this module as a :class:`PairwiseData`:
integer item indices in presentation order, the verdict :math:`y` (1 when the
first-shown item won, 0 when the second did, 1/2 for a tie counted as half a win),
the judge index and the matrix of covariate *differences* :math:`x_a - x_b` on the
package's standardised scale.

Input contract (``PairwiseRanking.from_frames``)
-----------------------------------------------
comparisons : first, second (item ids in presentation order), winner (id of the
    preferred item; empty or ``"tie"`` for a tie); optional ``judge`` column; optional
    per-comparison covariates as ``<name>_first`` / ``<name>_second`` columns.
items : ``item`` plus item-level covariate columns (optional when every covariate is
    per comparison).

Ties default to ``ties="davidson"``: kept, and modelled as a third outcome by
Davidson's (1970) tie model (:mod:`judgebayes.inference.ranking.newton`).
``ties="drop"`` drops them (counted in ``n_ties``); ``ties="half"`` keeps them as half a
win for each side, which is not a probability model and is offered only as the
comparator practitioners use.  Unknown item ids, self-comparisons, winners
that are neither shown item, constant covariates and missing covariate values are
:class:`~judgebayes.errors.InputError`\ s naming the column and the value.

Standardisation: an item-level covariate is centred and scaled by its mean and standard
deviation over the items; a per-comparison covariate by the mean and standard deviation
of all shown responses (both columns pooled).  The scale is kept in
``PairwiseData.scales`` so that a coefficient can be reported per raw unit
(``c / sd``).
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import lsqr

from judgebayes.data.frames import as_pandas, distinct_roles, numeric_column
from judgebayes.errors import IdentifiabilityWarning, InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "POSITION",
    "IdentifiabilityReport",
    "IdentifiabilityWarning",
    "PairwiseData",
    "component_labels",
    "difference_matrix",
    "identifiability_report",
    "log_length",
    "pairwise_from_arrays",
    "pairwise_from_frames",
]


def log_length(words) -> np.ndarray:
    """The length covariate of the real-data analyses: ``log2(1 + words)``.

    Relative length (a doubling is one unit); raw word differences are heavy-tailed.
    """
    return np.log2(1.0 + np.asarray(words, dtype=float))


#: Name of the position coefficient (kappa) in every coefficient table.
POSITION = "position"
#: Tie policies: Davidson's model (default), dropped, or half a win (comparator only).
TIES = ("davidson", "drop", "half")
_TIE_WORDS = frozenset({"", "tie", "draw", "none", "nan"})


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
    first: Sequence[int],
    second: Sequence[int],
    y: Sequence[float],
    *,
    n_items: int | None = None,
    items: Sequence[str] | None = None,
    item_covariates: dict[str, Sequence[float]] | None = None,
    comparison_covariates: dict[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    judge: Sequence[int] | None = None,
    judges: Sequence[str] | None = None,
    ties: str = "davidson",
    standardise: bool = True,
) -> PairwiseData:
    """Build :class:`PairwiseData` from integer arrays (simulators, the active loop).

    ``y`` is 1 when ``first`` won, 0 when ``second`` won, 0.5 (or NaN) for a tie.
    ``item_covariates`` maps a name to one value per item; ``comparison_covariates``
    maps a name to the (first, second) values of each comparison.
    """
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    yv = np.asarray(y, dtype=float)
    if not (first.shape == second.shape == yv.shape) or first.ndim != 1:
        raise InputError(
            f"first/second/y must be 1-d of one length, got {first.shape}, {second.shape}, "
            f"{yv.shape}",
            field="y",
            value=yv.shape,
        )
    if items is None:
        if n_items is None:
            n_items = int(max(first.max(initial=-1), second.max(initial=-1)) + 1)
        items = tuple(str(i) for i in range(n_items))
    items = tuple(str(i) for i in items)
    n_items = len(items)
    for name, arr in (("first", first), ("second", second)):
        bad = (arr < 0) | (arr >= n_items)
        if bad.any():
            raise InputError(
                f"column {name!r}: unknown item index {int(arr[bad][0])} "
                f"(items are 0..{n_items - 1})",
                field=name,
                value=int(arr[bad][0]),
            )
    same = first == second
    if same.any():
        i = int(np.flatnonzero(same)[0])
        raise InputError(
            f"comparison {i} compares item {items[first[i]]!r} with itself",
            field="second",
            value=items[first[i]],
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
    if judge is None:
        judge_arr = np.zeros(first.size, dtype=np.int64)
        judges = tuple(judges) if judges is not None else ("judge",)
    else:
        judge_arr = np.asarray(judge, dtype=np.int64)
        if judges is None:
            judges = tuple(str(j) for j in range(int(judge_arr.max(initial=0)) + 1))
    judges = tuple(str(j) for j in judges)

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
    keep = ~tie if ties == "drop" else np.ones(first.size, dtype=bool)
    return PairwiseData(
        items=items,
        first=first[keep],
        second=second[keep],
        y=yv[keep],
        judge=judge_arr[keep],
        judges=judges,
        X=X[keep],
        covariates=tuple(names),
        scales=scales,
        item_X=item_X,
        n_ties=int(tie.sum()),
        ties=ties,
    )


def _col(df, name: str, where: str):
    if name not in df.columns:
        raise InputError(
            f"{where} has no column {name!r} (columns: {list(df.columns)})",
            field=name,
            value=None,
        )
    return df[name]


def _clean(value) -> str:
    """One id as its stripped text; a whole number read as a float is written without
    ``.0`` (a blank winner makes pandas read an id column as float: ``1.0`` is item ``1``).
    """
    if isinstance(value, float | np.floating) and np.isfinite(value) and value == np.round(value):
        return str(int(value))
    return str(value).strip()


def _ids(col) -> pd.Series:
    """Item ids as stripped strings (``None`` where missing), cleaned once per distinct
    value (:func:`_clean`), so a column of millions of rows costs one hash pass.
    """
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    labels = np.array([*(_clean(u) for u in uniques), None], dtype=object)
    return pd.Series(labels[codes], index=col.index, dtype=object)


def outcome_codes(values, a, b, field: str, *, blank: str = "tie", tie_words=_TIE_WORDS):
    """Outcome codes of a winner column against the shown items ``a``, ``b`` (strings):
    0 the first-shown item, 1 the second, 2 a tie, -1 no verdict.

    ``blank`` says what a missing or empty value is: ``"tie"`` (the pairwise contract's
    winner column) or ``"missing"`` (a human-preference column, where empty means nobody
    labelled the comparison).  Anything else that names neither shown item nor a tie word
    is an :class:`InputError` naming the row.
    """
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    labels = [_clean(u) for u in uniques]
    is_tie = np.array([*(lab.lower() in tie_words for lab in labels), False])
    is_empty = np.array([*(lab == "" for lab in labels), True])
    sv = np.array([*labels, ""], dtype=object)[codes]
    empty, tie = is_empty[codes], is_tie[codes]
    won_a, won_b = sv == a, sv == b
    bad = ~(won_a | won_b | tie | empty)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        hint = (
            "leave it empty or write 'tie' for a tie"
            if blank == "tie"
            else "write 'tie' for a tie, or leave it empty where nobody labelled the pair"
        )
        raise InputError(
            f"column {field!r}: winner {str(sv[r])!r} in row {r} is neither shown item "
            f"({str(a[r])!r}, {str(b[r])!r}); {hint}",
            field=field,
            value=str(sv[r]),
        )
    blank_code = 2 if blank == "tie" else -1
    return np.where(won_a, 0, np.where(won_b, 1, np.where(tie, 2, blank_code))).astype(np.int64)


@dataclass(frozen=True)
class ParsedPairs:
    """The comparisons frame's shared columns, read once: the shown items (codes into
    ``labels``, the distinct ids as cleaned strings), the winner's outcome code
    (:func:`outcome_codes`) and the judges.

    Both readers of a comparisons frame (:func:`pairwise_from_frames` and
    :func:`judgebayes.data.channel.channel_from_frames`) take it, so a study built from one
    frame parses its columns once.
    """

    first_code: np.ndarray
    second_code: np.ndarray
    labels: np.ndarray
    outcome: np.ndarray
    judges: tuple[str, ...] | None
    judge: np.ndarray | None
    columns: dict[str, str | None]

    @property
    def first(self) -> np.ndarray:
        """The first-shown item's id on every row."""
        return self.labels[self.first_code]

    @property
    def second(self) -> np.ndarray:
        """The second-shown item's id on every row."""
        return self.labels[self.second_code]

    def codes_in(self, items) -> tuple[np.ndarray, np.ndarray]:
        """(first, second) as indices into ``items`` (-1 where an id is not among them)."""
        lut = np.append(pd.Index(items).get_indexer(self.labels), -1)
        return lut[self.first_code], lut[self.second_code]


def parse_pairs(
    comparisons,
    *,
    first: str = "first",
    second: str = "second",
    winner: str = "winner",
    judge: str | None = None,
) -> ParsedPairs:
    """Read ``first``, ``second``, ``winner`` and ``judge`` (default: a ``"judge"`` column
    when there is one) of a comparisons frame, with one typed error per bad cell.  The two
    id columns are hashed in one pass and each distinct id cleaned once (:func:`_clean`).
    """
    df = as_pandas(comparisons, "comparisons")
    if len(df) == 0:
        raise InputError("comparisons is empty", field="comparisons", value=0)
    distinct_roles({"first": first, "second": second, "winner": winner}, {"judge": judge})
    cols = [_col(df, name, "comparisons") for name in (first, second)]
    n = len(df)
    codes, uniques = pd.factorize(
        np.concatenate([c.to_numpy(dtype=object) for c in cols]), use_na_sentinel=True
    )
    cleaned = np.array([_clean(u) for u in uniques], dtype=object)
    labels, relabel = np.unique(cleaned, return_inverse=True) if len(cleaned) else (cleaned, [])
    relabel = np.append(np.asarray(relabel, np.int64), -1)  # -1: a missing id
    empty = np.append(labels == "", True)
    codes = relabel[codes]
    for k, name in enumerate((first, second)):
        part = codes[k * n : (k + 1) * n]
        missing = empty[part]
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise InputError(
                f"column {name!r}: missing item id in row {row}", field=name, value=None
            )
    fc, sc = codes[:n], codes[n:]
    code = outcome_codes(_col(df, winner, "comparisons"), labels[fc], labels[sc], winner)
    if judge is None and "judge" in df.columns:
        judge = "judge"
    judge_idx, judge_names = None, None
    if judge is not None:
        jcol = _col(df, judge, "comparisons")
        if jcol.isna().any():
            raise InputError(f"column {judge!r}: missing judge name", field=judge, value=None)
        jc, uniques = pd.factorize(jcol.astype(str), sort=True)
        judge_names, judge_idx = tuple(uniques), jc.astype(np.int64)
    columns = {"first": first, "second": second, "winner": winner, "judge": judge}
    return ParsedPairs(fc, sc, labels, code, judge_names, judge_idx, columns)


def pairwise_from_frames(
    comparisons: pd.DataFrame,
    items: pd.DataFrame | None = None,
    *,
    covariates: Sequence[str] = (),
    first: str = "first",
    second: str = "second",
    winner: str = "winner",
    judge: str | None = None,
    item: str = "item",
    ties: str = "davidson",
    parsed: ParsedPairs | None = None,
) -> PairwiseData:
    """Validate the comparisons/items frames of the DESIGN contract.

    Parameters
    ----------
    comparisons : DataFrame
        ``first``, ``second``, ``winner`` (and optionally ``judge``) columns; a covariate
        named ``c`` may be given per comparison as ``c_first`` / ``c_second``.
    items : DataFrame, optional
        ``item`` and item-level covariate columns.  Items that never appear in a
        comparison are kept (they get the prior); ids in the comparisons that are not in
        this table are an error.
    first, second, winner, item : str
        Column names (defaults as in the contract).
    covariates : sequence of str
        Covariates to model; each is looked up first as item columns, then as
        ``<name>_first``/``<name>_second`` comparison columns.
    judge : str, optional
        Judge column; when ``None`` a column named ``"judge"`` is used if present.
    ties : {"davidson", "drop", "half"}
        What to do with ties (empty winner or ``"tie"``): Davidson's tie model (default),
        dropped (counted in ``n_ties``), or half a win (comparator only).
    parsed : ParsedPairs, optional
        The frame's shared columns already read (:func:`parse_pairs`).

    Raises
    ------
    InputError
        Unknown item ids, self-comparisons, a winner that was not shown, missing
        columns, constant or missing covariate values, duplicate item ids.
    """
    comparisons = as_pandas(comparisons, "comparisons")
    items = as_pandas(items, "items", optional=True)
    if isinstance(covariates, str):  # one name, not its letters
        covariates = [covariates]
    if parsed is None:
        parsed = parse_pairs(comparisons, first=first, second=second, winner=winner, judge=judge)
    if items is not None:
        ids = _ids(_col(items, item, "items"))
        dup = ids[ids.duplicated()]
        if len(dup):
            raise InputError(
                f"items column {item!r}: duplicate id {dup.iloc[0]!r}",
                field=item,
                value=dup.iloc[0],
            )
        item_ids = tuple(str(v) for v in ids)
    else:
        used = np.unique(np.concatenate([parsed.first_code, parsed.second_code]))
        item_ids = tuple(parsed.labels[used].tolist())  # sorted: the labels are
    fi, si = parsed.codes_in(item_ids)
    for name, code, idx in ((first, parsed.first_code, fi), (second, parsed.second_code, si)):
        if (idx < 0).any():
            unknown = sorted(set(parsed.labels[code[idx < 0]].tolist()))
            raise InputError(
                f"column {name!r}: unknown item id {unknown[0]!r} "
                f"({len(unknown)} id(s) not in the items table)",
                field=name,
                value=unknown[0],
            )
    code = parsed.outcome
    y = np.where(code == 0, 1.0, np.where(code == 1, 0.0, np.nan))
    judge_idx, judge_names = parsed.judge, parsed.judges

    item_cov: dict[str, Any] = {}
    comp_cov: dict[str, Any] = {}
    for name in covariates:
        if items is not None and name in items.columns:
            item_cov[name] = numeric_column(items[name], name)
        elif f"{name}_first" in comparisons.columns and f"{name}_second" in comparisons.columns:
            va = numeric_column(comparisons[f"{name}_first"], f"{name}_first")
            vb = numeric_column(comparisons[f"{name}_second"], f"{name}_second")
            comp_cov[name] = (va, vb)
        else:
            raise InputError(
                f"covariate {name!r} is neither an items column nor a pair of comparison "
                f"columns {name}_first/{name}_second",
                field=name,
                value=None,
            )
    return pairwise_from_arrays(
        fi,
        si,
        y,
        items=item_ids,
        item_covariates=item_cov,
        comparison_covariates=comp_cov,
        judge=judge_idx,
        judges=judge_names,
        ties=ties,
    )


# ------------------------------------------------------------------ identifiability
@dataclass(frozen=True)
class IdentifiabilityReport:
    r"""What the design (not the prior) can identify.

    Attributes
    ----------
    components : int
        Connected components of the comparison graph (quality differences between
        components are identified only by the prior).
    position_in_likelihood : bool
        Whether kappa is identified by the likelihood (the constant column is not a
        combination of item differences: a pair seen in both orders, or a cycle).
    covariate_in_likelihood : dict
        Per covariate, whether its coefficient is identified by the likelihood.  An
        item-level covariate never is: :math:`\theta_i + c x_i` is all the verdicts
        see, so :math:`c` is identified by the prior's independence of quality and
        covariate (the paper's Assumption 1), with an uncertainty that does not shrink
        with more comparisons.
    both_orders_pairs : int
        Unordered pairs seen in both presentation orders.
    same_level, cross_level : dict
        For binary item covariates: comparisons within a level and across levels
        (Prop. 2 (i)-(ii) of Xu et al.).
    problems : list of str
        Conditions that leave a parameter to the prior; empty when all is well.
    position_confounding : float
        Share of the position column explained by item differences (an R^2): about
        N/n under random presentation order, 1 when kappa is not identified.
    """

    components: int
    position_in_likelihood: bool
    covariate_in_likelihood: dict[str, bool]
    both_orders_pairs: int
    same_level: dict[str, int]
    cross_level: dict[str, int]
    problems: list[str]
    position_confounding: float = 0.0

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems


def component_labels(n_items: int, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Connected component of each item in the comparison graph (labels 0, 1, ...)."""
    g = coo_matrix((np.ones(first.size), (first, second)), shape=(n_items, n_items))
    return connected_components(g, directed=False)[1]


def difference_matrix(data: PairwiseData):
    """Sparse (n, n_items) matrix with +1 at the first-shown and -1 at the second item."""
    n = data.n
    rows = np.repeat(np.arange(n), 2)
    cols = np.column_stack([data.first, data.second]).ravel()
    return csr_matrix((np.tile([1.0, -1.0], n), (rows, cols)), shape=(n, data.n_items))


def _explained_by_differences(data: PairwiseData, col: np.ndarray) -> float:
    """Share of ``col``'s sum of squares explained by item differences ``D v`` (an R^2).

    1 means the column is a combination of item-difference columns, so its coefficient
    is not identified by the likelihood at all.
    """
    D = difference_matrix(data)
    sol = lsqr(D, col, atol=1e-12, btol=1e-12, iter_lim=20 * data.n_items + 200)[0]
    resid = col - D @ sol
    total = float(col @ col)
    return 1.0 - float(resid @ resid) / total if total > 0 else 1.0


def identifiability_report(data: PairwiseData, *, position: bool = True) -> IdentifiabilityReport:
    """Check which parameters the design identifies (Prop. 2 of Xu et al., made exact).

    The paper's conditions (i) same-covariate comparisons, (ii) a cross-covariate
    comparison and (iii) both presentation orders are reported for binary item
    covariates; the exact statement is a rank condition, checked per column: a
    coefficient is identified by the likelihood iff its column of the design is not a
    combination of the item-difference columns.  ``position=False`` (a model without the
    position term) skips its check.
    """
    problems: list[str] = []
    if data.n == 0:
        return IdentifiabilityReport(
            data.n_items, False, dict.fromkeys(data.covariates, False), 0, {}, {},
            ["there are no comparisons"],
        )  # fmt: skip
    comps = int(data.components.max(initial=-1) + 1)
    if comps > 1:
        problems.append(
            f"the comparison graph has {comps} disconnected parts: quality differences "
            "between them are set by the prior alone"
        )
    n = data.n_items
    fwd = np.unique(data.first.astype(np.int64) * n + data.second)
    both = int(np.isin(fwd, (fwd % n) * n + fwd // n).sum() // 2)
    pos_r2 = _explained_by_differences(data, np.ones(data.n)) if position else 0.0
    pos_ok = pos_r2 < 1 - 1e-9
    if not pos_ok:
        problems.append(
            "presentation position is confounded with quality (which items are shown "
            "first explains the position term exactly): kappa is set by its prior; "
            "randomise the presentation order"
        )
    elif pos_r2 >= 0.5 and both == 0:
        problems.append(
            f"presentation order is not random ({100 * pos_r2:.0f}% of the position term "
            "is explained by which items are shown first, and no pair is seen in both "
            "orders): kappa is only weakly identified; randomise the presentation order"
        )
    cov_ok: dict[str, bool] = {}
    same: dict[str, int] = {}
    cross: dict[str, int] = {}
    for m, name in enumerate(data.covariates):
        col = data.X[:, m]
        level = data.scales.get(name, (0, 1, "comparison"))[2]
        if not np.any(np.abs(col) > 1e-12):
            problems.append(
                f"covariate {name!r} never differs between the two shown items: its "
                "coefficient is set by its prior"
            )
            cov_ok[name] = False
            continue
        cov_ok[name] = level == "comparison" and _explained_by_differences(data, col) < 1 - 1e-9
        if level == "item" and data.item_X is not None:
            k = [c for c in data.covariates if data.scales[c][2] == "item"].index(name)
            xi = data.item_X[:, k]
            if np.unique(np.round(xi, 12)).size == 2:
                eq = np.isclose(xi[data.first], xi[data.second])
                same[name] = int(eq.sum())
                cross[name] = int((~eq).sum())
                levels = np.unique(np.round(xi, 12))
                for lv in levels:
                    within = eq & np.isclose(xi[data.first], lv)
                    if not within.any():
                        problems.append(
                            f"covariate {name!r}: no comparison within one of its levels "
                            "(Prop. 2 (i)); quality inside that level is only compared "
                            "through the covariate"
                        )
                        break
    return IdentifiabilityReport(comps, pos_ok, cov_ok, both, same, cross, problems, pos_r2)


def warn_identifiability(data: PairwiseData, *, position: bool = True) -> IdentifiabilityReport:
    """Run :func:`identifiability_report` and warn once with its problems."""
    rep = identifiability_report(data, position=position)
    problems = rep.problems if position else [p for p in rep.problems if "kappa" not in p]
    if problems:
        warnings.warn(
            "identifiability: " + "; ".join(problems), IdentifiabilityWarning, stacklevel=3
        )
    return rep
