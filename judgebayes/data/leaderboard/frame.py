"""The leaderboard family's one frame reader: one row per outcome of a system on an item.

:func:`board_from_frame` reads the frame every method of the family takes (the closed
forms, the item bootstrap, the Bayesian models) into :class:`~.data.BoardData`;
:func:`new_system_outcomes` reads a new system's outcomes on some of a board's items the
same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import (
    as_pandas,
    column_names,
    distinct_roles,
    group_codes,
    numeric_column,
    require_roles,
)
from judgebayes.data.items.labels import binary_labels
from judgebayes.data.leaderboard.data import BoardData
from judgebayes.errors import InputError

__all__ = ["board_from_frame", "check_scale", "new_system_outcomes"]


def board_from_frame(
    frame,
    *,
    system: str = "system",
    item: str = "item",
    score: str = "score",
    judge: str | None = None,
    trials: str | None = None,
    human: str | None = None,
    cluster: str | None = None,
    adjust: str | list[str] | None = None,
    scale: tuple[float, float] | None = None,
) -> BoardData:
    """:class:`~.data.BoardData` from one row per outcome.

    Parameters
    ----------
    frame : DataFrame
        The rows (pandas, or anything :func:`~judgebayes.data.frames.as_pandas` reads).
    system, item : str
        Who answered, and what.  A (system, item) pair may hold several rows (repeated
        samples: the closed forms average them, the Bayesian models count them).
    score : str
        The outcome: 0/1 (booleans and yes/no spellings read as 0/1), or a number on
        ``scale`` (a win probability, a pass fraction); with ``trials``, a count of
        successes.
    judge : str, optional
        The outcome column by another name, for a judge's verdicts (not with ``score=``).
    trials : str, optional
        The samples behind each row's count of successes.
    human : str, optional
        Human labels on some rows (blank elsewhere), on the outcomes' scale: the outcomes
        are then a judge's.  One outcome a row (no ``trials``); at least one label.
    cluster : str, optional
        Each item's group (a subtask, a platform): the same on every row of an item, and
        at least two groups.
    adjust : str or list of str, optional
        Covariates of each row that a judge's score follows beside quality (the answer's
        log length over the reference's): read per cell for the closed forms'
        adjustment.
    scale : (float, float), optional
        The outcomes' range (default 0 to 1; with ``trials``, counts of 0 to the trials;
        ``(-inf, inf)`` for scores without bounds).  An outcome or label outside it is an
        error naming the row.
    """
    score = _outcome(score, judge, human, trials)
    covariates = () if adjust is None else column_names(adjust, "adjust")
    lo, hi = _scale_of(scale, trials)
    df = as_pandas(frame, "frame")
    _check_roles(df, system, item, score, trials, human, cluster, covariates)
    sc, systems = group_codes(df[system], system, "system")
    ic, items = group_codes(df[item], item, "item")
    y = _outcomes(df[score], score) if trials is None else _counts(df[score], score)
    t = None if trials is None else numeric_column(df[trials], trials)
    blank = np.isnan(y) if t is None else np.isnan(y) | np.isnan(t)
    keep = ~blank
    if blank.any():  # (a copy of millions of rows only when some are blank)
        y, sc, ic = y[keep], sc[keep], ic[keep]
        t = None if t is None else t[keep]
    if t is None:
        _in_scale(y, lo, hi, score, keep)
    else:
        _check_counts(y, t, score, trials)
    h = _labels(df, human, keep, lo, hi)
    all_systems = systems
    systems, sc = _present(systems, sc)
    items, ic = _present(items, ic)
    if systems.size < 2 or items.size < 2:
        raise InputError(
            f"a leaderboard needs 2 systems and 2 items; got {systems.size} system(s) and "
            f"{items.size} item(s)",
            field="system" if systems.size < 2 else "item",
            value=int(min(systems.size, items.size)),
        )
    g, names = _clusters(df, cluster, ic, items, keep)
    cells = _cells(sc, ic, y, t, h, (systems.size, items.size), binary=t is not None)
    return BoardData(
        tuple(systems.tolist()),
        tuple(items.tolist()),
        **cells,
        cluster=g,
        clusters=names,
        judged=human is not None,
        trials=trials is not None,
        scale=(lo, hi),
        covariates=_covariates(
            df, covariates, keep, sc * items.size + ic, (systems.size, items.size)
        ),
        covariate_names=covariates,
        columns=dict(
            system=system, item=item, score=score, trials=trials, human=human, cluster=cluster
        ),
        item_groups={}
        if cluster is not None
        else _item_groups(
            df, {system, item, score, trials, human, *covariates}, keep, ic, items.size
        ),
        row_columns={}
        if human is None
        else _row_columns(
            df, {system, item, score, trials, human, cluster}, keep, sc, ic, cells["rows"]
        ),
        n_missing=int(blank.sum()),
        blank_systems=tuple(str(v) for v in np.setdiff1d(all_systems, systems)),
    )


def _cells(sc, ic, y, t, h, shape, *, binary: bool) -> dict:
    """The cells' arrays of :class:`~.data.BoardData` from each row's system and item
    codes, outcome ``y`` of ``t`` trials and label ``h`` (NaN: none).  Counts are counted
    as integers (no float pass over millions of cells).
    """
    size = shape[0] * shape[1]
    flat = sc * shape[1] + ic
    any_lab = h is not None
    lab = ~np.isnan(h) if any_lab else np.zeros(0, bool)
    ones = y == 1
    binary = binary or bool((ones | (y == 0)).all())
    counts = binary and (not any_lab or bool(np.isin(h[lab], (0.0, 1.0)).all()))
    n_rows = np.bincount(flat, minlength=size).reshape(shape)
    rows = n_rows if t is None else _whole(_sum(flat, t, shape))
    if t is None and counts:  # 0/1 outcomes: each cell's successes by counting
        successes = np.bincount(flat[ones], minlength=size).reshape(shape)
    else:
        successes = _sum(flat, y, shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = successes / rows
    zero = np.zeros(shape, np.int64)
    n_l, labels, h1, k, n = zero, np.full(shape, np.nan), zero, zero, zero
    if any_lab:
        n_l = np.bincount(flat[lab], minlength=size).reshape(shape)
        h_sum = _sum(flat[lab], h[lab], shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            labels = h_sum / n_l
    if counts:
        k = _whole(successes - (_sum(flat[lab], y[lab], shape) if any_lab else 0))
        n = rows - n_l
        h1 = _whole(h_sum) if any_lab else zero
    conf = np.zeros((shape[0], 4), np.int64)
    if counts and any_lab:
        yl, hl, sl = y[lab], h[lab], sc[lab]
        conf = np.column_stack(
            [
                np.bincount(sl, weights=(hl == a) & (yl == b), minlength=shape[0])
                for a, b in ((1, 1), (1, 0), (0, 0), (0, 1))
            ]
        ).astype(np.int64)
    return {
        "scores": scores,
        "rows": rows,
        "labels": labels,
        "k": k,
        "n": n,
        "h1": h1,
        "n_l": n_l,
        "confusion": conf,
        "judged_labelled": np.bincount(sc[lab], weights=y[lab], minlength=shape[0])
        if any_lab
        else np.zeros(shape[0]),
        "counts": counts,
        "n_repeated": int((n_rows > 1).sum()),
    }


def _whole(x: np.ndarray) -> np.ndarray:
    """Sums of whole numbers (counted in floats) as integers."""
    return x if x.dtype.kind == "i" else np.rint(x).astype(np.int64)


def _scale_of(scale, trials) -> tuple[float, float]:
    """``scale=`` read; with ``trials=`` (counts of successes) it is not for the user."""
    if trials is not None and scale is not None:
        raise InputError(
            "with trials= the outcomes are counts of successes, from 0 to each row's "
            "trials; scale= sets the range of other outcomes: leave it out",
            field="scale",
            value=scale,
        )
    return check_scale(scale)


def _check_roles(df, system, item, score, trials, human, cluster, covariates) -> None:
    """Every role a column of ``df``'s, and no column in two roles."""
    for role, col in (("system", system), ("item", item), ("score", score)):
        if not isinstance(col, str):
            raise InputError(
                f"{role}= names the {role} column; got {type(col).__name__} {col!r}",
                field=role,
                value=col,
            )
    groups = {"system": system, "item": item, "cluster": cluster}
    _distinct_groups(groups)
    measures = {"score": score, "trials": trials, "human": human}
    distinct_roles({**measures, "adjust": list(covariates) or None}, groups)
    require_roles(df, {**measures, **groups})
    for col in covariates:
        require_roles(df, {"adjust": col})


