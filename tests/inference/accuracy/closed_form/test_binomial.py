"""Binomial intervals and the interval object
(judgebayes/inference/accuracy/closed_form/binomial.py): Wilson, Clopper-Pearson and Wald
against published values and scipy's binomtest; the interval behaves like a tuple and
pickles.
"""

import math
import pickle

import pytest
from numpy.testing import assert_allclose
from scipy import stats

import judgebayes as jb


def test_textbook_binomial_intervals():
    # Brown, Cai & DasGupta (2001)-style reference values for 8 successes of 10, 95%
    lo, hi = jb.estimators.wilson_interval(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    lo, hi = jb.estimators.clopper_pearson_interval(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4439, 0.9748)
    lo, hi = jb.estimators.wald_interval(8, 10)
    z = stats.norm.ppf(0.975)
    assert lo == pytest.approx(0.8 - z * math.sqrt(0.016)) and hi == 1.0  # truncated
    # Clopper-Pearson matches scipy's exact binomial test interval
    for k, n in [(0, 7), (3, 7), (7, 7), (120, 1000)]:
        ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert_allclose(jb.estimators.clopper_pearson_interval(k, n), (ci.low, ci.high), atol=1e-12)
        ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert_allclose(jb.estimators.wilson_interval(k, n), (ci.low, ci.high), atol=1e-12)


def test_interval_object_behaves_like_a_tuple():
    ci = jb.estimators.lang_reiczigel_interval(0.62, 0.7, 0.9, 1000, 100, 100)
    lo, hi = ci
    assert (lo, hi) == (ci.lower, ci.upper) and len(ci) == 2
    back = pickle.loads(pickle.dumps(ci))
    assert tuple(back) == tuple(ci) and back.se == ci.se
