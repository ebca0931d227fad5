"""One door for data frames: pandas, Polars (eager or lazy), pyarrow, or any frame with the
dataframe interchange protocol become a pandas DataFrame; anything else is a typed error.

Every entry point that takes a frame calls :func:`as_pandas` first, so Polars works
everywhere without being a dependency (it is imported by the user who made the frame).
Results are pandas / xarray whatever came in.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.errors import InputError

__all__ = [
    "as_pandas",
    "column_names",
    "column_values",
    "finite_values",
    "group_labels",
    "label_probabilities",
    "not_scalar",
    "numeric_column",
    "period_codes",
    "require_column",
]


def as_pandas(frame: Any, name: str, *, optional: bool = False):
    """``frame`` as a pandas DataFrame.

    Parameters
    ----------
    frame : pandas / Polars DataFrame, Polars LazyFrame, pyarrow Table, or any object with
        ``__dataframe__`` (the interchange protocol)
    name : str
        The argument's name, for the error message.
    optional : bool
        Pass ``None`` through.

    Raises
    ------
    InputError
        ``frame`` is not a data frame (names the argument and the type given), or two of its
        columns have one name.
    """
    if optional and frame is None:
        return frame
    if not isinstance(frame, pd.DataFrame):
        module = type(frame).__module__.split(".")[0]
        if module == "polars" and hasattr(frame, "collect"):  # a LazyFrame: run the query
            frame = frame.collect()
        if module in ("polars", "pyarrow") and hasattr(frame, "to_pandas"):
            frame = frame.to_pandas()
        elif hasattr(frame, "__dataframe__"):
            frame = pd.api.interchange.from_dataframe(frame)
        else:
            raise InputError(
                f"{name} must be a DataFrame (pandas or Polars); got {type(frame).__name__}",
                field=name,
                value=type(frame).__name__,
            )
    if not frame.columns.is_unique:  # which one would be read is pandas' accident
        dup = str(frame.columns[frame.columns.duplicated()][0])
        raise InputError(f"the {name} frame has two columns named {dup!r}", field=dup, value=dup)
    return frame


def not_scalar(col, name: str) -> InputError:
    """The error for a column whose cells are lists, arrays or mappings (a Polars list
    column, a JSON field): it names the column and the first such row.
    """
    nested = col.map(lambda v: np.ndim(v) > 0 or isinstance(v, dict)).to_numpy(bool)
    i = int(np.flatnonzero(nested)[0]) if nested.any() else 0
    return InputError(
        f"column {name!r}: row {i} holds {type(col.iloc[i]).__name__} "
        f"{str(col.iloc[i])[:40]!r}, not one value; each cell of this column is one "
        "label or number",
        field=name,
        value=str(col.iloc[i])[:40],
    )


def numeric_column(col, name: str) -> np.ndarray:
    """A numeric column as floats; a value that is not a finite number is named, not made
    NaN or carried as infinity (blanks stay NaN: the caller decides whether a blank is
    allowed).
    """
    if pd.api.types.is_numeric_dtype(col.dtype):  # numbers already (bools read as 0 / 1)
        return finite_values(col.to_numpy(dtype=float, na_value=np.nan), name)
    try:
        x = pd.to_numeric(col, errors="coerce")
    except TypeError:
        raise not_scalar(col, name) from None
    bad = (x.isna() & col.notna()).to_numpy(copy=True)
    if bad.any():  # a blank string is a blank; any other text is named
        bad[bad] = col[bad].astype(str).str.strip().ne("").to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"column {name!r}: {str(col.iloc[i])!r} in row {i} is not a number "
            f"({int(bad.sum())} such row(s))",
            field=name,
            value=str(col.iloc[i]),
        )
    return finite_values(x.to_numpy(dtype=float, na_value=np.nan), name)


def label_probabilities(col: pd.Series, name: str, where: np.ndarray) -> np.ndarray:
    """Each row's known probability of being drawn for a human label, checked to lie in
    (0, 1] on the rows ``where`` it matters (a typed error naming the column and row).
    """
    prob = numeric_column(col, name)
    bad = where & ~((prob > 0) & (prob <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"column {name!r}: labelling probabilities must lie in (0, 1]; row {i} has "
            f"{prob[i]!r} ({int(bad.sum())} such row(s))",
            field=name,
            value=None if np.isnan(prob[i]) else float(prob[i]),
        )
    return prob


def finite_values(x: np.ndarray, name: str) -> np.ndarray:
    """``x`` unless it holds an infinity, which is named (a blank is NaN, not infinity)."""
    inf = np.isinf(x)
    if inf.any():
        i = int(np.flatnonzero(inf)[0])
        raise InputError(
            f"column {name!r}: {x[i]} in row {i} is not a finite number "
            f"({int(inf.sum())} such row(s))",
            field=name,
            value=float(x[i]),
        )
    return x


def group_labels(col: pd.Series, name: str, role: str) -> pd.Series:
    """A grouping column (systems, strata, prompts, generators) as string labels.

    Whole numbers read as floats (a blank elsewhere makes pandas read an id column as
    float) are written without ``.0``.  Refused, by name: a blank value (it would become a
    unit called "nan"), and values of different types that read as one label (``1`` and
    ``"1"`` in one column would be pooled into one {role}).  The labels are worked out
    once per distinct value (a log of millions of rows has few systems and items).
    """
    codes, labels = group_codes(col, name, role)
    return pd.Series(labels[codes], index=col.index)


def group_codes(col: pd.Series, name: str, role: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`group_labels` as each row's code and the sorted distinct labels (no per-row
    text: a log of millions of rows is coded in one hashing pass).  Values of different
    types that read as one label share their code.
    """
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    u = pd.Series(uniques)
    text = u.astype("string").str.strip()
    blank_u = (text.isna() | text.eq("")).to_numpy(bool)
    blank = codes < 0
    if blank_u.any():
        blank |= blank_u[np.maximum(codes, 0)] & (codes >= 0)
    if blank.any():
        i = int(np.flatnonzero(blank)[0])
        raise InputError(
            f"column {name!r} (the {role} column): {int(blank.sum())} row(s) have no value "
            f"(first at row {i})",
            field=name,
            value=None,
        )
    labels = text.to_numpy(str)
    if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
        raw = u.astype("string").to_numpy(str)
        padded = raw != labels
        if padded.any() and np.isin(labels[padded], labels[~padded]).any():
            spaced = str(raw[padded][np.isin(labels[padded], labels[~padded])][0])
            raise InputError(
                f"column {name!r} (the {role} column) holds {spaced!r} and {spaced.strip()!r}, "
                f"which differ only by spaces: they would be one {role}; strip the column "
                "if they are, or name them apart",
                field=name,
                value=spaced,
            )
    if pd.api.types.is_float_dtype(col.dtype):
        x = u.to_numpy(dtype=float)
        if np.all(x == np.round(x)):
            labels = x.astype(np.int64).astype(str)
    elif col.dtype == object:
        kinds = pd.DataFrame({"text": labels, "kind": u.map(_kind).to_numpy()})
        mixed = kinds.drop_duplicates().duplicated("text", keep=False)
        if mixed.any():
            clash = kinds.drop_duplicates()[mixed]
            label = clash["text"].iloc[0]
            types = " and ".join(sorted(clash.loc[clash["text"] == label, "kind"]))
            raise InputError(
                f"column {name!r} (the {role} column) holds {label!r} as {types}: two values "
                f"that read as one {role}; make the column one type",
                field=name,
                value=label,
            )
    distinct, remap = np.unique(labels, return_inverse=True)
    if np.array_equal(remap, np.arange(remap.size)):  # already in sorted order
        return np.asarray(codes, dtype=np.int64), distinct
    return np.asarray(remap, dtype=np.int64)[codes], distinct


