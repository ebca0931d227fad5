"""Planning a calibration set (judgebayes/inference/accuracy/design/calibration.py): Algorithm
1 by hand, the allocation's bounds and continuity, the optimal ratio of Prop. 5.2, minimal
plans, the LLM-advantage region of Prop. 6.1, and the width falling as calibration grows.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import judgebayes as jb
from judgebayes.errors import InputError, JudgeNoBetterThanChanceError
from judgebayes.inference.accuracy.design import optimal_calibration_ratio


@given(
    p=st.floats(0.05, 0.95),
    q0=st.floats(0.6, 0.99),
    q1=st.floats(0.6, 0.99),
    m0=st.integers(5, 300),
    m1=st.integers(5, 300),
    d=st.integers(1, 300),
)
def test_width_falls_as_calibration_grows(p, q0, q1, m0, m1, d):
    w = jb.plan.interval_width(p, q0, q1, np.inf, [m0, m0 + d, m0], [m1, m1, m1 + d])
    assert w[1] <= w[0] + 1e-12 and w[2] <= w[0] + 1e-12


def test_algorithm_1_hand_value():
    # pilot 10 per class: 7/10 and 9/10 -> q0~ = 8/12, q1~ = 10/12, kappa = (4/12)/(2/12) = 2
    m, p = 200, 0.6
    m1_star = m / (1 + (1 / p - 1) * math.sqrt(2))
    m0, m1 = jb.plan.allocate_calibration(m, p, 0.7, 0.9, m_pilot=10)
    assert m1 == math.floor(m1_star + 0.5) and m0 + m1 == m


def test_allocation_bounds_and_extremes():
    # p -> 0 sends everything to class 0, but never below the pilot / one item
    assert jb.plan.allocate_calibration(100, 0.0, 0.8, 0.8, m_pilot=10) == (90, 10)
    assert jb.plan.allocate_calibration(100, 1.0, 0.8, 0.8, m_pilot=10) == (10, 90)
    assert jb.plan.allocate_calibration(100, 0.0, 0.8, 0.8) == (99, 1)
    # q1 = 1 known exactly: the published formula divides by zero; ours gives all to class 0
    assert jb.plan.allocate_calibration(100, 0.5, 0.8, 1.0) == (99, 1)
    # 0/0 corner (p = 0 and q0 = 1): equal split
    assert jb.plan.allocate_calibration(100, 0.0, 1.0, 0.8) == (50, 50)
    with pytest.raises(InputError, match="too small"):
        jb.plan.allocate_calibration(15, 0.5, 0.8, 0.8, m_pilot=10)


@given(
    m=st.integers(2, 5000),
    p=st.floats(0, 1),
    q0=st.floats(0, 1),
    q1=st.floats(0, 1),
    mp=st.integers(0, 50),
)
def test_allocation_sums_to_m_and_never_zero(m, p, q0, q1, mp):
    if 2 * max(mp, 1) > m:
        with pytest.raises(InputError):
            jb.plan.allocate_calibration(m, p, q0, q1, mp)
        return
    m0, m1 = jb.plan.allocate_calibration(m, p, q0, q1, mp)
    assert m0 + m1 == m and min(m0, m1) >= max(mp, 1)


@given(
    m=st.integers(20, 2000), q0=st.floats(0.5, 0.99), q1=st.floats(0.5, 0.99), mp=st.integers(0, 10)
)
def test_allocation_is_continuous_in_p(m, q0, q1, mp):
    # on a grid fine enough that m * d(frac)/dp * dp < 1, adjacent allocations differ by <= 1
    p = np.linspace(0, 1, 20 * m + 1)
    _, m1 = jb.plan.allocate_calibration(m, p, q0, q1, mp)
    assert np.max(np.abs(np.diff(m1))) <= 1
    assert np.all(np.diff(m1) >= 0)  # more positives on the test set -> more class-1 labels


def test_allocation_vectorised_equals_scalar():
    ps = np.linspace(0.01, 0.99, 13)
    m0, m1 = jb.plan.allocate_calibration(200, ps, 0.7, 0.9, 10)
    for i, p in enumerate(ps):
        assert (m0[i], m1[i]) == jb.plan.allocate_calibration(200, float(p), 0.7, 0.9, 10)


def test_optimal_ratio_prop_5_2():
    assert optimal_calibration_ratio(0.25, 0.91, 0.99) == pytest.approx(3 * 3)
    exact = optimal_calibration_ratio(0.25, 0.91, 0.99, exact=True)
    assert exact == pytest.approx(
        abs(0.99 - 0.25) / abs(0.25 + 0.91 - 1) * math.sqrt(0.91 * 0.09 / (0.99 * 0.01))
    )


def test_exact_ratio_minimises_calibration_variance():
    # brute force over all splits of a large budget (n infinite) at fixed rates
    p, q0, q1, m = 0.4, 0.8, 0.9, 4000
    m1 = np.arange(1, m)
    th = (p + q0 - 1) / (q0 + q1 - 1)
    var = (1 - th) ** 2 * q0 * (1 - q0) / (m - m1) + th**2 * q1 * (1 - q1) / m1
    best = m1[np.argmin(var)]
    r = optimal_calibration_ratio(p, q0, q1, exact=True)
    assert abs(m / (1 + r) - best) <= 1


def test_plan_calibration_is_minimal():
    for alloc in ("equal", "optimal"):
        plan = jb.plan.plan_calibration(0.6, 0.7, 0.9, width=0.1, allocation=alloc)
        assert plan.width <= 0.1 and plan.m0 + plan.m1 == plan.m
        # one fewer item (best split) misses the target
        m = plan.m - 1
        m1 = np.arange(1, m)
        w = jb.plan.interval_width(0.6, 0.7, 0.9, np.inf, m - m1, m1)
        if alloc == "equal":
            w = jb.plan.interval_width(0.6, 0.7, 0.9, np.inf, m - m // 2, m // 2)
            assert w > 0.1
        else:
            assert np.min(w) > 0.1 - 1e-4  # neighbours of the exact ratio are checked
    eq = jb.plan.plan_calibration(0.6, 0.7, 0.9, 0.1, allocation="equal")
    opt = jb.plan.plan_calibration(0.6, 0.7, 0.9, 0.1, allocation="optimal")
    assert opt.m < eq.m  # Fig. 6c: the optimal split needs fewer labels


def test_plan_with_finite_n_and_unreachable_width():
    inf = jb.plan.plan_calibration(0.5, 0.8, 0.8, 0.2)
    fin = jb.plan.plan_calibration(0.5, 0.8, 0.8, 0.2, n=500)
    assert fin.m > inf.m
    with pytest.raises(InputError, match="cannot be reached") as ei:
        jb.plan.plan_calibration(0.5, 0.8, 0.8, 0.05, n=100)
    assert ei.value.field == "width"
    with pytest.raises(JudgeNoBetterThanChanceError):
        jb.plan.plan_calibration(0.5, 0.5, 0.4, 0.2)


def test_llm_advantage_region_prop_6_1():
    q = 0.95
    half = math.sqrt(0.5 - 1 / (4 * (2 * q - 1) ** 2))
    lo, hi = jb.plan.llm_advantage_region(q)
    assert (lo, hi) == (pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    # threshold 1/2 + 1/(2 sqrt 2): empty below it
    thr = 0.5 + 1 / (2 * math.sqrt(2))
    assert np.isnan(jb.plan.llm_advantage_region(thr - 1e-6)[0])
    assert jb.plan.llm_advantage_region(thr + 1e-6)[0] == pytest.approx(0.5, abs=1e-2)
    lo_v, hi_v = jb.plan.llm_advantage_region(np.array([0.9, 0.95, 0.99]))
    assert np.all(np.diff(hi_v - lo_v) > 0)  # the region grows with judge quality


@given(q0=st.floats(0.6, 0.999), q1=st.floats(0.6, 0.999), th=st.floats(0.001, 0.999))
def test_advantage_region_agrees_with_variances(q0, q1, th):
    # the region is exactly where Var(theta_hat) (n -> inf, random calibration) <= Var(phi_hat)
    lo, hi = jb.plan.llm_advantage_region(q0, q1)
    v_llm = ((1 - th) * q0 * (1 - q0) + th * q1 * (1 - q1)) / (q0 + q1 - 1) ** 2
    v_human = th * (1 - th)
    if abs(v_llm - v_human) < 1e-9:
        return
    inside = (not np.isnan(lo)) and lo <= th <= hi
    assert inside == (v_llm < v_human)
