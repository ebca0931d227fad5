"""A monitor's log read: every judged item's verdict (or score) and human label, its
period and system, and its known labelling probability (:func:`monitor_log`); a fixed set
of items labelled one at a time, in labelling order (:func:`labelled_sequence`).
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.frames import (
    as_pandas,
    distinct_roles,
    group_labels,
    label_probabilities,
    numeric_column,
    period_codes,
    require_column,
)
from judgebayes.data.items import binary_labels
from judgebayes.data.scores.roles import observed_scale, read_scale, require_in_scale
from judgebayes.errors import InputError


def monitor_log(
    frame, judge, human, time, *, system, label_prob, freq, scale, human_scale, positive
):
    """The log's role columns (present, each in one role) and rows read: the verdicts and
    labels (:func:`_verdicts`), each item's period code and the periods' labels, its
    labelling probability (None without ``label_prob``) and its system (``""`` without
    ``system``), as ``(f, y, back, period, labels, prob, systems)``.
    """
    df = as_pandas(frame, "frame")
    for col, what, field in (
        (judge, "judge verdicts", "judge"),
        (human, "human labels", "human"),
        (time, "periods", "time"),
        (system, "systems", "system"),
        (label_prob, "labelling probabilities", "label_prob"),
    ):
        if col is not None:
            require_column(df, col, what, field, frame="log")
    distinct_roles(
        {"judge": judge, "human": human}, {"time": time, "system": system, "label_prob": label_prob}
    )
    if len(df) == 0:
        raise InputError("the frame has no rows", field="frame", value=0)
    f, y, back = _verdicts(df, judge, human, scale, human_scale, positive)
    period, labels = period_codes(df[time], time, freq)
    missing = np.isnan(f)
    prob = None if label_prob is None else label_probabilities(df[label_prob], label_prob, ~missing)
    systems = (
        group_labels(df[system], system, "system").to_numpy()
        if system is not None
        else np.full(len(df), "", dtype=object)
    )
    return f, y, back, period, labels, prob, systems


def labelled_sequence(frame, human: str, *, order, judge, population, positive):
    """A fixed set's human labels (NaN: not labelled yet), its labelled items in labelling
    order, the judge's verdicts on every item (None without ``judge``) and the set's size
    (``population``, checked, or the frame's rows).
    """
    df = as_pandas(frame, "frame")
    require_column(df, human, "human labels", "human", frame="items")
    distinct_roles({"human": human, "judge": judge}, {"order": order})
    y = binary_labels(df[human], human, positive)
    labelled = ~np.isnan(y)
    if not labelled.any():
        raise InputError(f"column {human!r} has no labels", field=human, value=None)
    N = len(df) if population is None else int(population)
    if N < labelled.sum():
        raise InputError(
            f"population {N} is smaller than the {int(labelled.sum())} labelled items",
            field="population",
            value=N,
        )
    idx = np.flatnonzero(labelled)
    if order is not None:
        require_column(df, order, "labelling order", "order", frame="items")
        pos = numeric_column(df[order], order)[idx]
        if np.isnan(pos).any():
            raise InputError(
                f"column {order!r}: a labelled item has no position", field=order, value=None
            )
        idx = idx[np.argsort(pos, kind="stable")]
    if judge is None:
        return y, idx, None, N
    require_column(df, judge, "judge verdicts", "judge", frame="items")
    if population is not None and population != len(df):
        raise InputError(
            f"with judge=, the frame is the whole set: population {population} differs "
            f"from its {len(df)} rows",
            field="population",
            value=population,
        )
    f = binary_labels(df[judge], judge, positive)
    if np.isnan(f).any():
        raise InputError(
            f"column {judge!r}: {int(np.isnan(f).sum())} item(s) have no verdict; the "
            "judge must have judged every item of the set",
            field=judge,
            value=None,
        )
    return y, idx, f, N


def _verdicts(df, judge, human, scale, human_scale, positive):
    """The judge's verdicts and the human labels as 0/1 (NaN: missing), or scores and labels
    mapped to [0, 1] with the map back to the human scale (``back``).
    """
    if scale is None:
        if human_scale is not None:
            raise InputError(
                "human_scale is for a judge that gives scores: give scale= too",
                field="human_scale",
                value=human_scale,
            )
        f = binary_labels(df[judge], judge, positive)
        y = binary_labels(df[human], human, positive)
        return f, y, None
    return _scores(df, judge, human, scale, human_scale, positive)


def _scores(df, judge, human, scale, human_scale, positive):
    """Judge scores and human labels mapped to [0, 1] by their scales, and the human
    label's (low, high) to map the bounds back.
    """
    if positive is not None:
        raise InputError(
            "positive= names a verdict's value; with scale= the judge gives scores",
            field="positive",
            value=positive,
        )
    lo, hi = read_scale(scale, "scale")
    f = numeric_column(df[judge], judge)
    require_in_scale(f, (lo, hi), judge, "scale")
    y = numeric_column(df[human], human)
    said = y[~np.isnan(y)]
    hs = read_scale(human_scale, "human_scale")
    if hs is None:
        if said.size == 0:
            raise InputError(
                f"column {human!r} has no label: give human_scale=", field=human, value=None
            )
        hs = observed_scale(said)
    require_in_scale(y, hs, human, "human_scale")
    return (f - lo) / (hi - lo), (y - hs[0]) / (hs[1] - hs[0]), hs