def _kind(value) -> str:
    """The kind of a cell, for :func:`group_labels`: numbers are one kind."""
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, int | float | np.integer | np.floating):
        return "number"
    return type(value).__name__


def column_names(value, field: str) -> tuple[str, ...]:
    """One column name or several distinct ones, as a tuple (an :class:`InputError` naming
    ``field`` otherwise).
    """
    try:
        names = (value,) if isinstance(value, str) else tuple(value)
    except TypeError:  # a number, None: not column names
        names = ()
    if not names or len(set(names)) != len(names):
        raise InputError(
            f"{field} must name one column or several distinct ones; got {value!r}",
            field=field,
            value=value,
        )
    return names


def column_values(df, col):
    """Column ``col`` of ``df`` as its array (a numpy array or a pandas extension array).

    Without building a Series: under pandas 3 a frame's ``df[col]`` reads the column's
    label back from an Arrow-backed index, about 9 us a column, a tenth of a whole items
    closed-form fit of 1,000 rows.  A label that is not one column goes through ``df[col]``.
    """
    loc = df.columns.get_loc(col)
    get = getattr(df, "_get_column_array", None)  # pandas' own accessor of one column
    if get is None or not isinstance(loc, int):
        return df[col].array
    return get(loc)


def require_column(df, col, what: str, field: str, frame: str = "items") -> None:
    """An :class:`InputError` naming ``col`` (``what`` it was to be) when ``df`` lacks it."""
    if not isinstance(col, str):
        raise InputError(
            f"{field}= names a column ({what}); got {type(col).__name__} {col!r}",
            field=field,
            value=col,
        )
    if col not in df.columns:
        where = "the frame" if frame == "frame" else f"the {frame} frame"
        raise InputError(
            f"{where} has no column {col!r} ({what}); columns are {list(map(str, df.columns))}",
            field=field,
            value=col,
        )


