"""The leaderboard family's one frame reader, and the reader of a new system's outcomes."""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.leaderboard import board_from_frame, new_system_outcomes
from judgebayes.errors import InputError


def _frame():
    return pd.DataFrame(
        {
            "model": ["a", "a", "a", "b", "b", "b", "b"],
            "q": ["x", "y", "z", "x", "y", "z", "z"],
            "verdict": [1, 0, 1, 0, 0, 1, 0],
            "human": [1, np.nan, np.nan, 1, np.nan, 0, np.nan],
            "task": ["t1", "t1", "t2", "t1", "t1", "t2", "t2"],
        }
    )


def test_cells_hold_each_systems_mean_outcome_and_its_counts():
    d = board_from_frame(_frame(), system="model", item="q", judge="verdict", human="human")
    assert d.systems == ("a", "b") and d.items == ("x", "y", "z")
    np.testing.assert_array_equal(d.rows, [[1, 1, 1], [1, 1, 2]])
    np.testing.assert_allclose(d.scores, [[1, 0, 1], [0, 0, 0.5]])
    np.testing.assert_allclose(d.labels, [[1, np.nan, np.nan], [1, np.nan, 0]])
    # the unlabelled rows' counts and the labelled rows' human positives
    np.testing.assert_array_equal(d.k, [[0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(d.n, [[0, 1, 1], [0, 1, 1]])
    np.testing.assert_array_equal(d.h1, [[1, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(d.n_l, [[1, 0, 0], [1, 0, 1]])
    # the judge on the labelled rows (tp, fn, tn, fp): a's one true positive; b's false
    # negative on x and false positive on z
    np.testing.assert_array_equal(d.confusion, [[1, 0, 0, 0], [0, 1, 0, 1]])
    assert d.judged and d.counts and not d.trials and d.n_repeated == 1
    # task is one value on every row of an item, two values over three items: no grouping
    # candidate (at most I/2 groups); with more items it is one
    assert d.item_groups == {}


def test_a_column_constant_within_items_is_kept_as_a_possible_grouping():
    n = 12
    frame = pd.DataFrame(
        {
            "system": np.repeat(["a", "b"], n),
            "item": np.tile(np.arange(n), 2),
            "score": np.tile([0, 1], n),
            "subtask": np.tile(np.arange(n) // 4, 2),  # 3 groups of 4 items
            "length": np.arange(2 * n) / 7,  # a measurement, not a group
            "row_id": np.arange(2 * n),  # varies within an item
        }
    )
    d = board_from_frame(frame)
    assert list(d.item_groups) == ["subtask"]
    order = np.asarray(d.items, int)  # the items' labels, sorted as text
    np.testing.assert_array_equal(d.item_groups["subtask"], order // 4)
    assert board_from_frame(frame, cluster="subtask").item_groups == {}


def test_fractions_and_trials_are_read_on_their_scale():
    frame = pd.DataFrame(
        {"system": ["a", "a", "b", "b"], "item": [1, 2, 1, 2], "win": [0.25, 1, 0.5, 0]}
    )
    d = board_from_frame(frame, score="win")
    assert not d.counts and d.scale == (0.0, 1.0)
    np.testing.assert_allclose(d.scores, [[0.25, 1], [0.5, 0]])
    likert = frame.assign(win=[1, 5, 3, 4])
    assert board_from_frame(likert, score="win", scale=(1, 5)).scores.max() == 5
    counts = frame.assign(win=[3, 10, 0, 7], n=10)
    d = board_from_frame(counts, score="win", trials="n")
    assert d.counts and d.trials
    np.testing.assert_allclose(d.scores, [[0.3, 1.0], [0.0, 0.7]])
    np.testing.assert_array_equal(d.rows, [[10, 10], [10, 10]])


@pytest.mark.parametrize(
    ("change", "field", "match"),
    [
        ({"score": "stray"}, "stray", "outside the scale"),  # a 5 on a 0/1 board
        ({"cluster": "model"}, "cluster", "both system= and cluster="),
        ({"cluster": "one"}, "cluster", "one value"),
        ({"cluster": "rowwise"}, "cluster", "more than one"),
        ({"human": "nolabel"}, "human", "no label"),
        ({"scale": (1, 0)}, "scale", "low below high"),
        ({"score": "verdict", "judge": "verdict"}, "judge", "same role"),
        ({"human": "human", "trials": "n"}, "trials", "one outcome per row"),
        ({"adjust": "model"}, "system", "given as both"),
        ({"trials": "n", "scale": (0, 10)}, "scale", "counts of successes"),
        ({"score": "yes_no", "trials": "n"}, "score", "count of successes"),
        ({"system": None}, "system", "names the system column"),
        ({"item": 3}, "item", "names the item column"),
        ({"system": "padded"}, "padded", "differ only by spaces"),
    ],
)
def test_bad_input_is_one_typed_error_naming_the_field(change, field, match):
    frame = _frame().assign(
        stray=[1, 0, 5, 0, 0, 1, 0],
        one="x",
        rowwise=list("abcdefg"),
        nolabel=np.nan,
        n=1,
        yes_no=["yes", "no", "yes", "no", "no", "yes", "no"],
        padded=["a", "a", "a", "a ", "a ", "a ", "a "],
    )
    kw = {"system": "model", "item": "q", "score": "verdict", **change}
    with pytest.raises(InputError, match=match) as err:
        board_from_frame(frame, **kw)
    assert err.value.field == field


def test_blank_outcomes_are_counted_and_one_system_refused():
    frame = _frame().assign(verdict=[1, np.nan, 1, 0, 0, 1, 0])
    d = board_from_frame(frame, system="model", item="q", score="verdict")
    assert d.n_missing == 1 and d.rows[0, 1] == 0 and np.isnan(d.scores[0, 1])
    assert not d.complete_items()[1]
    with pytest.raises(InputError, match="2 systems"):
        board_from_frame(frame[frame["model"] == "a"], system="model", item="q", score="verdict")


def test_a_new_systems_outcomes_are_read_as_counts():
    items = ("p", "q", "r")
    code, k, n = new_system_outcomes({"r": 1, "p": 0}, None, items)
    assert code.tolist() == [2, 0] and k.tolist() == [1, 0] and n.tolist() == [1, 1]
    code, k, n = new_system_outcomes({"q": 3}, {"q": 10}, items)
    assert (k.tolist(), n.tolist()) == ([3], [10])
    code, k, n = new_system_outcomes({"p": True, "r": "no"}, None, items)  # as the board reads
    assert k.tolist() == [1, 0]
    for outcomes, trials, match in (
        ({"q": 0.56}, None, "share solved"),  # a share where a 0/1 outcome is meant
        ({"q": 0.56}, {"q": 10}, "whole count"),
        ({"q": 11}, {"q": 10}, "whole count"),
        ({"q": 1}, {"p": 10}, "no count for item"),
        ({"zz": 1}, None, "not on the board"),
        (pd.Series([1, 0], index=["p", "p"]), None, "twice"),
        ({"q": None}, None, "no value"),
        ({}, None, "empty"),
        ({"q": 1}, {"q": 2.5}, "trials for item"),
        ([1, 0, 1], None, "whose positions would be read as items"),
        (np.ones(3), None, "whose positions would be read as items"),
    ):
        with pytest.raises(InputError, match=match):
            new_system_outcomes(outcomes, trials, items)


def test_a_grouping_column_with_a_blank_is_still_a_candidate():
    n = 12
    frame = pd.DataFrame(
        {
            "system": np.repeat(["a", "b"], n),
            "item": np.tile(np.arange(n), 2),
            "score": np.tile([0, 1], n),
            "subtask": np.tile((np.arange(n) // 4).astype(float), 2),
        }
    )
    frame.loc[frame["item"] == 0, "subtask"] = np.nan  # one item's subtask unknown
    assert list(board_from_frame(frame).item_groups) == ["subtask"]
