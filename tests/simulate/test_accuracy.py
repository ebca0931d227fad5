import numpy as np
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes.errors import InputError

Q0, Q1, N = 0.7, 0.9, 1000
THETAS = np.linspace(0, 1, 21)


def test_simulate_shapes_seed_and_means():
    a = jb.simulate.simulate_accuracy([0.2, 0.8], Q0, Q1, N, m0=50, m1=60, reps=4000, random_seed=3)
    b = jb.simulate.simulate_accuracy([0.2, 0.8], Q0, Q1, N, m0=50, m1=60, reps=4000, random_seed=3)
    assert a.k.shape == (2, 4000) and a.design == "stratified"
    np.testing.assert_array_equal(a.k, b.k)
    p = np.array([0.2, 0.8]) * Q1 + np.array([0.8, 0.2]) * (1 - Q0)
    # mean of 4000 binomial draws: standard error sqrt(n p (1-p) / 4000); 4 SE tolerance
    se = np.sqrt(N * p * (1 - p) / 4000)
    assert np.all(np.abs(a.k.mean(1) - N * p) < 4 * se)
    assert np.all(a.m1 == 60) and np.all(a.m0 == 50)
    assert abs(a.tp.mean() - 60 * Q1) < 4 * np.sqrt(60 * Q1 * (1 - Q1) / a.tp.size)


def test_random_design_with_shift():
    s = jb.simulate.simulate_accuracy(
        0.5, Q0, Q1, N, m=200, theta_cal=0.25, reps=5000, random_seed=1
    )
    assert s.design == "random" and np.all(s.m0 + s.m1 == 200)
    assert abs(s.m1.mean() - 50) < 4 * np.sqrt(200 * 0.25 * 0.75 / 5000)


def test_simulate_rejects_ambiguous_designs():
    with pytest.raises(InputError):
        jb.simulate.simulate_accuracy(0.5, Q0, Q1, N, m0=10)
    with pytest.raises(InputError):
        jb.simulate.simulate_accuracy(0.5, Q0, Q1, N, m0=10, m1=10, m=20)
    with pytest.raises(InputError, match="theta_cal"):
        jb.simulate.simulate_accuracy(0.5, Q0, Q1, N, m0=10, m1=10, theta_cal=0.3)
    with pytest.raises(InputError, match="theta"):
        jb.simulate.simulate_accuracy(1.5, Q0, Q1, N, m=10)


def test_accuracy_frames_roundtrip_through_schema():
    test, cal = jb.simulate.accuracy_frames(
        0.4, Q0, Q1, 500, m0=40, m1=60, systems={"a": 0.4, "b": 0.7}, random_seed=0
    )
    from judgebayes.data.accuracy import counts_from_calibration_frame, counts_from_test_frame

    t = counts_from_test_frame(test, system="system")
    c = counts_from_calibration_frame(cal)
    assert t.systems == ("a", "b") and t.n.sum() == 1000
    assert (c.m0[0], c.m1[0]) == (40, 60)


# ------------------------------------------------------------------ Fig. 6b
def _check_fig6b(ds, reps):
    cov = ds.coverage.sel(estimator="lang_reiczigel").values
    # Monte-Carlo standard error of a coverage near 0.95 from `reps` replicates; the bounds
    # are nominal - 4 MCSE and, above, 0.98 + 4 MCSE: truncation at theta in {0, 1} makes the
    # interval conservative there (0.972 at theta = 0 in the 10,000-replicate run).
    mcse = np.sqrt(0.95 * 0.05 / reps)
    assert cov.min() >= 0.95 - 4 * mcse, cov
    assert cov.max() <= 0.98 + 4 * mcse, cov
    assert ds.n_invalid.sel(estimator="lang_reiczigel").sum() == 0
    # the naive interval covers only near theta* = (1 - q0)/(2 - q0 - q1) = 0.75
    naive = ds.coverage.sel(estimator="naive_wilson").values
    far = np.abs(THETAS - 0.75) >= 0.2
    assert naive[far].max() < 0.05
    return cov


def test_fig6b_coverage_fast():
    reps = 2000
    ds = jb.simulate.monte_carlo_study(THETAS, Q0, Q1, N, m0=100, m1=100, reps=reps, random_seed=11)
    _check_fig6b(ds, reps)


@pytest.mark.slow
def test_fig6b_coverage_full():
    reps = 10_000
    ds = jb.simulate.monte_carlo_study(THETAS, Q0, Q1, N, m0=100, m1=100, reps=reps, random_seed=12)
    cov = _check_fig6b(ds, reps)
    assert np.median(cov) == pytest.approx(0.95, abs=4 * np.sqrt(0.95 * 0.05 / reps))


# ------------------------------------------------------------------ Fig. 5
THETA_CAL = np.linspace(0.25, 0.75, 11)


def _expected_second_order_bias(theta, m):
    # E over the random class sizes M1 ~ Bin(m, theta_cal) of Prop. 5.1's bias
    m1 = np.arange(1, m)[:, None]
    w = stats.binom.pmf(m1, m, THETA_CAL[None, :])
    b = jb.estimators.rogan_gladen_bias(theta, Q0, Q1, m - m1, m1)
    return (w * b).sum(0) / w.sum(0)


