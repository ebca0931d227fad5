import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

import judgebayes as jb
from judgebayes.errors import CountError, InputError, JudgeNoBetterThanChanceError
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.accuracy.closed_form import lang_reiczigel as lr
from tests import reference as ref

rates = st.floats(0.0, 1.0)
good_q = st.floats(0.55, 0.995)
sizes = st.integers(1, 5000)


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


def test_judge_rates():
    r = jb.estimators.judge_rates(tp=90, m1=100, tn=70, m0=100)
    assert (r.q0, r.q1) == (0.7, 0.9)
    assert r.q0_lower < 0.7 < r.q0_upper and r.q1_lower < 0.9 < r.q1_upper
    with pytest.raises(jb.errors.EmptyClassError):
        jb.estimators.judge_rates(tp=0, m1=0, tn=1, m0=2)


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


def test_interval_object_behaves_like_a_tuple():
    ci = jb.estimators.lang_reiczigel_interval(0.62, 0.7, 0.9, 1000, 100, 100)
    lo, hi = ci
    assert (lo, hi) == (ci.lower, ci.upper) and len(ci) == 2
    back = pickle.loads(pickle.dumps(ci))
    assert tuple(back) == tuple(ci) and back.se == ci.se


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


# ------------------------------------------------------------------ Table 1 estimators
def test_table1_estimators_hand_values():
    k, n, tp, m1, tn, m0 = 600, 1000, 90, 100, 70, 100
    fp, fn = m0 - tn, m1 - tp
    m = m0 + m1
    p = k / n
    est = jb.estimators.point_estimators(k, n, tp, m1, tn, m0)
    assert est["naive"] == p
    assert est["calibration_only"] == m1 / m
    assert est["difference"] == pytest.approx(p + (m1 - (tp + fp)) / m)
    assert est["conditional_calibration"] == pytest.approx(
        tp / (tp + fp) * p + fn / (fn + tn) * (1 - p)
    )
    assert est["misclassification_adjusted"] == pytest.approx(
        (p + tn / m0 - 1) / (tn / m0 + tp / m1 - 1)
    )


def test_difference_interval_and_ppi_plus_plus():
    k, n, tp, m1, tn, m0 = 600, 1000, 90, 100, 70, 100
    m = m0 + m1
    d = jb.estimators.difference_estimate(k, n, tp, m1, tn, m0)
    r = np.r_[np.ones(m1 - tp), -np.ones(m0 - tn), np.zeros(tp + tn)]  # Z - Zhat per item
    se = math.sqrt(0.6 * 0.4 / n + r.var() / m)
    assert d.se == pytest.approx(se) and d.upper - d.lower == pytest.approx(
        2 * 1.959963984540054 * se
    )
    pp, lam = jb.estimators.ppi_plus_plus(k, n, tp, m1, tn, m0)
    z = np.r_[np.ones(m1), np.zeros(m0)]
    zh = np.r_[np.ones(tp), np.zeros(m1 - tp), np.ones(m0 - tn), np.zeros(tn)]
    lam_hand = np.cov(z, zh, bias=True)[0, 1] / ((1 + m / n) * zh.var())
    assert lam == pytest.approx(min(max(lam_hand, 0), 1))
    assert pp.estimate == pytest.approx(lam * 0.6 + z.mean() - lam * zh.mean())
    # lambda = 1 recovers the difference estimator, lambda = 0 the calibration-only one
    assert pp.se <= d.se + 1e-12


def test_conditional_calibration_nan_when_judge_never_says_negative():
    out = jb.estimators.conditional_calibration_estimate(500, 1000, tp=10, m1=10, tn=0, m0=10)
    assert np.isnan(out)


# ------------------------------------------------------------------ properties
@given(p=rates, q0=good_q, q1=good_q)
def test_label_swap_symmetry_point(p, q0, q1):
    a = jb.estimators.rogan_gladen(p, q0, q1, clip=False)
    b = jb.estimators.rogan_gladen(1 - p, q1, q0, clip=False)
    assert a == pytest.approx(1 - b, abs=1e-9)
    assert jb.estimators.rogan_gladen(p, q0, q1) == pytest.approx(
        1 - jb.estimators.rogan_gladen(1 - p, q1, q0), abs=1e-9
    )


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


@given(theta=rates, q0=good_q, q1=good_q, n=st.integers(1, 60))
def test_exactly_unbiased_with_known_rates(theta, q0, q1, n):
    # E[(k/n + q0 - 1)/(q0 + q1 - 1)] summed exactly over the binomial pmf of k
    p = theta * q1 + (1 - theta) * (1 - q0)
    k = np.arange(n + 1)
    e = np.sum(stats.binom.pmf(k, n, p) * jb.estimators.rogan_gladen(k / n, q0, q1, clip=False))
    assert e == pytest.approx(theta, abs=1e-9)


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


