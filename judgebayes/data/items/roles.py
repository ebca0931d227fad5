"""One reader per role of an items frame beside the judge and the humans: the groups
(system, stratum, cluster, item), the counts, the weights, the order and the design
columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import column_names, group_labels, require_column, time_periods
from judgebayes.errors import InputError, unknown_keyword


@dataclass(frozen=True, kw_only=True)
class ItemRoles:
    """The columns of an items frame and how to read them: what
    :func:`~judgebayes.data.items.frame.items_from_frame` takes (``AccuracyStudy.from_items``
    passes its keywords here).

    Parameters
    ----------
    judge : str or list of str
        Verdict column, or several judges' verdict columns (every judge scored every
        item; a row missing any judge's verdict is excluded and counted).
    human : str or list of str
        Human-label column (blank = unlabelled), or several raters' columns (each blank
        where that rater did not label the item).
    truth : {"latent", "majority"}
        With several raters, what the rate is of: the items' latent true label, each rater
        (and each judge) having its own sensitivity and specificity (the model of
        :class:`~judgebayes.studies.items.raters.SeveralRatersItems`), or the raters'
        majority label taken as the truth (a tie leaves the item unlabelled, counted), on
        which every one-label method runs.
    system, stratum, cluster : str, optional
        Grouping columns: systems evaluated, strata of a stratified labelling design
        (sizes known: every item of the frame counts), clusters of correlated items.
    weights : str, optional
        Column of design weights of labelled items (1 / probability of being labelled).
    positive : scalar, optional
        The label value meaning "correct" (both columns), when not a usual spelling.
    count : str, optional
        Column of multiplicities: each row stands for that many identical items (the
        reduced frame of :func:`judgebayes.data.large.reduce_items`).  The items are
        exchangeable within a row, so the study is the one of the expanded frame.
    item : str, optional
        Column naming the prompt each row answers, when several systems answered the same
        prompts: their contrasts are then paired.  One row per (item, system); a repeated
        pair is an error (aggregate first, or give ``count``), and an item only one
        system answered is counted (``ItemData.unpaired``).
    covariates : str, list of str or dict, optional
        Numeric item columns (answer length, position, a same-family flag) on which the
        judge's sensitivity and specificity, and the rate, may depend: the Laplace and NUTS
        engines then model them as logistic in these columns
        (:func:`~judgebayes.models.items.items_covariate_model`).  Every kept row needs
        a finite value.  A dict gives each column's term: ``"linear"`` or ``"spline"``
        (:func:`spline_basis` with knots at the :data:`SPLINE_KNOTS` quantiles: a judge
        lenient on very short and very long answers), e.g. ``{"length": "spline"}``; the
        spline's cubic columns are named ``"length (spline 1)"`` and so on.
    order : str or bool
        When each item was judged, for the labelling check (labels taken from one period
        of a log whose judge drifts): True (default) the row order, a column name (numbers
        or times), or False.
    design_columns : str or list of str, optional
        Further columns the labelling check compares between labelled and unlabelled
        items within each system x stratum x verdict cell (numbers or categories).
    labelled_by : str, list of str or dict, optional
        Columns the labelling followed: the strata are crossed with their quintiles
        (``{"length": 10}``: deciles; categories as they are), so that labelling at random
        within the new cells is what every method assumes.

    time, freq : str, optional
        The period each item was judged in (a number, a date, or text that sorts in time
        order); ``freq`` (``"D"``, ``"W"``, ``"M"``) buckets timestamps into periods.  The
        periods are then the strata (labels drawn at random within each period): every
        method estimates each period and pools them, and the Bayesian engine lets the
        judge's rates and the rate walk from period to period
        (:class:`~judgebayes.studies.items.over_time.OverTimeItems`).
    """

    judge: str | list[str] = "judge"
    human: str | list[str] = "human"
    system: str | None = None
    stratum: str | None = None
    cluster: str | None = None
    weights: str | None = None
    positive: Any = None
    count: str | None = None
    item: str | None = None
    covariates: str | list[str] | dict | None = None
    order: str | bool = True
    design_columns: str | list[str] | None = None
    labelled_by: str | list[str] | dict | None = None
    truth: str = "latent"
    time: str | None = None
    freq: str | None = None

    @classmethod
    def of(cls, where: str, keywords: Mapping[str, Any]) -> ItemRoles:
        """The roles given as ``keywords``; one the frame has not is an
        :class:`~judgebayes.errors.InputError` naming it and listing the roles (``where``
        says whose keywords they are).
        """
        unknown_keyword(where, keywords, {f.name for f in fields(cls)})
        return cls(**keywords)


def group_codes(df, col: str | None, role: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """A grouping column as codes and names (one group, ``"all"``, when ``col`` is None)."""
    if col is None:
        return np.zeros(len(df), np.int64), ("all",)
    codes, uniques = pd.factorize(group_labels(df[col], col, role), sort=False)
    return codes.astype(np.int64), tuple(map(str, uniques))


def read_count(series, column: str) -> np.ndarray:
    """Non-negative integer multiplicities of the ``count`` column."""
    x = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
    bad = ~(np.isfinite(x) & (x >= 0) & (x == np.round(x)))
    if pd.api.types.is_bool_dtype(series.dtype) or bad.any():
        i = int(np.flatnonzero(bad)[0]) if bad.any() else 0
        raise InputError(
            f"column {column!r} (the count column): counts must be whole numbers >= 0; "
            f"row {i} has {series.iloc[i]!r}",
            field=column,
            value=series.iloc[i],
        )
    return x.astype(np.int64)


#: quantile bins of a numeric ``labelled_by`` column
LABELLED_BY_BINS = 5


def design_values(series, col: str) -> np.ndarray:
    """A design column's values: numbers (times as seconds) as float, others as strings."""
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        t = pd.to_datetime(series)
        return np.where(t.isna(), np.nan, t.astype("int64") / 1e9)
    if pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_numeric_dtype(series.dtype):
        return series.to_numpy(dtype=float, na_value=np.nan)
    text = series.astype("string")
    out = text.to_numpy(dtype=object)
    out[text.isna().to_numpy()] = None
    return out