def _check_fig5(ds):
    b, se = ds.bias, ds.bias_mcse
    ma = b.sel(estimator="misclassification_adjusted").values
    ma_se = se.sel(estimator="misclassification_adjusted").values
    # 4 Monte-Carlo SE plus 1e-3 for the neglected third-order terms (O(1/m^2) at m=200)
    assert np.all(np.abs(ma - _expected_second_order_bias(0.5, 200)) <= 4 * ma_se + 1e-3)
    assert np.abs(ma).max() < 0.01
    # exact expectations of the shift-sensitive estimators
    co = b.sel(estimator="calibration_only").values
    assert np.all(np.abs(co - (THETA_CAL - 0.5)) <= 4 * se.sel(estimator="calibration_only").values)
    diff = b.sel(estimator="difference").values  # p + theta_Q - p_Q - theta = 0.4 theta_Q - 0.2
    assert np.all(
        np.abs(diff - (0.4 * THETA_CAL - 0.2)) <= 4 * se.sel(estimator="difference").values
    )
    cc = b.sel(estimator="conditional_calibration").values
    assert abs(cc[0]) > 0.1 and abs(cc[-1]) > 0.1 and cc[0] < 0 < cc[-1]
    naive = b.sel(estimator="naive_wald").values
    assert np.all(
        np.abs(naive - jb.estimators.naive_bias(0.5, Q0, Q1))
        <= 4 * se.sel(estimator="naive_wald").values
    )
    return ma


def test_fig5_distribution_shift_fast():
    ds = jb.simulate.monte_carlo_study(
        0.5, Q0, Q1, N, m=200, theta_cal=THETA_CAL, reps=3000, random_seed=5
    )
    assert "theta_cal" in ds.dims
    _check_fig5(ds)


@pytest.mark.slow
def test_fig5_distribution_shift_full():
    ds = jb.simulate.monte_carlo_study(
        0.5, Q0, Q1, N, m=200, theta_cal=THETA_CAL, reps=10_000, random_seed=6
    )
    _check_fig5(ds)


def test_study_tidy_frame():
    ds = jb.simulate.monte_carlo_study(
        [0.3, 0.6], Q0, Q1, 200, m0=30, m1=30, reps=200, random_seed=0
    )
    df = ds.to_dataframe().reset_index()
    assert set(df["estimator"]) >= {"lang_reiczigel", "naive_wilson", "difference"}
    assert len(df) == 2 * ds.sizes["estimator"]
    assert ds.attrs["reps"] == 200 and ds.attrs["design"] == "stratified"


# ------------------------------------------------------------------ Bayesian coverage, SBC
def test_bayesian_coverage_small():
    reps = 150
    ds = jb.simulate.bayesian_coverage_study(
        [0.0, 0.3, 0.6, 1.0], Q0, Q1, N, m0=100, m1=100, reps=reps, nodes=12, random_seed=3
    )
    b = ds.coverage.sel(estimator="bayes_exact").values
    # an equal-tailed interval of a continuous posterior never contains theta = 0 or 1
    assert b[0] == 0.0 and b[-1] == 0.0
    # interior: nominal 0.95 minus 4 Monte-Carlo SE (sqrt(.95 * .05 / 150) = 0.018)
    assert np.all(b[1:3] >= 0.95 - 4 * np.sqrt(0.95 * 0.05 / reps))
    lr = ds.coverage.sel(estimator="lang_reiczigel").values
    assert lr[0] > 0.9 and lr[-1] > 0.9  # truncation at the boundary keeps the endpoint


@pytest.mark.slow
def test_bayesian_coverage_full():
    reps = 1000
    ds = jb.simulate.bayesian_coverage_study(
        THETAS, Q0, Q1, N, m0=100, m1=100, reps=reps, random_seed=4
    )
    b = ds.coverage.sel(estimator="bayes_exact").values[1:-1]
    mcse = np.sqrt(0.95 * 0.05 / reps)
    assert b.min() >= 0.95 - 4 * mcse and b.max() <= 0.99 + 4 * mcse


def test_sbc_ranks_are_uniform():
    ranks = jb.simulate.sbc_ranks(1000, 200, m0=40, m1=40, n_draws=99, random_seed=7)
    counts = np.bincount(ranks // 10, minlength=10)
    # 10 bins of 100 expected; a calibrated posterior passes a chi-square test; p > 0.001
    assert stats.chisquare(counts).pvalue > 1e-3


def test_sbc_result_uniformity_detects_a_miscalibrated_posterior():
    """The SBC summary's chi-square: uniform ranks pass; ranks of a posterior that is too
    narrow (truth in the tails: a U shape) fail, and a failed fit is excluded from
    p_value but kept in p_value_all."""
    from judgebayes.simulate.sbc import SBCResult

    rng = np.random.default_rng(0)
    L, R = 99, 500
    good = rng.integers(0, L + 1, R)
    # too narrow: the truth's posterior CDF value u is pushed to the tails
    u = rng.random(R)
    narrow = rng.binomial(L, np.where(u < 0.5, 2 * u**2, 1 - 2 * (1 - u) ** 2))
    passed = np.ones(R, bool)
    passed[:100] = False
    ranks = {"a": np.c_[good], "b": np.c_[np.where(passed, good, 0)]}
    res = SBCResult(
        "toy", ranks | {"c": np.c_[narrow]}, {"a": ("a",), "b": ("b",), "c": ("c",)}, passed,
        ("x",) * R, L,
    )  # fmt: skip
    u_tab = res.uniformity().set_index("variable")
    assert u_tab.loc["a", "p_value"] > 0.01 and u_tab.loc["a", "p_value_all"] > 0.01
    # 100 failed fits with rank 0 spoil 'b' over all fits, not over the passed ones
    assert u_tab.loc["b", "p_value"] > 0.01 and u_tab.loc["b", "p_value_all"] < 1e-6
    assert u_tab.loc["c", "p_value"] < 1e-6
    assert res.n_failed == 100 and u_tab.loc["a", "n_passed"] == 400
