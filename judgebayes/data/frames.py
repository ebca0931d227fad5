"""One door for data frames: pandas, Polars (eager or lazy), pyarrow, or any frame with the
dataframe interchange protocol become a pandas DataFrame; anything else is a typed error.

Every entry point that takes a frame calls :func:`as_pandas` first, so Polars works
everywhere without being a dependency (it is imported by the user who made the frame).
Results are pandas / xarray whatever came in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgebayes.errors import InputError

__all__ = ["as_pandas", "numeric_column"]


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


def numeric_column(col, name: str) -> np.ndarray:
    """A numeric column as floats; a value that is not a number is named, not made NaN
    (blanks stay NaN: the caller decides whether a blank is allowed).
    """
    x = pd.to_numeric(col, errors="coerce")
    bad = x.isna() & col.notna() & col.astype(str).str.strip().ne("")
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"column {name!r}: {str(col.iloc[i])!r} in row {i} is not a number "
            f"({int(bad.sum())} such row(s))",
            field=name,
            value=str(col.iloc[i]),
        )
    return x.to_numpy(dtype=float, na_value=np.nan)
