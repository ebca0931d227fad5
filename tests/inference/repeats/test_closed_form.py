"""The repeats design's closed form (judgebayes/inference/repeats/closed_form.py): the
modified large-sample interval of a difference of mean squares, by hand."""

import numpy as np
import pytest
from scipy import stats

from judgebayes.inference.repeats.closed_form import mls_interval


def test_mls_interval_reduces_to_the_chi_square_interval_and_brackets_the_estimate():
    lo, hi = mls_interval(0.2, 9, 0.0, 40, 0.05)
    assert lo == pytest.approx(9 * 0.2 / stats.chi2.ppf(0.975, 9), rel=1e-12)
    assert hi == pytest.approx(9 * 0.2 / stats.chi2.ppf(0.025, 9), rel=1e-12)
    lo, hi = mls_interval(0.2, 9, 0.05, 40, 0.05)
    assert lo < 0.15 < hi
    # the second mean square's uncertainty widens the interval of the difference
    assert hi - lo > np.diff(mls_interval(0.2, 9, 0.05, 1e7, 0.05))[0]
