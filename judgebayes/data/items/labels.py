"""The judge and human roles of an items frame: verdicts and labels read as 0/1/NaN
from any spelling (normalised once per distinct value), one judge or several, one rater
or several.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy import normalize_labels
from judgebayes.data.frames import column_values, not_scalar
from judgebayes.errors import InputError


def binary_labels(series, column: str, positive: Any) -> np.ndarray:
    """0/1/NaN labels, normalised once per distinct value (fast on millions of rows).

    ``series``: a Series or a column's array (:func:`~judgebayes.data.frames.column_values`).
    """
    dtype = series.dtype
    if positive is None and (
        pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)
    ):
        if isinstance(dtype, np.dtype):  # numpy dtypes: NaN is the missing value
            x = np.asarray(series).astype(float, copy=False)
        else:  # nullable (Int64, boolean): pd.NA to NaN
            x = series.to_numpy(dtype=float, na_value=np.nan)
        bad = ~np.isnan(x) & (x != 0) & (x != 1)
        if bad.any():
            first = x[bad][0]
            raise InputError(
                f"column {column!r}: label {first:g} is not 0 or 1 "
                f"({int(bad.sum())} row(s)); give positive= to name the positive value",
                field=column,
                value=float(first),
            )
        return x
    try:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    except TypeError:  # unhashable cells: lists, arrays
        raise not_scalar(pd.Series(series), column) from None
    if len(uniques) == 0:  # every value missing (found by tests/data/test_fuzz.py)
        return np.full(len(series), np.nan)
    values = normalize_labels(list(uniques), column=column, positive=positive).values
    return np.where(codes < 0, np.nan, values[np.maximum(codes, 0)])


@dataclass(frozen=True)
class Verdicts:
    """The judge role: each row's verdict, or several judges' votes.

    Attributes
    ----------
    value : ndarray of float, shape (rows,)
        The verdict, 0, 1 or NaN (missing); with several judges the number of positive
        votes (NaN where any judge's verdict is missing).
    votes : ndarray of float, shape (rows, J), or None
        Every judge's verdict (several judges only).
    names : tuple of str
        The judge columns.
    """

    value: np.ndarray
    votes: np.ndarray | None
    names: tuple[str, ...]


def read_verdicts(items: pd.DataFrame, judges: list[str], positive: Any) -> Verdicts:
    """The judge columns ``judges`` (present: checked by the caller) as :class:`Verdicts`."""
    if len(judges) == 1:
        v = binary_labels(column_values(items, judges[0]), judges[0], positive)
        return Verdicts(v, None, tuple(judges))
    votes = np.column_stack([binary_labels(items[j], j, positive) for j in judges])
    return Verdicts(votes.sum(1), votes, tuple(judges))


@dataclass(frozen=True)
class Labels:
    """The human role: each row's label, or several raters' labels and their majority.

    Attributes
    ----------
    value : ndarray of float, shape (rows,)
        The label, 0, 1 or NaN (unlabelled); with several raters their majority (NaN when
        no rater labelled the row, or on a tie).
    raters : ndarray of float, shape (rows, R), or None
        Every rater's label (several raters only).
    names : tuple of str
        The human-label columns.
    tied : ndarray of bool, shape (rows,), or None
        Rows whose raters tie (several raters only).
    """

    value: np.ndarray
    raters: np.ndarray | None
    names: tuple[str, ...]
    tied: np.ndarray | None


def read_labels(items: pd.DataFrame, humans: list[str], positive: Any) -> Labels:
    """The human-label columns ``humans`` (present: checked by the caller) as :class:`Labels`."""
    if len(humans) == 1:
        h = binary_labels(column_values(items, humans[0]), humans[0], positive)
        return Labels(h, None, tuple(humans), None)
    raters = np.column_stack([binary_labels(items[c], c, positive) for c in humans])
    rated = (~np.isnan(raters)).sum(1)
    share = np.nansum(raters, axis=1) / np.maximum(rated, 1)
    majority = np.where(share > 0.5, 1.0, np.where(share < 0.5, 0.0, np.nan))
    h = np.where(rated == 0, np.nan, majority)
    return Labels(h, raters, tuple(humans), (rated > 0) & (share == 0.5))
