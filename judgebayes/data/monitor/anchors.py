"""An anchor design's logs read: the anchors' verdicts each period (the same items, with
human labels, judged again) and the new items' verdicts, on one calendar of periods.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgebayes.data.frames import (
    as_pandas,
    distinct_roles,
    group_codes,
    period_codes,
    require_column,
)
from judgebayes.data.items import binary_labels
from judgebayes.errors import InputError

__all__ = ["AnchorLog", "anchor_log"]


@dataclass(frozen=True)
class AnchorLog:
    """The arrays of :func:`~judgebayes.inference.monitor.anchors.anchor_attribution`
    and what was left out.

    ``a_*``: one entry per anchor verdict (period code, anchor code, verdict, label);
    ``n_*``: one per new item (period code, verdict); ``periods``: the periods' labels in
    time order; ``anchors``: the anchors' names by code; ``notes``: what was left out.
    """

    a_period: np.ndarray
    a_item: np.ndarray
    a_f: np.ndarray
    a_y: np.ndarray
    n_period: np.ndarray
    n_f: np.ndarray
    periods: list
    anchors: np.ndarray
    notes: list[str] = field(default_factory=list)


def _anchor_labels(codes, y, names, human) -> np.ndarray:
    """Each anchor's one human label (from any of its rows), by anchor code."""
    labelled = ~np.isnan(y)
    n = len(names)
    ones = np.bincount(codes[labelled], weights=y[labelled], minlength=n)
    seen = np.bincount(codes[labelled], minlength=n)
    mixed = (ones > 0) & (ones < seen)
    if mixed.any():
        name = str(names[np.flatnonzero(mixed)[0]])
        raise InputError(
            f"anchor {name!r} has both labels in column {human!r}: an anchor's human label "
            f"is fixed ({int(mixed.sum())} anchor(s) disagree with themselves)",
            field=human,
            value=name,
        )
    if (seen == 0).any():
        missing = names[seen == 0]
        raise InputError(
            f"{missing.size} anchor(s) have no human label in column {human!r}, e.g. "
            f"{str(missing[0])!r}: every anchor needs its label",
            field=human,
            value=str(missing[0]),
        )
    return (ones > 0).astype(float)


def _listed(names: list[str], most: int = 8) -> str:
    """``names`` joined, the first ``most`` and how many more."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _every_period(a_period, a_item, a_f, label, names, human, notes):
    """The anchor verdicts of the anchors judged in every period that judged anchors.

    The tests pair each anchor's verdicts over periods: an anchor judged in some periods
    only would make a period's rate a different set's (with anchors of their own rates,
    sets that differ by period read as the judge moving).
    """
    with_anchors = np.unique(a_period)
    seen = np.bincount(a_item, minlength=len(names))
    every = seen == with_anchors.size
    if every.all():
        return a_period, a_item, a_f
    kept = np.bincount(label[every].astype(int), minlength=2)
    if kept.min() < 2:
        raise InputError(
            f"only {int(every.sum())} of {len(names)} anchors were judged in every one of the "
            f"{with_anchors.size} periods with anchors ({kept[1]} positive, {kept[0]} "
            f"negative in {human!r}): the anchor design judges the same anchors every period",
            field="anchors",
            value=int(every.sum()),
        )
    notes.append(
        f"{int((~every).sum())} of {len(names)} anchors were not judged in every period "
        f"with anchors: left out (the tests pair each anchor's verdicts over periods), "
        f"{int(every.sum())} kept"
    )
    keep = every[a_item]
    return a_period[keep], a_item[keep], a_f[keep]


def anchor_log(items, anchors, *, judge, human, time, item, freq, positive) -> AnchorLog:
    """Read the new items' and the anchors' frames (see
    :func:`~judgebayes.workflows.monitor.monitor` (its ``anchors``) for the roles).
    """
    an = as_pandas(anchors, "anchors")
    new = as_pandas(items, "items")
    for col, what, fld in ((judge, "judge verdicts", "judge"), (human, "human labels", "human"),
                           (time, "periods", "time"), (item, "anchor ids", "item")):  # fmt: skip
        require_column(an, col, what, fld, frame="anchors")
    for col, what, fld in ((judge, "judge verdicts", "judge"), (time, "periods", "time")):
        require_column(new, col, what, fld, frame="items")
    distinct_roles({"judge": judge, "human": human}, {"time": time, "item": item})
    if len(an) == 0:
        raise InputError("the anchors frame has no rows", field="anchors", value=0)
    if len(new) == 0:
        raise InputError("the items frame has no rows", field="items", value=0)
    notes: list[str] = []
    when = pd.concat([an[time], new[time]], ignore_index=True)
    codes, periods = period_codes(when, time, freq)
    a_period, n_period = codes[: len(an)], codes[len(an) :]
    a_item, names = group_codes(an[item], item, "anchor")
    a_f = binary_labels(an[judge], judge, positive)
    y = binary_labels(an[human], human, positive)
    label = _anchor_labels(a_item, y, np.asarray(names, dtype=object), human)
    pair = pd.DataFrame({"p": a_period, "a": a_item}).duplicated()
    if pair.any():
        i = int(np.flatnonzero(pair.to_numpy())[0])
        raise InputError(
            f"anchor {str(names[a_item[i]])!r} is judged twice in period "
            f"{str(periods[a_period[i]])!r}: one verdict per anchor and period",
            field=item,
            value=str(names[a_item[i]]),
        )
    if human in new.columns and new[human].notna().any():
        notes.append(
            f"the items' labels in {human!r} are not read: the anchor design reads the "
            "judge's rates on the anchors"
        )
    n_f = binary_labels(new[judge], judge, positive)
    for what, f in (("anchor verdict(s)", a_f), ("new item(s)", n_f)):
        if np.isnan(f).any():
            notes.append(
                f"{int(np.isnan(f).sum())} {what} without a verdict in {judge!r}: left out"
            )
    keep = ~np.isnan(a_f)
    a_period, a_item, a_f = a_period[keep], a_item[keep], a_f[keep]
    keep = ~np.isnan(n_f)
    n_period, n_f = n_period[keep], n_f[keep]
    P = len(periods)
    a_period, a_item, a_f = _every_period(a_period, a_item, a_f, label, names, human, notes)
    per_period = np.bincount(a_period, minlength=P)
    for what, counts in (
        ("anchors", per_period),
        ("new items", np.bincount(n_period, minlength=P)),
    ):
        if (counts == 0).any():
            empty = [str(periods[p]) for p in np.flatnonzero(counts == 0)]
            notes.append(f"no {what} in period(s) {_listed(empty)}: not tested there")
    return AnchorLog(
        a_period, a_item, a_f, label[a_item], n_period, n_f, list(periods),
        np.asarray(names, dtype=object), notes,
    )  # fmt: skip