def check_scale(scale) -> tuple[float, float]:
    """``scale=`` as (low, high): two numbers, low below high (default 0 to 1; infinite
    bounds for scores without them).
    """
    if scale is None:
        return 0.0, 1.0
    try:
        lo, hi = (float(v) for v in scale)
    except (TypeError, ValueError):
        raise InputError(
            f"scale must be two numbers (low, high); got {scale!r}", field="scale", value=scale
        ) from None
    if np.isnan(lo) or np.isnan(hi) or not lo < hi:
        raise InputError(
            f"scale must have low below high; got {scale!r}", field="scale", value=scale
        )
    return lo, hi


def _outcome(score: str, judge, human, trials) -> str:
    """The outcome column (``judge=`` is ``score=`` by another name), with the roles'
    checks: not both names, and no human labels on rows of several trials.
    """
    if judge is not None:
        if score != "score":
            raise InputError(
                "judge= and score= name the same role (the outcome column): give one",
                field="judge",
                value=judge,
            )
        score = judge
    if human is not None and trials is not None:
        raise InputError(
            "human= labels one outcome per row; a row of trials= counts holds several",
            field="trials",
            value=trials,
        )
    return score


def _labels(df, human, keep, lo: float, hi: float) -> np.ndarray | None:
    """The human labels of the kept rows (NaN: unlabelled; None without ``human``)."""
    if human is None:
        return None
    h = _outcomes(df[human], human)[keep]
    _in_scale(h, lo, hi, human, keep)
    if np.isnan(h).all():
        raise InputError(
            f"column {human!r} (human=) holds no label on a row with an outcome: a "
            "judge-corrected board needs some labelled rows (leave human= out for the "
            "board of the judge's verdicts as they are)",
            field="human",
            value=human,
        )
    return h


