"""The Lang-Reiczigel interval (judgebayes/inference/accuracy/closed_form/lang_reiczigel.py):
against the published code (tests/reference.py), Eq. 6's centre as printed, the boundary
one-sided, typed errors, and properties (label swap, vectorised equals scalar, ordered,
broadcasting).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

import judgebayes as jb
from judgebayes.errors import CountError, InputError, JudgeNoBetterThanChanceError
from judgebayes.inference.accuracy.closed_form import lang_reiczigel as lr
from tests import reference as ref
from tests.helpers import good_q, rates, sizes


@pytest.mark.parametrize(
    "args",
    [
        (0.62, 0.7, 0.9, 1000, 100, 100),
        (0.05, 0.95, 0.85, 300, 20, 40),
        (0.97, 0.6, 0.99, 50, 5, 7),
        (0.5, 0.51, 0.51, 10_000, 500, 500),
    ],
)
@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.01])
def test_lang_reiczigel_matches_published_code(args, alpha):
    ours = jb.estimators.lang_reiczigel_interval(*args, alpha=alpha)
    theirs = ref.confidence_interval(*args, alpha=alpha)
    if not ours.degenerate:
        assert_allclose(tuple(ours), theirs, rtol=0, atol=1e-13)
    assert ours.estimate == pytest.approx(ref.point_estimator(*args[:3]), abs=1e-14)


def test_lang_reiczigel_point_centre_is_eq6_as_printed():
    p, q0, q1, n, m0, m1 = 0.5, 0.8, 0.95, 200, 30, 30  # interval well inside [0, 1]
    a = jb.estimators.lang_reiczigel_interval(p, q0, q1, n, m0, m1)
    b = jb.estimators.lang_reiczigel_interval(p, q0, q1, n, m0, m1, centre="point")
    # same half-width; centres differ by theta_hat - theta_tilde
    assert a.width == pytest.approx(b.width)
    z = stats.norm.ppf(0.975)
    pt = (n * p + z**2 / 2) / (n + z**2)
    q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    th_tilde = (pt + q0t - 1) / (q0t + q1t - 1)
    th_hat = (p + q0 - 1) / (q0 + q1 - 1)
    assert b.centre - a.centre == pytest.approx(th_hat - th_tilde, abs=1e-14)


def test_boundary_degenerate_is_flagged_and_one_sided():
    args = (0.0, 0.95, 0.9, 10_000, 1000, 1000)  # raw interval lies wholly below 0
    assert ref.confidence_interval(*args) == (0.0, 0.0)  # published code collapses
    ci = jb.estimators.lang_reiczigel_interval(*args)
    assert ci.degenerate is True
    assert ci.lower == 0.0 and ci.upper > 0.0
    z1 = stats.norm.ppf(0.95)
    assert ci.upper == pytest.approx(z1 * lr.lr_se(*_lr_tilde(*args), 0.0))
    # mirror at 1 via label swap
    hi = jb.estimators.lang_reiczigel_interval(1.0, 0.9, 0.95, 10_000, 1000, 1000)
    assert hi.degenerate is True and hi.upper == 1.0
    assert hi.lower == pytest.approx(1 - ci.upper)


def _lr_tilde(p, q0, q1, n, m0, m1):
    z = stats.norm.ppf(0.975)
    pt, nt, q0t, q1t, m0t, m1t = lr.lr_parts(
        np.float64(p),
        np.float64(q0),
        np.float64(q1),
        np.float64(n),
        np.float64(m0),
        np.float64(m1),
        z,
    )
    return pt, nt, q0t, q1t, m0t, m1t


def test_adjusted_rates_can_fall_to_chance_even_when_raw_do_not():
    # q0 = 1 on 1 item shrinks to 2/3; q1 = 0.32 on 500 items barely moves (161/502):
    # raw sum 1.32 > 1 but adjusted sum 0.987 <= 1
    assert jb.estimators.rogan_gladen(0.5, 1.0, 0.32) > 0
    with pytest.raises(JudgeNoBetterThanChanceError):
        jb.estimators.lang_reiczigel_interval(0.5, 1.0, 0.32, 100, 1, 500)


def test_bad_inputs_raise_typed_errors():
    with pytest.raises(InputError, match="p_hat"):
        jb.estimators.rogan_gladen(1.2, 0.8, 0.8)
    with pytest.raises(InputError, match="alpha"):
        jb.estimators.lang_reiczigel_interval(0.5, 0.8, 0.8, 10, 10, 10, alpha=1.5)
    with pytest.raises(InputError, match="m0"):
        jb.estimators.lang_reiczigel_interval(0.5, 0.8, 0.8, 10, 0, 10)
    with pytest.raises(CountError):
        jb.estimators.wilson_interval(11, 10)
    with pytest.raises(InputError, match="errors"):
        jb.estimators.rogan_gladen(0.5, 0.8, 0.8, errors="ignore")


@given(p=rates, q0=good_q, q1=good_q, n=sizes, m0=st.integers(1, 500), m1=st.integers(1, 500))
def test_label_swap_symmetry_interval(p, q0, q1, n, m0, m1):
    lo, hi = jb.estimators.lang_reiczigel_interval(p, q0, q1, n, m0, m1)
    lo2, hi2 = jb.estimators.lang_reiczigel_interval(1 - p, q1, q0, n, m1, m0)
    assert lo == pytest.approx(1 - hi2, abs=1e-9) and hi == pytest.approx(1 - lo2, abs=1e-9)


@given(
    st.lists(
        st.tuples(rates, good_q, good_q, sizes, st.integers(1, 400), st.integers(1, 400)),
        min_size=1,
        max_size=8,
    )
)
def test_vectorised_equals_scalar(rows):
    a = np.array(rows, dtype=float).T
    vec = jb.estimators.lang_reiczigel_interval(*a)
    rg = jb.estimators.rogan_gladen(a[0], a[1], a[2])
    var = jb.estimators.delta_method_variance(*a)
    for i, row in enumerate(rows):
        one = jb.estimators.lang_reiczigel_interval(*row)
        # SIMD array kernels may differ from scalar arithmetic in the last bit
        assert vec.lower[i] == pytest.approx(one.lower, rel=1e-14, abs=1e-15)
        assert vec.upper[i] == pytest.approx(one.upper, rel=1e-14, abs=1e-15)
        assert bool(vec.degenerate[i]) == one.degenerate
        assert rg[i] == pytest.approx(jb.estimators.rogan_gladen(*row[:3]), rel=1e-14, abs=1e-15)
        assert var[i] == pytest.approx(jb.estimators.delta_method_variance(*row), rel=1e-14)


@given(p=rates, q0=good_q, q1=good_q, n=sizes, m0=st.integers(1, 500), m1=st.integers(1, 500))
def test_interval_is_ordered_and_flags_containment(p, q0, q1, n, m0, m1):
    ci = jb.estimators.lang_reiczigel_interval(p, q0, q1, n, m0, m1)
    assert 0 <= ci.lower <= ci.upper <= 1
    inside = ci.lower - 1e-12 <= ci.estimate <= ci.upper + 1e-12
    assert ci.contains_estimate == inside
    if min(m0, m1) >= 3:
        assert inside


def test_tiny_calibration_class_can_exclude_estimate():
    # m1 = 2: q1~ = (2 * 1 + 1) / 4 = 0.75 while q1^ = 1, so the adjusted centre moves far
    ci = jb.estimators.lang_reiczigel_interval(0.9427, 0.986, 0.9858, 1185, 418, 2)
    assert ci.contains_estimate is False and ci.estimate < ci.lower


def test_broadcasting_shapes():
    out = jb.estimators.lang_reiczigel_interval(
        np.linspace(0.1, 0.9, 5)[:, None], 0.8, 0.9, 100, [10, 20, 40], 30
    )
    assert np.shape(out.lower) == (5, 3) and np.shape(out.degenerate) == (5, 3)
    # array p with scalar everything else: flags have the output's shape
    out = jb.estimators.lang_reiczigel_interval(
        np.array([0.0, 0.5, 1.0]), 0.95, 0.9, 10_000, 1000, 1000
    )
    assert out.degenerate.dtype == bool
    np.testing.assert_array_equal(out.degenerate, [True, False, True])
    assert out.contains_estimate.shape == (3,)
