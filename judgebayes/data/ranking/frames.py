"""Reading comparisons from frames: the columns, the item ids, the outcome codes and
the parsed pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import as_pandas, distinct_roles, numeric_column
from judgebayes.data.ranking.pairs import TIE_WORDS, pairwise_from_arrays
from judgebayes.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgebayes.data.ranking.pairs import PairwiseData


def column(df, name: str, where: str):
    """Column ``name`` of ``df``, or an :class:`InputError` naming ``where`` and its columns."""
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


def clean_ids(col) -> pd.Series:
    """Item ids as stripped strings (``None`` where missing), cleaned once per distinct
    value (:func:`_clean`), so a column of millions of rows costs one hash pass.
    """
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    labels = np.array([*(_clean(u) for u in uniques), None], dtype=object)
    return pd.Series(labels[codes], index=col.index, dtype=object)


def outcome_codes(values, a, b, field: str, *, blank: str = "tie", tie_words=TIE_WORDS):
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
    :func:`judgebayes.data.ranking.channel.channel_from_frames`) take it, so a study built from one
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
    cols = [column(df, name, "comparisons") for name in (first, second)]
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
    code = outcome_codes(column(df, winner, "comparisons"), labels[fc], labels[sc], winner)
    if judge is None and "judge" in df.columns:
        judge = "judge"
    judge_idx, judge_names = None, None
    if judge is not None:
        jcol = column(df, judge, "comparisons")
        if jcol.isna().any():
            raise InputError(f"column {judge!r}: missing judge name", field=judge, value=None)
        jc, uniques = pd.factorize(jcol.astype(str), sort=True)
        judge_names, judge_idx = tuple(uniques), jc.astype(np.int64)
    columns = {"first": first, "second": second, "winner": winner, "judge": judge}
    return ParsedPairs(fc, sc, labels, code, judge_names, judge_idx, columns)


def kept_instances(comparisons, instance: str | None, parsed: ParsedPairs, ties: str):
    """The ``instance`` column's id of every comparison kept under ``ties`` (None without
    the column's name).
    """
    if instance is None:
        return None
    if instance not in as_pandas(comparisons, "comparisons").columns:
        raise InputError(
            f"the comparisons frame has no column {instance!r} (instance)",
            field="instance",
            value=instance,
        )
    kept = parsed.outcome != 2 if ties == "drop" else slice(None)
    return as_pandas(comparisons, "comparisons")[instance].to_numpy()[kept]


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
        ids = clean_ids(column(items, item, "items"))
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
