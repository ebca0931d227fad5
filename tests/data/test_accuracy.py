import numpy as np
import pandas as pd
import pytest

from judgebayes.data.accuracy import (
    CalibrationCounts,
    TestCounts,
    check_counts,
    counts_from_calibration_frame,
    counts_from_test_frame,
    normalize_labels,
)
from judgebayes.errors import (
    CountError,
    EmptyClassError,
    InputError,
    LabelError,
    LengthMismatchError,
)


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


def test_check_counts_errors():
    with pytest.raises(CountError, match="non-negative"):
        check_counts("k", -1, 10, total_name="n")
    with pytest.raises(CountError, match="larger than"):
        check_counts("k", 11, 10, total_name="n")
    with pytest.raises(CountError, match="whole number"):
        check_counts("k", 1.5, 10, total_name="n")
    with pytest.raises(LengthMismatchError):
        check_counts("k", [1, 2, 3], [4, 5], total_name="n")
    with pytest.raises(EmptyClassError):
        check_counts("tn", 0, 0, total_name="m0", allow_zero_total=False)


def test_count_containers_validate():
    with pytest.raises(EmptyClassError):
        CalibrationCounts(tp=[5], m1=[10], tn=[0], m0=[0])
    with pytest.raises(CountError):
        CalibrationCounts(tp=[11], m1=[10], tn=[1], m0=[5])
    with pytest.raises(LengthMismatchError):
        CalibrationCounts(tp=[1, 2], m1=[10, 10], tn=[1], m0=[5], strata=("a", "b"))
    with pytest.raises(LengthMismatchError):
        TestCounts(k=[[1, 2]], n=[[3, 4]], n_missing=[[0, 0]], systems=("a",), strata=("x",))
    t = TestCounts.from_arrays([3, 4], [10, 10], n_missing=[1, 0], systems=["a", "b"])
    k, _n, miss = t.per_system()
    np.testing.assert_array_equal(k, [3, 4])
    np.testing.assert_array_equal(miss, [1, 0])


def test_frames_to_counts_with_systems_strata_and_missing():
    df = pd.DataFrame(
        {
            "sys": ["a", "a", "a", "b", "b", "b", "b"],
            "len": ["short", "long", "long", "short", "short", "long", "long"],
            "v": ["pass", "fail", None, "pass", "pass", np.nan, "fail"],
        }
    )
    t = counts_from_test_frame(df, judge="v", system="sys", stratum="len")
    assert t.systems == ("a", "b") and t.strata == ("short", "long")
    np.testing.assert_array_equal(t.k, [[1, 0], [2, 0]])
    np.testing.assert_array_equal(t.n, [[1, 1], [2, 1]])
    np.testing.assert_array_equal(t.n_missing, [[0, 1], [0, 1]])
    assert int(t.n.sum() + t.n_missing.sum()) == len(df)  # nothing lost


def test_calibration_frame():
    cal = pd.DataFrame(
        {
            "human": [1, 1, 1, 0, 0, 0, None, 1],
            "judge": [1, 1, 0, 0, 1, 0, 1, None],
            "src": ["x"] * 8,
        }
    )
    c = counts_from_calibration_frame(cal, stratum="src")
    assert (c.tp[0], c.m1[0], c.tn[0], c.m0[0], c.n_missing[0]) == (2, 3, 2, 3, 2)
    assert c.dim == "src" and c.fp[0] == 1 and c.fn[0] == 1
    with pytest.raises(EmptyClassError, match="truly negative"):
        counts_from_calibration_frame(pd.DataFrame({"human": [1, 1], "judge": [1, 0]}))


def test_frame_errors_name_the_field():
    with pytest.raises(InputError, match="'verdict'") as ei:
        counts_from_test_frame(pd.DataFrame({"judge": [1]}), judge="verdict")
    assert ei.value.field == "judge"
    with pytest.raises(InputError, match="no rows"):
        counts_from_test_frame(pd.DataFrame({"judge": []}))
    with pytest.raises(InputError, match="'sys'"):
        counts_from_test_frame(pd.DataFrame({"judge": [1, 0], "sys": ["a", None]}), system="sys")
