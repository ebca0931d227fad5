"""Holm's step-down adjustment (judgebayes/inference/multiplicity.py) against statsmodels'
multipletests, with NaN left out and one test left alone."""

import numpy as np
from statsmodels.stats.multitest import multipletests

from judgebayes.inference.multiplicity import holm


def test_holm_is_statsmodels_holm_and_leaves_nan_out():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2])
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1], rtol=1e-14)
    with_nan = np.array([0.02, np.nan, 0.01, 0.5])
    got = holm(with_nan)
    assert np.isnan(got[1])
    ok = ~np.isnan(with_nan)
    np.testing.assert_allclose(got[ok], multipletests(with_nan[ok], method="holm")[1])
    assert holm([0.3]).tolist() == [0.3] and holm([]).size == 0  # nothing to adjust
