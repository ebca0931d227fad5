"""Normalising verdicts and labels: the words read as positive and negative, and what
counts as missing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.errors import (
    InputError,
    LabelError,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


#: Label used for the single group when no system / stratum / source column is given.
ALL = "all"


_POSITIVE_WORDS = frozenset({"1", "1.0", "correct", "valid", "pass", "yes", "true"})


_NEGATIVE_WORDS = frozenset({"0", "0.0", "incorrect", "invalid", "fail", "no", "false"})


# ------------------------------------------------------------------ label handling
@dataclass(frozen=True)
class NormalizedLabels:
    """Binary labels after normalisation.

    Attributes
    ----------
    values : ndarray of float
        1.0, 0.0, or NaN where the input was missing; same length as the input.
    column : str
        Name used in messages.
    """

    values: np.ndarray
    column: str

    @property
    def missing(self) -> np.ndarray:
        """Boolean mask of missing entries."""
        return np.isnan(self.values)

    @property
    def n_missing(self) -> int:
        """How many entries were missing."""
        return int(self.missing.sum())

    @property
    def n(self) -> int:
        """How many entries are present (not missing)."""
        return int(self.values.size - self.n_missing)

    @property
    def n_positive(self) -> int:
        """How many entries are positive."""
        return int(np.nansum(self.values))


def is_missing(v: Any) -> bool:
    """Whether a label is missing: None, NaN, pd.NA or NaT, or a blank string."""
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, str) and not v.strip():
        return True
    try:  # pd.NA, pd.NaT, numpy NaN scalars
        res = pd.isna(v)
        return bool(res) if np.ndim(res) == 0 else False
    except (TypeError, ValueError):
        return False


def label_key(v: Any) -> Any:
    """Canonical key of a label for vocabulary and override look-ups."""
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return str(int(v)) if float(v).is_integer() else str(float(v))
    if isinstance(v, str):
        s = v.strip().lower()
        try:
            f = float(s)
        except ValueError:
            return s
        return str(int(f)) if f.is_integer() else s
    return v


def label_keys(x: Any) -> set:
    """The canonical keys (:func:`label_key`) of a label or a list of labels."""
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        x = [x]
    return {label_key(v) for v in x}


def normalize_labels(
    values: Sequence[Any] | np.ndarray | pd.Series,
    *,
    column: str = "label",
    positive: Any = None,
    negative: Any = None,
) -> NormalizedLabels:
    """Map binary labels of any common spelling to 1.0 / 0.0 / NaN (missing).

    Parameters
    ----------
    values : sequence
        Labels: bools, 0/1 numbers, or strings of the vocabulary in the module docstring.
    column : str
        Name of the field, used in error messages.
    positive, negative : scalar or iterable, optional
        Override the vocabulary.  With only ``positive``, every other non-missing value
        is negative; with both, a value in neither raises :class:`LabelError`.  A column
        none of whose values is ``positive`` and all of whose values are in the usual
        vocabulary is read by the vocabulary: ``positive=10`` for a 1-10 judge leaves the
        0/1 human column beside it as it is, instead of making every label negative.

    Returns
    -------
    NormalizedLabels

    Raises
    ------
    LabelError
        For a label outside the vocabulary; names the column, the value and how many
        rows carry it.
    """
    raw = list(values.tolist() if hasattr(values, "tolist") else values)
    pos = label_keys(positive) if positive is not None else None
    neg = label_keys(negative) if negative is not None else None
    if pos is not None and neg is not None and pos & neg:
        both = sorted(map(str, pos & neg))
        raise InputError(
            f"column {column!r}: labels {both} are both positive and negative",
            field=column,
            value=both,
        )
    if pos is not None and neg is None:
        keys = {label_key(v) for v in raw if not is_missing(v)}
        if not keys & pos and keys <= _POSITIVE_WORDS | _NEGATIVE_WORDS:
            pos = None  # the usual vocabulary: positive= names another column's value
    out = np.empty(len(raw), dtype=float)
    unknown: dict[Any, list] = {}
    for i, v in enumerate(raw):
        if is_missing(v):
            out[i] = np.nan
            continue
        k = label_key(v)
        if pos is not None:
            if k in pos:
                out[i] = 1.0
            elif neg is None or k in neg:
                out[i] = 0.0
            else:
                unknown.setdefault(k, [v, 0])[1] += 1
                out[i] = np.nan
        elif k in _POSITIVE_WORDS:
            out[i] = 1.0
        elif k in _NEGATIVE_WORDS:
            out[i] = 0.0
        else:
            unknown.setdefault(k, [v, 0])[1] += 1
            out[i] = np.nan
    if unknown:
        # report the most frequent unknown label; the message says how many rows carry it
        first_val, count = max(unknown.values(), key=lambda t: t[1])
        if pos is not None:
            allowed = f"positive {sorted(map(str, pos))}" + (
                "" if neg is None else f" or negative {sorted(map(str, neg))}"
            )
        else:
            allowed = "bool, 0/1, correct/incorrect, valid/invalid, pass/fail, yes/no, true/false"
        raise LabelError(column, first_val, count, allowed)
    return NormalizedLabels(values=out, column=column)
