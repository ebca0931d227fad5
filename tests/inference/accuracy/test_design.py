import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import judgebayes as jb
from judgebayes.errors import InputError, JudgeNoBetterThanChanceError
from judgebayes.inference.accuracy.design import optimal_calibration_ratio


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


def test_paired_planner_predicts_the_detectable_difference():
    # the planner's detectable difference (power 0.8, two-sided 0.05) for 400 prompts, 25%
    # labelled on both systems, agreement 0.9, judge 0.9 / 0.8; simulated at that true
    # difference, 300 sets: power within 0.8 +- 0.1 (MC sd 0.023; the rest is the normal
    # approximation), and the estimator's sd within 20% of the predicted se
    plan = jb.plan.plan_paired(
        400, 0.25, rate_a=0.75, rate_b=0.70, agreement=0.9, sensitivity=0.9, specificity=0.8
    )
    delta = plan.detectable_difference
    est, rejected = [], []
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)  # labels at random by construction
    for r in range(300):
        f, *_ = jb.simulate.simulate_paired(400, rate_b=0.75 - delta, seed=r)
        fit = jb.AccuracyStudy.from_items(
            f, system="system", item="prompt", estimand="process"
        ).fit("closed_form")
        c = fit.contrasts().set_index(["a", "b"]).loc[("A", "B")]
        est.append(c["difference"])
        rejected.append(c["lower"] > 0)
    assert 0.7 <= np.mean(rejected) <= 0.9, np.mean(rejected)
    assert abs(np.std(est) / plan.se - 1) <= 0.2, (np.std(est), plan.se)
    # and the labels needed for a given difference: more for a smaller one, NaN when even
    # labelling every prompt cannot reach it
    need = jb.plan.plan_paired(
        400, 0.25, rate_a=0.75, rate_b=0.70, agreement=0.9, sensitivity=0.9,
        specificity=0.8, differences=(0.1, 0.06, 0.01),
    ).labelled_fraction_for  # fmt: skip
    assert need[0.1] < need[0.06] <= 1 and np.isnan(need[0.01])


def test_paired_planner_plans_over_a_range_of_agreement():
    # the worst agreement of the range decides; one value is the range of one point
    kw = dict(rate_a=0.75, rate_b=0.70, sensitivity=0.9, specificity=0.8, differences=(0.08,))
    one = {g: jb.plan.plan_paired(400, 0.25, agreement=g, **kw) for g in (0.8, 0.85, 0.95)}
    ranged = jb.plan.plan_paired(400, 0.25, agreement=(0.8, 0.95), **kw)
    worst = max(one.values(), key=lambda p: p.se)
    assert ranged.se == pytest.approx(worst.se, rel=1e-12)
    assert ranged.agreement == pytest.approx(0.8)  # less agreement, more variance
    assert ranged.se_range == pytest.approx((one[0.95].se, one[0.8].se), rel=1e-12)
    assert ranged.labelled_fraction_for[0.08] == pytest.approx(
        one[0.8].labelled_fraction_for[0.08], rel=1e-12
    )
    assert one[0.85].se_range == (one[0.85].se, one[0.85].se)
    for bad in ((0.95, 0.8), (0.8, 1.2), "high"):
        with pytest.raises(jb.InputError) as e:
            jb.plan.plan_paired(400, 0.25, agreement=bad, **kw)
        assert e.value.field == "agreement"
