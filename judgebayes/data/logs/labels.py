"""Human labels attached to the items of a log, and the items frame every reader returns."""

from __future__ import annotations

import math
import pathlib
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy.labels import is_missing, label_key, label_keys
from judgebayes.data.frames import as_pandas, numeric_column
from judgebayes.data.items import binary_labels
from judgebayes.data.logs.files import ITEM_COLUMNS
from judgebayes.errors import InputError


# ------------------------------------------------------------------ human labels
def attach_labels(items, labels) -> Any:
    """Add the ``human`` column to an items frame from a labels frame or CSV file.

    Parameters
    ----------
    items : pandas.DataFrame
        An adapter's items frame (``sample_id``, ``system``, optionally ``epoch``).
    labels : DataFrame, str, path or None
        ``sample_id`` and ``human`` columns, plus ``system`` when ``items`` holds several
        systems and ``epoch`` when it holds several epochs.  ``None``: every item is
        unlabelled.

    Returns
    -------
    pandas.DataFrame
        ``items`` with ``human`` (the label as given; NaN where unlabelled).

    Raises
    ------
    InputError
        A missing column, a key the labels need but lack, two labels for one output, or
        a label for an output the log does not have.
    """
    out = items.copy()
    if labels is None:
        out["human"] = math.nan
        return out
    if isinstance(labels, (str, pathlib.Path)):
        try:
            labels = pd.read_csv(labels, dtype={"sample_id": str, "system": str})
        except FileNotFoundError:
            raise InputError(
                f"labels file not found: {labels}", field="labels", value=str(labels)
            ) from None
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise InputError(
                f"labels file {labels} is not a readable CSV: {str(exc).splitlines()[0]}",
                field="labels",
                value=str(labels),
            ) from None

    labels = as_pandas(labels, "labels")
    for col in ("sample_id", "human"):
        if col not in labels.columns:
            raise InputError(
                f"labels have no column {col!r}; columns are {list(map(str, labels.columns))}",
                field=col,
                value=None,
            )
    keys = ["sample_id"]
    for key, what in (("system", "systems"), ("epoch", "epochs")):
        if key not in out.columns:
            continue
        if key in labels.columns:
            keys.append(key)
        elif out[key].nunique() > 1:
            raise InputError(
                f"the log holds {out[key].nunique()} {what}, so each label must say which "
                f"output it judges: add a {key!r} column to the labels",
                field=key,
                value=None,
            )
    lab = labels[[*keys, "human"]].copy()
    for k in keys:
        lab[k] = lab[k].astype(str).str.strip()
    dup = lab.duplicated(keys)
    if dup.any():
        row = lab[dup].iloc[0]
        raise InputError(
            f"labels: two labels for one output ({', '.join(f'{k}={row[k]}' for k in keys)})",
            field="labels",
            value=row["sample_id"],
        )
    left = out[keys].astype(str)
    known = pd.MultiIndex.from_frame(left)
    given = pd.MultiIndex.from_frame(lab[keys])
    unknown = ~given.isin(known)
    if unknown.any():
        row = lab[unknown].iloc[0]
        raise InputError(
            f"labels: {int(unknown.sum())} label(s) match no output of the log (first: "
            f"{', '.join(f'{k}={row[k]}' for k in keys)})",
            field="sample_id",
            value=row["sample_id"],
        )
    human = pd.Series(lab["human"].to_numpy(), index=given)
    out["human"] = human.reindex(known).to_numpy()
    return out


def items_frame(
    rows: list[dict],
    labels,
    extra: tuple[str, ...] = (),
    *,
    key: tuple[str, ...] | None = None,
    hint: str = "",
    verdict: str = "verdict",
    positive: Any = None,
    grades: dict | None = None,
    scores: bool = False,
):
    """The items frame of the adapters' rows, raw verdicts normalised once per spelling.

    ``verdict`` names the field in messages; ``grades`` maps a tool's own letters (Inspect's
    C / I / N) before the package's vocabulary applies (not with ``positive=``, which must
    be a value some verdict takes).  ``key``: the ``extra`` columns that tell two
    verdicts of one output apart (default all of them); ``hint`` ends the error of two.
    ``scores=True`` keeps the value as a number in a ``score`` column instead (the scores
    design); a value that is not a number is an error that names it.
    """
    df = pd.DataFrame(rows, columns=[*ITEM_COLUMNS[:3], *extra])
    df["sample_id"] = df["sample_id"].astype(str)
    df["system"] = df["system"].astype(str)
    raw = df["judge"].astype(object)
    if scores:
        df = df.drop(columns="judge")
        df.insert(2, "score", numeric_column(raw.map(_plain), verdict))
    else:
        if grades and positive is None:
            raw = raw.map(lambda v: grades.get(v.strip().lower(), v) if isinstance(v, str) else v)
        df["judge"] = binary_labels(raw, verdict, positive)
        if positive is not None:
            _check_positive(raw, positive, verdict)
    dup = df.duplicated(["system", "sample_id", *(extra if key is None else key)])
    if dup.any():
        r = df[dup].iloc[0]
        raise InputError(
            f"two verdicts for one output: system {r['system']!r}, sample {r['sample_id']!r}"
            + hint,
            field="sample_id",
            value=r["sample_id"],
        )
    return attach_labels(df, labels)


def _plain(v: Any) -> Any:
    """A score as a plain value (booleans are verdicts, not scores: kept as text)."""
    return str(v) if isinstance(v, bool) else v


def _check_positive(raw: pd.Series, positive: Any, verdict: str) -> None:
    """Refuse a ``positive=`` that no verdict takes: every verdict would read as incorrect
    (or, for verdicts in the usual vocabulary, ``positive=`` would be ignored).
    """
    values = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(raw)]
    values = [v for v in values if not is_missing(v)]
    if not values or {label_key(v) for v in values} & label_keys(positive):
        return
    held = sorted(values, key=lambda v: (0, v, "") if isinstance(v, Real) else (1, 0, str(v)))
    shown = ", ".join(map(repr, held[:10])) + (f", ... ({len(held)} values)" if held[10:] else "")
    raise InputError(
        f"positive={positive!r} is no value of the {verdict}: the logs hold [{shown}], so "
        "every verdict would read as incorrect; name the value(s) meaning correct",
        field="positive",
        value=positive,
    )
