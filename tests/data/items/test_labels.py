"""The judge and human roles of an items frame (judgebayes/data/items/labels.py): verdicts
and labels in any spelling, several judges' votes and several raters' majority, worked by
hand."""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.items.labels import binary_labels, read_labels, read_verdicts
from judgebayes.errors import InputError


def test_several_raters_give_their_majority_and_a_tie_is_unlabelled():
    frame = pd.DataFrame(
        {
            "r1": ["yes", "yes", None, "no", "yes"],
            "r2": ["yes", "no", None, "no", None],
            "r3": ["no", None, None, "yes", None],
        }
    )
    labels = read_labels(frame, ["r1", "r2", "r3"], None)
    # 2 of 3 positive; 1 of 2 (a tie); nobody; 1 of 3; one rater alone
    np.testing.assert_array_equal(labels.value, [1.0, np.nan, np.nan, 0.0, 1.0])
    assert labels.tied.tolist() == [False, True, False, False, False]
    assert labels.raters.shape == (5, 3) and labels.names == ("r1", "r2", "r3")


def test_several_judges_count_their_positive_votes_and_a_missing_vote_is_missing():
    frame = pd.DataFrame({"j1": [1, 1, 0, 1], "j2": [1, 0, 0, np.nan]})
    verdicts = read_verdicts(frame, ["j1", "j2"], None)
    np.testing.assert_array_equal(verdicts.value, [2.0, 1.0, 0.0, np.nan])
    one = read_verdicts(frame, ["j1"], None)
    assert one.votes is None and one.value.tolist() == [1.0, 1.0, 0.0, 1.0]


def test_a_number_other_than_0_or_1_is_named_with_its_column():
    with pytest.raises(InputError, match="label 2 is not 0 or 1") as e:
        binary_labels(pd.Series([0.0, 2.0, 1.0]), "verdict", None)
    assert (e.value.field, e.value.value) == ("verdict", 2.0)
    # positive= names the positive value: every other value is negative
    np.testing.assert_array_equal(
        binary_labels(pd.Series(["good", "bad", None]), "verdict", "good"), [1.0, 0.0, np.nan]
    )