def _bins(value, col: str) -> int:
    """A ``labelled_by={col: bins}`` value: a whole number of at least 2."""
    ok = not isinstance(value, bool) and isinstance(value, int | np.integer | str)
    k = int(value) if ok and str(value).strip().isdigit() else -1
    if k < 2:
        raise InputError(
            f"labelled_by={{{col!r}: {value!r}}}: the bins of a column must be a whole number "
            "of at least 2",
            field="labelled_by",
            value=value,
        )
    return k


def strata_columns(labelled_by) -> tuple[str, ...]:
    """The columns named by ``labelled_by=`` (a name, a list, or a dict of bins)."""
    cols = list(labelled_by) if isinstance(labelled_by, dict) else labelled_by
    return column_names(cols, "labelled_by")


def strata_by(items, stratum: str | None, labelled_by, keep: np.ndarray) -> pd.Series:
    """Strata crossed with quantile bins of each ``labelled_by`` column."""
    bins = labelled_by if isinstance(labelled_by, dict) else {}
    label = (
        pd.Series("", index=items.index)
        if stratum is None
        else group_labels(items[stratum], stratum, "stratum")
    )
    for col in strata_columns(labelled_by):
        require_column(items, col, "a labelled_by column", "labelled_by")
        x = design_values(items[col], col)
        if x.dtype == object:
            part = pd.Series(x, index=items.index).fillna("missing").astype(str)
        else:
            k = _bins(bins.get(col, LABELLED_BY_BINS), col)
            q = np.full(len(items), k)  # bin k: "missing"
            ok = keep & np.isfinite(x)
            q[ok] = pd.qcut(x[ok], k, labels=False, duplicates="drop")
            names = np.array([f"{col} {b + 1}/{k}" for b in range(k)] + [f"{col} missing"])
            part = pd.Series(names[q], index=items.index)
        label = part if (label == "").all() else label + " | " + part
    return label