def require_roles(df, roles: dict[str, Any], frame: str = "frame") -> None:
    """Each column named in ``roles`` (role -> column, None: not given) is in ``df``."""
    for role, col in roles.items():
        if col is not None:
            require_column(df, col, f"the {role} column", role, frame=frame)


def distinct_roles(measures: dict[str, Any], others: dict[str, Any] | None = None) -> None:
    """An :class:`InputError` when one column plays two roles: the columns of
    ``measures`` (role -> a column or several: the judge's verdicts or scores, the human
    labels) may share none with each other or with a column of ``others`` (the system,
    item, period... columns; ``None`` = not given).  A judge read as its own human label,
    or a verdict column taken as the systems, otherwise fits without a word.
    """
    seen: dict[Any, str] = {}
    given = [(r, c, True) for r, c in measures.items()]
    given += [(r, c, False) for r, c in (others or {}).items()]
    for role, cols, measure in given:
        for col in (cols,) if isinstance(cols, str) or cols is None else cols:
            if col is None:
                continue
            if col in seen:
                two = f"as both {seen[col]}= and {role}=: they must be different columns"
                raise InputError(
                    f"column {col!r} is given "
                    + (f"twice in {role}=" if seen[col] == role else two),
                    field=role,
                    value=col,
                )
            if measure:
                seen[col] = role


def _wall_times(col: pd.Series) -> pd.Series:
    """Timestamps as the local calendar's wall-clock times (periods have no time zone):
    stamps with one UTC offset lose it; stamps whose offsets differ (a log across a
    daylight-saving change) are each read at their own offset and keep their local time.
    """
    try:
        stamps = pd.to_datetime(col)
    except ValueError as err:
        if "timezone" not in str(err).lower() and "offset" not in str(err).lower():
            raise
        each = [pd.Timestamp(v) for v in col]
        return pd.Series([t.tz_localize(None) if t.tzinfo else t for t in each], index=col.index)
    return stamps.dt.tz_localize(None) if stamps.dt.tz is not None else stamps


def time_periods(
    df, time: str | None, freq: str | None, frame: str = "items"
) -> tuple[np.ndarray, list] | None:
    """``time=``'s period codes and labels (:func:`period_codes`), or None without it;
    ``freq=`` without ``time=`` and a missing time column are :class:`InputError`.
    """
    if time is None:
        if freq is not None:
            raise InputError("freq= buckets the time= column; give time=", field="freq", value=freq)
        return None
    require_column(df, time, "the time column", "time", frame=frame)
    return period_codes(df[time], time, freq)


