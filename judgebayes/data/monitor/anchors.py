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
        name = names[np.flatnonzero(mixed)[0]]
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
            f"{missing[0]!r}: every anchor needs its label",
            field=human,
            value=missing[0],
        )
    return (ones > 0).astype(float)


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
            f"anchor {names[a_item[i]]!r} is judged twice in period {periods[a_period[i]]!r}: "
            "one verdict per anchor and period",
            field=item,
            value=names[a_item[i]],
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
    per_period = np.bincount(a_period, minlength=P)
    if (per_period < per_period.max()).any():
        short = [str(periods[p]) for p in np.flatnonzero(per_period < per_period.max())]
        notes.append(
            f"period(s) {', '.join(short[:5])} judged fewer anchors than the others "
            f"({int(per_period.min())} of {len(names)}): their rates are read on the "
            "anchors judged"
        )
    for what, counts in (
        ("anchors", per_period),
        ("new items", np.bincount(n_period, minlength=P)),
    ):
        if (counts == 0).any():
            empty = [str(periods[p]) for p in np.flatnonzero(counts == 0)]
            notes.append(f"no {what} in period(s) {', '.join(empty[:5])}: not tested there")
    return AnchorLog(
        a_period, a_item, a_f, label[a_item], n_period, n_f, list(periods),
        np.asarray(names, dtype=object), notes,
    )  # fmt: skip