def _distinct_groups(groups: dict[str, Any]) -> None:
    """The system, item and cluster columns are three different columns (a cluster read
    from the system column would make every system its own cluster).
    """
    seen: dict[Any, str] = {}
    for role, col in groups.items():
        if col is None:
            continue
        if col in seen:
            raise InputError(
                f"column {col!r} is given as both {seen[col]}= and {role}=: they must be "
                "different columns",
                field=role,
                value=col,
            )
        seen[col] = role


def _outcomes(col: pd.Series, name: str) -> np.ndarray:
    """A column of outcomes or labels: numbers as they are, booleans and the usual
    spellings of yes / no as 0 / 1.
    """
    if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        return numeric_column(col, name)
    x = pd.to_numeric(col, errors="coerce")
    text = col.notna() & col.astype("string").str.strip().ne("")
    if (x.notna() | ~text).all():
        return numeric_column(col, name)
    return binary_labels(col, name, None)


def _counts(col: pd.Series, name: str) -> np.ndarray:
    """A column of counts of successes: numbers only (a yes / no or a boolean is one
    outcome, not a count of several).
    """
    if pd.api.types.is_bool_dtype(col.dtype) or not pd.api.types.is_numeric_dtype(col.dtype):
        x = pd.to_numeric(col, errors="coerce")
        if pd.api.types.is_bool_dtype(col.dtype) or (x.isna() & col.notna()).any():
            raise InputError(
                f"column {name!r} holds {col.dtype} values: with trials= each row's "
                "outcome is its count of successes in its trials, a whole number",
                field="score",
                value=str(col.dtype),
            )
    return numeric_column(col, name)


def _in_scale(x: np.ndarray, lo: float, hi: float, name: str, kept: np.ndarray) -> None:
    bad = (x < lo) | (x > hi)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        row = int(np.flatnonzero(kept)[j])
        raise InputError(
            f"column {name!r}: {x[j]:g} in row {row} is outside the scale [{lo:g}, {hi:g}] "
            f"({int(bad.sum())} such row(s)); give scale=(low, high) when the outcomes have "
            "another range",
            field=name,
            value=float(x[j]),
        )


