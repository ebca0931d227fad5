"""An anchor design's logs read (judgebayes/data/monitor/anchors.py): one calendar for both
frames, each anchor's fixed label, and every refusal naming its field and value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.monitor.anchors import anchor_log
from judgebayes.errors import InputError

ROLES = {"judge": "judge", "human": "human", "time": "week", "item": "id", "freq": None,
         "positive": None}  # fmt: skip


def _frames():
    anchors = pd.DataFrame(
        {"week": [1, 1, 1, 1, 2, 2, 2, 2], "id": ["a", "b", "c", "d"] * 2,
         "judge": [1, 0, 1, 0, 1, 1, 0, 0], "human": [1, 0, 1, 0, None, None, None, None]}
    )  # fmt: skip
    items = pd.DataFrame({"week": [1, 1, 2, 3], "judge": [1, 0, 1, 1]})
    return items, anchors


def test_one_calendar_and_labels_carried_to_every_row():
    items, anchors = _frames()
    log = anchor_log(items, anchors, **ROLES)
    assert log.periods == ["1", "2", "3"]
    np.testing.assert_array_equal(log.n_period, [0, 0, 1, 2])
    np.testing.assert_array_equal(log.a_y, [1, 0, 1, 0, 1, 0, 1, 0])
    np.testing.assert_array_equal(log.a_item, [0, 1, 2, 3] * 2)
    assert any("no anchors in period(s) 3" in n for n in log.notes)


def test_missing_verdicts_counted_and_an_anchor_not_judged_every_period_left_out():
    weeks = [1] * 6 + [2] * 6
    anchors = pd.DataFrame(
        {"week": weeks, "id": list("abcdef") * 2, "judge": [1, 0, 1, 0, 1, 0] * 2,
         "human": [1, 0, 1, 0, 1, 0] * 2}
    )  # fmt: skip
    anchors.loc[7, "judge"] = None  # anchor b's verdict in week 2
    items = pd.DataFrame({"week": [1, 1, 2, 2], "judge": [None, 0, 1, 1]})
    log = anchor_log(items, anchors, **ROLES)
    assert log.a_f.size == 10 and log.n_f.size == 3  # b left out of both weeks
    assert 1 not in set(log.a_item)
    assert "1 anchor verdict(s) without a verdict in 'judge': left out" in log.notes
    assert "1 new item(s) without a verdict in 'judge': left out" in log.notes
    assert any("1 of 6 anchors were not judged in every period" in n for n in log.notes)


def test_anchors_judged_in_different_periods_refused_when_too_few_are_paired():
    items, anchors = _frames()
    anchors.loc[5, "judge"] = None  # b (a negative) unjudged in week 2: one negative left
    with pytest.raises(InputError, match="judges the same anchors every period") as e:
        anchor_log(items, anchors, **ROLES)
    assert e.value.field == "anchors"


@pytest.mark.parametrize(
    ("change", "field", "value"),
    [
        (lambda i, a: a.assign(human=[1, 0, 1, 0, 0, None, None, None]), "human", "a"),
        (lambda i, a: a.assign(human=[1, 0, 1, None, None, None, None, None]), "human", "d"),
        (lambda i, a: a.assign(id=["a", "b", "c", "d", "a", "b", "c", "c"]), "id", "c"),
        (lambda i, a: a.drop(columns="id"), "item", "id"),
        (lambda i, a: a.iloc[:0], "anchors", 0),
        (lambda i, a: (i.drop(columns="week"), a), "time", "week"),
    ],
)
def test_bad_logs_name_the_field(change, field, value):
    items, anchors = _frames()
    out = change(items, anchors)
    if isinstance(out, tuple):
        items, anchors = out
    else:
        anchors = out
    with pytest.raises(InputError) as e:
        anchor_log(items, anchors, **ROLES)
    assert e.value.field == field and e.value.value == value