def test_errors_nan_is_silent_when_nothing_is_invalid():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jb.estimators.rogan_gladen(np.array([0.2, 0.8]), 0.8, 0.9, errors="nan")


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


def test_double_sampling_covers_and_uses_the_random_calibration_sample():
    # calibration drawn at random from the test population (n = 1000 judged, m = 200
    # labelled, theta 0.6, q0 0.7, q1 0.9): 4000 datasets, coverage within 4 Monte-Carlo
    # standard errors (4 * sqrt(.95 * .05 / 4000) = 0.014) of 95%
    rng = np.random.default_rng(0)
    R, n, m, th, q0, q1 = 4000, 1000, 200, 0.6, 0.7, 0.9
    m1 = rng.binomial(m, th, R)
    tp, tn = rng.binomial(m1, q1), rng.binomial(m - m1, q0)
    k = rng.binomial(n, th * q1 + (1 - th) * (1 - q0), R)
    e = cf.double_sampling(k, n, tp, m1, tn, m - m1)
    assert abs(np.mean((e.lower <= th) & (th <= e.upper)) - 0.95) < 0.014
    # it uses the labels' information about theta: about half Lang-Reiczigel's width
    # (0.112 vs 0.207 measured), which ignores it
    lr = cf.lang_reiczigel_from_counts(k, n, tp, m1, tn, m - m1)
    assert np.mean(e.upper - e.lower) < 0.6 * np.nanmean(lr.upper - lr.lower)
    # the study's closed form under design="random" is this estimator, not Lang-Reiczigel
    one = jb.AccuracyStudy.from_counts(620, 1000, 60, 80, 110, 120, design="random")
    iv = one.fit("closed_form").interval().iloc[0]
    ref = cf.double_sampling(620, 1000, 110, 120, 60, 80)
    assert (iv["estimate"], iv["lower"], iv["upper"]) == pytest.approx(
        (ref.estimate, ref.lower, ref.upper)
    )
    strat = jb.AccuracyStudy.from_counts(620, 1000, 60, 80, 110, 120).fit("closed_form")
    assert strat.interval().iloc[0]["upper"] - strat.interval().iloc[0]["lower"] > 1.2 * (
        iv["upper"] - iv["lower"]
    )


def test_an_item_in_both_frames_is_refused():
    import pandas as pd

    df = pd.DataFrame({"id": [1, 2, 3, 4], "judge": [1, 0, 1, 0], "human": [1, 0, 0, 1]})
    with pytest.raises(jb.InputError, match="same frame") as e:
        jb.AccuracyStudy.from_frames(df, df)
    assert e.value.field == "calibration_df"
    with pytest.raises(jb.InputError, match="2 item") as e:
        jb.AccuracyStudy.from_frames(df.iloc[:3], df.iloc[1:], item="id")
    assert (e.value.field, e.value.value) == ("id", "2")
    ok = jb.AccuracyStudy.from_frames(df.iloc[:2], df.iloc[2:].assign(id=[3, 4]), item="id")
    assert ok.test.n.sum() == 2


def test_better_than_chance_mass_against_monte_carlo_and_a_closed_form():
    """The refusal check's P(q0 + q1 > 1) under the calibration-only Betas.  References:
    Monte-Carlo (400,000 draws: sd <= 0.0008, tolerance 0.004 = 5 sd) on small counts, and
    at a million labels per class, where scipy's adaptive quad of the density form (the
    previous rule) returned 0 for q1 ~ 1, q0 ~ 0.25 (mass 1) and 0.05 for the case below,
    whose closed form is 0.25: with tp = 0 of 1e6 and tn = 1e6 - 1 of 1e6, q1 ~ Exp(1e6)
    and 1 - q0 ~ Gamma(2, 1e6) in the limit, so P(q1 > 1 - q0) = (1 / 2)^2."""
    from judgebayes.studies.accuracy import better_than_chance_mass

    rng = np.random.default_rng(0)
    for tp, m1, tn, m0 in ((4, 6, 3, 6), (1, 2, 0, 2), (30, 100, 60, 100), (5, 20, 2, 5)):
        q1 = rng.beta(1 + tp, 1 + m1 - tp, 400_000)
        q0 = rng.beta(1 + tn, 1 + m0 - tn, 400_000)
        assert better_than_chance_mass(tp, m1, tn, m0) == pytest.approx(
            np.mean(q0 + q1 > 1), abs=0.004
        )
    m = 10**6
    assert better_than_chance_mass(0, m, m - 1, m) == pytest.approx(0.25, abs=1e-3)
    assert better_than_chance_mass(m, m, m // 4, m) == pytest.approx(1.0, abs=1e-9)