def _check_counts(y, t, score, trials) -> None:
    bad_t = (t < 1) | (t != np.round(t))
    bad = bad_t | (y < 0) | (y > t) | (y != np.round(y))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"row {j}: {score} = {y[j]:g} successes of {trials} = {t[j]:g} trials; counts "
            "are whole numbers from 0 to the trials, and trials whole numbers from 1",
            field="trials" if bad_t[j] else "score",
            value=float(t[j] if bad_t[j] else y[j]),
        )


def _present(labels: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The labels that some kept row has, and the rows' codes among them."""
    used = np.bincount(codes, minlength=labels.size) > 0
    if used.all():
        return labels, codes
    return labels[used], (np.cumsum(used) - 1)[codes]


def _sum(flat: np.ndarray, w: np.ndarray, shape) -> np.ndarray:
    """Each cell's sum of ``w`` over its rows."""
    return np.bincount(flat, weights=w, minlength=shape[0] * shape[1]).reshape(shape)


def _clusters(df, cluster, ic, items, keep) -> tuple[np.ndarray, tuple[str, ...]]:
    if cluster is None:
        return np.zeros(items.size, np.int64), ()
    cc, labels = group_codes(df[cluster], cluster, "cluster")
    cc = cc[keep]
    first = np.full(items.size, -1, np.int64)
    first[ic[::-1]] = cc[::-1]  # each item's cluster on its first row
    bad = first[ic] != cc
    if bad.any():
        item = str(items[ic[np.flatnonzero(bad)[0]]])
        raise InputError(
            f"item {item!r} is in more than one {cluster!r}; an item belongs to one cluster "
            "(the same value on every row of the item)",
            field="cluster",
            value=str(item),
        )
    names, g = np.unique(labels[first], return_inverse=True)
    if names.size < 2:
        raise InputError(
            f"column {cluster!r} (cluster=) holds one value, {str(names[0])!r}: every item is in "
            "one group, so the board is about that group's items; leave cluster= out",
            field="cluster",
            value=str(names[0]),
        )
    return g.astype(np.int64), tuple(names.tolist())


def _row_columns(df, roles: set, keep, sc, ic, rows) -> dict[str, np.ndarray]:
    """Each numeric column of the frame without a role, as its (systems, items) cell
    means (blanks and infinities left out).
    """
    out: dict[str, np.ndarray] = {}
    shape = rows.shape
    flat = sc * shape[1] + ic
    for col in df.columns:
        if col in roles or not pd.api.types.is_numeric_dtype(df[col].dtype):
            continue
        if pd.api.types.is_bool_dtype(df[col].dtype):
            continue
        x = df[col].to_numpy(dtype=float, na_value=np.nan)[keep]
        ok = np.isfinite(x)
        n = np.bincount(flat[ok], minlength=rows.size).reshape(shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[str(col)] = _sum(flat[ok], x[ok], shape) / n
    return out


def _item_groups(df, roles: set, keep, ic, n_items: int) -> dict[str, np.ndarray]:
    """The frame's other columns that could group the items: one value on every row of an
    item (a blank counting as one more value; at most half of them blank), 2 to
    ``n_items / 2`` values, not a fraction; as (items,) codes.
    """
    out: dict[str, np.ndarray] = {}
    for col in df.columns:
        if col in roles or n_items < 4:
            continue
        values = df[col].to_numpy()[keep]
        if values.dtype.kind == "f" and not np.all(np.isnan(values) | (values == np.round(values))):
            continue  # a measurement (a length, a score), not a group
        try:
            codes, uniques = pd.factorize(values)
        except TypeError:  # unhashable cells
            continue
        if (codes < 0).mean() > 0.5:  # mostly blank: not a grouping
            continue
        codes = np.where(codes < 0, len(uniques), codes)  # the blanks one group of their own
        if not 2 <= len(np.unique(codes)) <= n_items // 2:
            continue
        per = pd.Series(codes).groupby(ic).agg(["min", "max"]).to_numpy()
        if per.shape[0] == n_items and np.array_equal(per[:, 0], per[:, 1]):
            out[str(col)] = per[:, 0].astype(np.int64)
    return out


def _covariates(df, names, keep, flat, shape) -> np.ndarray | None:
    """(systems, items, K): each cell's mean of each ``adjust=`` column; a blank on a row
    with an outcome is an error.
    """
    if not names:
        return None
    out = []
    for col in names:
        x = numeric_column(df[col], col)[keep]
        if np.isnan(x).any():
            j = int(np.flatnonzero(np.isnan(x))[0])
            raise InputError(
                f"column {col!r} (adjust=) is blank in row {int(np.flatnonzero(keep)[j])}, "
                "a row with an outcome: every scored row needs a value",
                field=col,
                value=None,
            )
        n = np.bincount(flat, minlength=shape[0] * shape[1]).reshape(shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(_sum(flat, x, shape) / n)
    return np.stack(out, axis=-1)


def new_system_outcomes(
    outcomes, trials, items: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A new system's outcomes on some of a board's ``items``, read as the board reader
    reads counts: (item codes, successes, trials).

    ``outcomes`` maps item labels to a 0/1 outcome, or with ``trials`` (the same items)
    to a whole count of successes.  Refused by name: an item not on the board or given
    twice, a blank, a fraction where a count or a 0/1 outcome is meant (a share of
    trials solved is not a count), a count above its trials.
    """
    s = _mapping(outcomes, "outcomes")
    n = np.ones(len(s))
    if trials is not None:
        t = _mapping(trials, "trials")
        missing = s.index.difference(t.index)
        if len(missing):
            raise InputError(
                f"trials has no count for item {missing[0]!r}", field="trials", value=missing[0]
            )
        n = t.reindex(s.index).to_numpy(float)
        bad = (n < 1) | (n != np.round(n))
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"trials for item {s.index[j]!r} is {n[j]:g}; trials are whole numbers from 1",
                field="trials",
                value=float(n[j]),
            )
    k = s.to_numpy(float)
    bad = (k < 0) | (k > n) | (k != np.round(k))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        what = "0 or 1" if trials is None else f"a whole count from 0 to its trials ({n[j]:g})"
        raise InputError(
            f"outcome of item {s.index[j]!r} is {k[j]:g}; it must be {what} (a share solved "
            "is not a count: give the successes and trials=)",
            field="outcomes",
            value=float(k[j]),
        )
    code = pd.Index(items).get_indexer(s.index)
    if (code < 0).any():
        bad_item = s.index[code < 0][0]
        raise InputError(f"item {bad_item!r} is not on the board", field="outcomes", value=bad_item)
    return code.astype(np.int64), k, n


def _mapping(values, field: str) -> pd.Series:
    """Item label to number, from a Series or a mapping: labels as text, each once, every
    value a number (0/1 outcomes may be booleans or yes / no).
    """
    if not isinstance(values, dict | pd.Series):
        raise InputError(
            f"{field} must map item labels to outcomes (a dict, or a Series indexed by "
            f"item); got {type(values).__name__}, whose positions would be read as items",
            field=field,
            value=type(values).__name__,
        )
    s = pd.Series(values, dtype=object) if isinstance(values, dict) else values.copy()
    s.index = pd.Index([str(v) for v in s.index])
    if s.index.has_duplicates:
        dup = s.index[s.index.duplicated()][0]
        raise InputError(f"{field} gives item {dup!r} twice", field=field, value=dup)
    col = pd.Series(s.tolist())  # the values' own dtype, so booleans and words are seen
    words = not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype)
    x = _outcomes(col, field) if field == "outcomes" and words else numeric_column(col, field)
    if np.isnan(x).any():
        j = int(np.flatnonzero(np.isnan(x))[0])
        raise InputError(
            f"{field} has no value for item {s.index[j]!r}", field=field, value=s.index[j]
        )
    if not len(x):
        raise InputError(f"{field} is empty: give at least one item", field=field, value=0)
    return pd.Series(x, index=s.index)
