"""The judge-error ranking's data (judgebayes/data/ranking/channel.py): instances read from
a comparisons frame with human preferences, their groups, ties and the typed errors.
"""

import numpy as np
import pytest

from judgebayes.data.ranking.channel import channel_from_frames
from judgebayes.errors import InputError
from tests.helpers import channel_frame


def test_channel_reads_instances_and_keeps_every_human_state():
    ch = channel_from_frames(channel_frame(), instance="pair")
    assert ch.items == ("a", "b", "c") and ch.judges == ("j1", "j2")
    assert ch.n_instances == 3 and ch.n_labelled == 2 and ch.n_outcomes == 3
    # instance 1: j1 says c (second), j2 a tie; instance 2: human tie, j2 silent
    np.testing.assert_array_equal(ch.verdicts, [[0, 1], [1, 2], [0, -1]])
    np.testing.assert_array_equal(ch.human, [0, -1, 2])
    g = ch.groups()
    assert g["weight"].sum() == 3
    # every pattern appears with each human state (-1, 0, 1, 2): 3 patterns x 4
    assert g["weight"].size == 12
    hidden = ch.with_labelled([False, False, True])
    g2 = hidden.groups()
    np.testing.assert_array_equal(g2["verdicts"], g["verdicts"])  # same shapes: no recompile
    assert hidden.n_labelled == 1 and g2["weight"].sum() == 3


def test_channel_ties_drop_is_counted():
    ch = channel_from_frames(channel_frame(), instance="pair", ties="drop")
    assert ch.n_outcomes == 2
    assert ch.dropped == {"judge_ties": 1, "human_ties": 1, "no_verdict": 0}
    assert ch.n_instances == 2


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda d: d.assign(human=["a", "b", None, None, "tie"]), "two different human labels"),
        (lambda d: d.assign(human=["zz", "zz", None, None, "tie"]), "neither shown item"),
        (lambda d: d.assign(judge=["j1", "j1", "j1", "j2", "j1"]), "two verdicts on instance"),
        (
            lambda d: d.assign(second=["b", "c", "c", "c", "a"], winner=["a"] * 2 + ["c"] * 3),
            "two different pairs",
        ),
        (lambda d: d.assign(human=[None] * 5), "no human label"),
    ],
)
def test_channel_bad_input_is_one_typed_error(change, match):
    with pytest.raises(InputError, match=match):
        channel_from_frames(change(channel_frame()), instance="pair")
