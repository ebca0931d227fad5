"""Count containers of the two-frame design (judgebayes/data/accuracy/counts.py): counts
checked by name, and the containers' validation.
"""

import numpy as np
import pytest

from judgebayes.data.accuracy import CalibrationCounts, TestCounts, check_counts
from judgebayes.errors import CountError, EmptyClassError, LengthMismatchError


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