@dataclass(frozen=True)
class Strata:
    """The stratum role: each row's stratum code, the strata's names, and the columns the
    strata were built from (``labelled_by=``).
    """

    codes: np.ndarray
    names: tuple[str, ...]
    labelled_by: tuple[str, ...]


def read_strata(items, stratum, labelled_by, time, freq, keep: np.ndarray) -> Strata:
    """The strata: the ``time=`` periods, the ``stratum=`` column, or that column crossed
    with bins of the ``labelled_by=`` columns (one of time and the other two).
    """
    periods = time_periods(items, time, freq)
    if periods is not None:
        if stratum is not None or labelled_by is not None:
            given = "stratum" if stratum is not None else "labelled_by"
            raise InputError(
                f"time= and {given}= together: with time= the periods are the strata (labels "
                "drawn at random within each period); give one of them",
                field=given,
                value=stratum if stratum is not None else labelled_by,
            )
        return Strata(periods[0], tuple(periods[1]), ())
    if labelled_by is None:
        return Strata(*group_codes(items, stratum, "stratum"), ())
    by = strata_by(items, stratum, labelled_by, keep)
    codes, names = group_codes(items.assign(_labelled_by=by), "_labelled_by", "stratum")
    return Strata(codes, names, tuple(dict.fromkeys(strata_columns(labelled_by))))


def read_design(items, design_columns, taken: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The ``design_columns=`` the labelling check compares (those not in ``taken``)."""
    design = {}
    if design_columns is not None:
        for col in column_names(design_columns, "design_columns"):
            require_column(items, col, "a design_columns column", "design_columns")
            if col not in taken:
                design[col] = design_values(items[col], col)
    return design


def read_order(items, order: Any, count: str | None) -> np.ndarray | None:
    """When each row was judged: its position (``order=True``, not for a reduced frame), a
    column of numbers or times, or None (``order=False``).
    """
    if order is True:
        return None if count is not None else np.arange(len(items), dtype=float)
    if order is False or order is None:
        return None
    if not isinstance(order, str) or order not in items.columns:
        raise InputError(
            f"order must be True, False or a column of the items frame; got {order!r}",
            field="order",
            value=order,
        )
    pos = design_values(items[order], order)
    if pos.dtype == object:
        raise InputError(
            f"column {order!r} (the order column) must hold numbers or times",
            field="order",
            value=order,
        )
    return pos


def read_items(items, item, count, system: np.ndarray, systems) -> np.ndarray | None:
    """The prompt each row answers (``item=``): one row per (item, system)."""
    if item is None:
        return None
    if count is not None:
        raise InputError(
            "item= pairs single rows across systems; a reduced frame (count=) has no "
            "rows per item: give one of them",
            field="item",
            value=item,
        )
    it, _ = group_codes(items, item, "item")
    dup = pd.DataFrame({"i": it, "s": system}).duplicated().to_numpy()
    if dup.any():
        r = int(np.flatnonzero(dup)[0])
        raise InputError(
            f"column {item!r}: item {items[item].iloc[r]!r} appears twice for system "
            f"{systems[system[r]]!r} ({int(dup.sum())} repeated (item, system) "
            "row(s)); a paired comparison takes one row per item and system",
            field=item,
            value=items[item].iloc[r],
        )
    return it


def read_weights(items, weights: str | None, human: np.ndarray) -> np.ndarray | None:
    """Design weights of the labelled rows (>= 1; NaN on unlabelled rows)."""
    if weights is None:
        return None
    w = pd.to_numeric(items[weights], errors="coerce").to_numpy(dtype=float)
    lab = ~np.isnan(human)
    bad = lab & ~(np.isfinite(w) & (w >= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"column {weights!r}: a labelled item's design weight (1 / its probability "
            f"of being labelled) must be a number >= 1; row {i} has "
            f"{items[weights].iloc[i]!r} ({int(bad.sum())} such row(s))",
            field=weights,
            value=items[weights].iloc[i],
        )
    return np.where(lab, w, np.nan)
