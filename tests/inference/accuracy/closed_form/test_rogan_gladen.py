"""The Rogan-Gladen estimator (judgebayes/inference/accuracy/closed_form/rogan_gladen.py): hand
values, the delta-method variance, the judge's rates, chance refused, the bias formulas
against Prop. 5.1 and the exact expectation, and properties (label swap, exact unbiasedness
with known rates).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

import judgebayes as jb
from judgebayes.errors import JudgeNoBetterThanChanceError
from tests.helpers import good_q, rates


# ------------------------------------------------------------------ hand values
def test_rogan_gladen_hand_value():
    # (0.62 + 0.7 - 1) / (0.7 + 0.9 - 1) = 0.32 / 0.6
    assert jb.estimators.rogan_gladen(0.62, 0.7, 0.9) == pytest.approx(0.32 / 0.6, abs=1e-15)
    assert jb.estimators.rogan_gladen(0.1, 0.7, 0.9) == 0.0  # raw -1/3, clipped
    assert jb.estimators.rogan_gladen(0.1, 0.7, 0.9, clip=False) == pytest.approx(-0.2 / 0.6)
    assert isinstance(jb.estimators.rogan_gladen(0.5, 0.8, 0.8), float)


def test_delta_method_variance_hand_value():
    p, q0, q1, n, m0, m1 = 0.62, 0.7, 0.9, 1000, 100, 100
    th = 0.32 / 0.6
    expected = (p * (1 - p) / n + (1 - th) ** 2 * 0.21 / m0 + th**2 * 0.09 / m1) / 0.36
    assert jb.estimators.delta_method_variance(p, q0, q1, n, m0, m1) == pytest.approx(
        expected, rel=1e-14
    )


def test_judge_rates():
    r = jb.estimators.judge_rates(tp=90, m1=100, tn=70, m0=100)
    assert (r.q0, r.q1) == (0.7, 0.9)
    assert r.q0_lower < 0.7 < r.q0_upper and r.q1_lower < 0.9 < r.q1_upper
    with pytest.raises(jb.errors.EmptyClassError):
        jb.estimators.judge_rates(tp=0, m1=0, tn=1, m0=2)


def test_no_better_than_chance():
    with pytest.raises(JudgeNoBetterThanChanceError, match="no better than chance"):
        jb.estimators.rogan_gladen(0.5, 0.5, 0.5)
    with pytest.raises(JudgeNoBetterThanChanceError):
        jb.estimators.lang_reiczigel_interval(0.5, 0.3, 0.6, 100, 10, 10)
    with pytest.warns(jb.errors.NotBetterThanChanceWarning, match="2 of 3"):
        out = jb.estimators.rogan_gladen(
            [0.5, 0.5, 0.5], [0.9, 0.4, 0.2], [0.9, 0.5, 0.6], errors="nan"
        )
    assert not np.isnan(out[0]) and np.isnan(out[1:]).all()
    with pytest.warns(jb.errors.NotBetterThanChanceWarning):
        ci = jb.estimators.lang_reiczigel_interval(0.5, [0.9, 0.4], 0.5, 100, 10, 10, errors="nan")
    assert ci.n_invalid == 1 and np.isnan(ci.lower[1]) and not np.isnan(ci.lower[0])


# ------------------------------------------------------------------ bias formulas
def test_prop_5_1_symmetric_case():
    # with m = 2 m0 = 2 m1 and q0 = q1 = q the bias is (1/m) 2q/(2q-1)^2 (2 theta - 1)(1 - q)
    q, m = 0.8, 200
    th = np.linspace(0, 1, 11)
    expected = (1 / m) * 2 * q / (2 * q - 1) ** 2 * (2 * th - 1) * (1 - q)
    assert_allclose(jb.estimators.rogan_gladen_bias(th, q, q, m / 2, m / 2), expected, atol=1e-15)
    # the naive bias is (1 - 2 theta)(1 - q): positive for small theta (the proof of Prop. B.1
    # prints (2 theta - 1)(1 - q), a sign slip that does not affect the |bias| comparison)
    assert_allclose(jb.estimators.naive_bias(th, q, q), (1 - 2 * th) * (1 - q), atol=1e-15)
    # Prop. 5.1's claim: for m >~ 2q/(2q-1)^2 the corrected bias is smaller
    assert np.all(np.abs(expected) <= np.abs(jb.estimators.naive_bias(th, q, q)))


def test_rogan_gladen_bias_matches_exact_expectation():
    # exact E[theta_hat] by summing over the binomial pmfs of tn and tp (n -> inf: p fixed)
    th, q0, q1, m0, m1 = 0.3, 0.85, 0.9, 150, 150
    p = th * q1 + (1 - th) * (1 - q0)
    tn = np.arange(m0 + 1)[:, None]
    tp = np.arange(m1 + 1)[None, :]
    w = stats.binom.pmf(tn, m0, q0) * stats.binom.pmf(tp, m1, q1)
    with np.errstate(divide="ignore", invalid="ignore"):
        est = (p + tn / m0 - 1) / (tn / m0 + tp / m1 - 1)
    ok = (tn / m0 + tp / m1) > 1.2  # excludes a region of negligible mass (< 1e-12)
    assert w[~ok].sum() < 1e-12
    exact_bias = (w * np.where(ok, est, 0)).sum() / w[ok].sum() - th
    approx = jb.estimators.rogan_gladen_bias(th, q0, q1, m0, m1)
    # second-order approximation: agrees to O(1/m^2) ~ 1e-4 here
    assert exact_bias == pytest.approx(approx, abs=2e-4)
    assert abs(approx) > 5e-4  # the check is not trivially satisfied


# ------------------------------------------------------------------ properties
@given(p=rates, q0=good_q, q1=good_q)
def test_label_swap_symmetry_point(p, q0, q1):
    a = jb.estimators.rogan_gladen(p, q0, q1, clip=False)
    b = jb.estimators.rogan_gladen(1 - p, q1, q0, clip=False)
    assert a == pytest.approx(1 - b, abs=1e-9)
    assert jb.estimators.rogan_gladen(p, q0, q1) == pytest.approx(
        1 - jb.estimators.rogan_gladen(1 - p, q1, q0), abs=1e-9
    )


@given(theta=rates, q0=good_q, q1=good_q, n=st.integers(1, 60))
def test_exactly_unbiased_with_known_rates(theta, q0, q1, n):
    # E[(k/n + q0 - 1)/(q0 + q1 - 1)] summed exactly over the binomial pmf of k
    p = theta * q1 + (1 - theta) * (1 - q0)
    k = np.arange(n + 1)
    e = np.sum(stats.binom.pmf(k, n, p) * jb.estimators.rogan_gladen(k / n, q0, q1, clip=False))
    assert e == pytest.approx(theta, abs=1e-9)


def test_errors_nan_is_silent_when_nothing_is_invalid():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jb.estimators.rogan_gladen(np.array([0.2, 0.8]), 0.8, 0.9, errors="nan")
