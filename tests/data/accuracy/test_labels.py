"""Labels normalised (judgebayes/data/accuracy/labels.py): every usual vocabulary, missing
values counted, an unknown label named with its column, value and count, positive= and
negative=.
"""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.accuracy import normalize_labels
from judgebayes.errors import InputError, LabelError


@pytest.mark.parametrize(
    "pos,neg",
    [
        ("correct", "incorrect"),
        ("Valid", "INVALID"),
        (" pass ", "fail"),
        ("yes", "no"),
        ("True", "false"),
        (True, False),
        (1, 0),
        (1.0, 0.0),
        ("1", "0"),
        (np.int64(1), np.int64(0)),
    ],
)
def test_vocabulary(pos, neg):
    lab = normalize_labels([pos, neg, pos], column="c")
    np.testing.assert_array_equal(lab.values, [1.0, 0.0, 1.0])
    assert lab.n_missing == 0 and lab.n == 3 and lab.n_positive == 2


def test_missing_values_are_counted_not_dropped():
    lab = normalize_labels(["yes", None, np.nan, "", "  ", pd.NA, "no"], column="judge")
    assert lab.n_missing == 5
    assert lab.values.shape == (7,)
    np.testing.assert_array_equal(lab.missing, [False, True, True, True, True, True, False])


def test_unknown_label_names_column_value_and_count():
    with pytest.raises(LabelError) as ei:
        normalize_labels(["yes", "maybe", "no", "maybe", "MAYBE"], column="verdict")
    err = ei.value
    assert err.field == "verdict" and err.count == 3
    msg = str(err)
    assert "'verdict'" in msg and "maybe" in msg.lower() and "3 row" in msg


def test_numeric_label_outside_vocabulary():
    with pytest.raises(LabelError, match="2"):
        normalize_labels([1, 2, 0], column="winner")


def test_positive_override():
    lab = normalize_labels([1, 2, 2, None], column="winner", positive=1)
    np.testing.assert_array_equal(lab.values[:3], [1, 0, 0])
    assert lab.n_missing == 1
    lab = normalize_labels(["A", "b", "a"], column="w", positive="a", negative="B")
    np.testing.assert_array_equal(lab.values, [1, 0, 1])
    with pytest.raises(LabelError, match="'c'"):
        normalize_labels(["a", "b", "c"], column="w", positive="a", negative="b")
    with pytest.raises(InputError):
        normalize_labels(["a"], column="w", positive="a", negative="a")