def period_codes(col: pd.Series, name: str, freq: str | None) -> tuple[np.ndarray, list]:
    """Period codes 0..P-1 in time order and their labels (as text).

    Numbers and timestamps sort by value; an ordered categorical by its categories' order;
    text by its numbers ("week 2" before "week 10", a column of ``1`` and ``"2"`` as
    1, 2), or as dates when every label reads as one.  Text whose order cannot be read
    (a label without a number that is not a date) is an :class:`InputError`, as are a
    blank period and ``freq`` (which buckets timestamps: ``"W"``, ``"D"``, ``"M"``) on a
    column that is not timestamps.
    """
    if col.isna().any():
        i = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise InputError(
            f"column {name!r} (the time column): {int(col.isna().sum())} row(s) have no "
            f"period (first at row {i})",
            field=name,
            value=None,
        )
    if freq is not None:
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            raise InputError(
                f"column {name!r}: freq={freq!r} buckets timestamps, and the column holds "
                "numbers (periods already): drop freq=",
                field="freq",
                value=freq,
            )
        try:
            stamps = _wall_times(col)
        except (ValueError, TypeError) as err:
            raise InputError(
                f"column {name!r}: freq={freq!r} needs timestamps; {err}", field=name, value=freq
            ) from None
        many = re.fullmatch(r"\s*(\d+)\s*(\D.*)", str(freq))
        n = int(many.group(1)) if many else 1
        try:
            col = stamps.dt.to_period(many.group(2) if many and n > 1 else freq)
        except (ValueError, TypeError):
            raise InputError(
                f"freq must be a pandas period frequency such as 'D', 'W' or 'M'; got {freq!r}",
                field="freq",
                value=freq,
            ) from None
        if n > 1:  # "2W": two weeks a period, counted from the first week in the log
            return _multiples(col, n)
    if isinstance(col.dtype, pd.CategoricalDtype) and col.dtype.ordered:
        present = col.cat.remove_unused_categories()
        return present.cat.codes.to_numpy(np.int64), [str(v) for v in present.cat.categories]
    if (
        pd.api.types.is_numeric_dtype(col)
        or pd.api.types.is_datetime64_any_dtype(col)
        or isinstance(col.dtype, pd.PeriodDtype)
    ):
        codes, labels = pd.factorize(col, sort=True)
        return np.asarray(codes, dtype=np.int64), [str(v) for v in labels]
    text = group_labels(col, name, "period")
    codes, labels = pd.factorize(text)
    order = _text_order([str(v) for v in labels], name)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[np.asarray(codes, dtype=np.int64)], [str(labels[i]) for i in order]


def _multiples(col: pd.Series, n: int) -> tuple[np.ndarray, list]:
    """Periods of ``n`` base periods each (codes and ``"<first>/<last>"`` labels), counted
    from the first base period present.
    """
    ordinal = np.asarray(col.array.asi8, dtype=np.int64)
    start = int(ordinal.min())
    group = (ordinal - start) // n
    codes, uniq = pd.factorize(group, sort=True)
    first = [pd.Period(ordinal=start + int(g) * n, freq=col.dt.freq) for g in uniq]
    labels = [f"{_stamp(p.start_time)}/{_stamp((p + (n - 1)).end_time)}" for p in first]
    return np.asarray(codes, dtype=np.int64), labels


def _stamp(t: pd.Timestamp) -> str:
    """A period end as a date, with the time of day only when it has one."""
    t = t.floor("min")
    return (
        f"{t:%Y-%m-%d}"
        if t == t.normalize() or t.strftime("%H:%M") == "23:59"
        else f"{t:%Y-%m-%d %H:%M}"
    )


_CHUNKS = re.compile(r"(\d+)")


def _text_order(labels: list[str], name: str) -> list[int]:
    """The positions of ``labels`` (periods as text) in time order: as numbers, as dates, or
    by the numbers in them (text between them compared as text); an order that cannot be
    read is an :class:`InputError`.
    """
    if len(labels) < 2:
        return list(range(len(labels)))
    numbers = pd.to_numeric(pd.Series(labels), errors="coerce").to_numpy(float)
    if not np.isnan(numbers).any():  # numbers written as text
        return list(np.argsort(numbers, kind="stable"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stamps = pd.to_datetime(pd.Series(labels), format="mixed")
        return list(np.argsort(stamps.to_numpy(), kind="stable"))
    except (ValueError, TypeError, OverflowError):
        pass
    if all(_CHUNKS.search(s) for s in labels):

        def natural(s: str) -> tuple:
            parts = _CHUNKS.split(s.strip().lower())
            return tuple((0, int(p), "") if i % 2 else (1, 0, p) for i, p in enumerate(parts))

        keys = [natural(s) for s in labels]
        if len(set(keys)) == len(keys):
            return sorted(range(len(labels)), key=keys.__getitem__)
    raise InputError(
        f"column {name!r} (the time column): periods {sorted(labels)[:4]} are text whose order "
        "cannot be read (a label without a number that is not a date); give numbers, dates, "
        "labels with their number ('week 3') or an ordered categorical",
        field=name,
        value=sorted(labels)[0],
    )
