"""A monitor's log read (judgebayes/data/monitor/log.py): verdicts, labels, periods and systems
as written, a score judge's scales named when wrong, and a labelled set smaller than its
labels refused.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.monitor.log import labelled_sequence, monitor_log
from judgebayes.errors import InputError
from tests.simulators import score_log


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"human_scale": (1, 5)}, "human_scale"),
        ({"scale": (1, 5)}, "score"),
        ({"scale": (1, 10), "positive": 1}, "positive"),
        ({"scale": (10, 1)}, "scale"),
    ],
)
def test_scores_bad_input_names_the_field(kwargs, field):
    log, _ = score_log(np.random.default_rng(0), weeks=2)
    with pytest.raises(InputError) as e:
        jb.monitor(log, "score", "human", "week", **kwargs)
    assert e.value.field == field


def test_the_log_is_read_into_verdicts_periods_and_systems():
    frame = pd.DataFrame(
        {
            "week": [2, 0, 1, 0, 2],
            "judge": ["yes", "no", None, "yes", "no"],
            "human": [1, None, 0, 1, None],
            "system": ["a", "b", "a", "b", "a"],
        }
    )
    f, y, _back, period, labels, prob, systems = monitor_log(
        frame, "judge", "human", "week", system="system", label_prob=None, freq=None,
        scale=None, human_scale=None, positive=None,
    )  # fmt: skip
    np.testing.assert_array_equal(f, [1.0, 0.0, np.nan, 1.0, 0.0])  # a missing verdict: NaN
    np.testing.assert_array_equal(y, [1.0, np.nan, 0.0, 1.0, np.nan])
    assert [labels[p] for p in period] == ["2", "0", "1", "0", "2"] and prob is None
    assert systems.tolist() == ["a", "b", "a", "b", "a"]
    with pytest.raises(InputError, match="no rows") as e:
        monitor_log(
            frame.iloc[:0], "judge", "human", "week", system=None, label_prob=None, freq=None,
            scale=None, human_scale=None, positive=None,
        )  # fmt: skip
    assert e.value.field == "frame"


def test_a_labelled_set_smaller_than_its_labels_is_named():
    frame = pd.DataFrame({"human": [1, 0, None, 1]})
    with pytest.raises(InputError, match="population 2 is smaller than the 3") as e:
        labelled_sequence(frame, "human", order=None, judge=None, population=2, positive=None)
    assert e.value.field == "population"
    with pytest.raises(InputError, match="has no labels") as e:
        labelled_sequence(
            frame.assign(human=None), "human", order=None, judge=None, population=None,
            positive=None,
        )  # fmt: skip
    assert e.value.field == "human"
