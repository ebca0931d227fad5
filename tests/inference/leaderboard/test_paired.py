"""The leaderboard's paired closed form against sums written out: means, the CR2
covariance, the differences' floor, the bounded intervals, the item bootstrap."""

import numpy as np
import pytest
from scipy import linalg, stats

from judgebayes.inference.leaderboard import paired


def test_without_clusters_the_covariance_is_the_items_sample_covariance_over_i():
    rng = np.random.default_rng(0)
    x = rng.random((4, 30))
    pm = paired.paired_means(x)
    np.testing.assert_allclose(pm.mean, x.mean(axis=1))
    np.testing.assert_allclose(pm.cov, np.cov(x) / 30, atol=1e-15)
    assert pm.df == 29 and pm.n_clusters == 30


def test_with_clusters_the_covariance_is_cr2_of_a_mean():
    # Bell and McCaffrey's CR2 for a mean: each cluster's residuals premultiplied by
    # (I - H_gg)^{-1/2}, H_gg = 1 1' / I the intercept's hat matrix, then summed
    rng = np.random.default_rng(1)
    x = rng.random((3, 12))
    g = np.array([0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 3, 3])
    pm = paired.paired_means(x, g)
    dev = x - x.mean(axis=1, keepdims=True)
    want = np.zeros((3, 3))
    for c in range(4):
        size = int((g == c).sum())
        root = np.real(linalg.sqrtm(np.eye(size) - np.full((size, size), 1 / 12)))
        adj = (dev[:, g == c] @ np.linalg.inv(root)).sum(axis=1)
        want += np.outer(adj, adj)
    np.testing.assert_allclose(pm.cov, want / 144, rtol=1e-10)
    assert pm.df == 3 and pm.n_clusters == 4


def test_a_difference_with_no_spread_is_floored_at_one_cluster_moving_half_the_scale():
    x = np.array([np.ones(10), np.zeros(10), np.ones(10)])
    se = paired.paired_means(x).diff_se()
    assert se[0, 1] == pytest.approx(1 / 20)  # a pair 1 and 0 on all ten items: 20 se apart
    assert se[0, 2] == pytest.approx(1 / 20) and se[0, 0] == 0
    x2 = np.array([[1.0, 1.0], [0.0, 0.0]])
    assert paired.paired_means(x2).diff_se()[0, 1] == pytest.approx(0.25)


def test_the_bounded_interval_is_wilsons_at_the_effective_size():
    # a 0/1 system: its variance p(1-p)/(n-1) makes the effective size n - 1; with df
    # infinite it is Wilson's score interval at that size (scipy's, as the reference)
    x = np.r_[np.ones(13), np.zeros(7)]
    pm = paired.paired_means(x[None, :])
    lo, hi = paired.bounded_interval(pm.mean, np.diag(pm.cov), 20, np.inf, 0.05, (0, 1))
    ref = stats.binomtest(13, 20).proportion_ci(method="wilson")
    n_eff = 0.65 * 0.35 / pm.cov[0, 0]
    assert n_eff == pytest.approx(19)
    z = stats.norm.ppf(0.975)
    centre = (0.65 + z**2 / (2 * n_eff)) / (1 + z**2 / n_eff)
    half = z / (1 + z**2 / n_eff) * np.sqrt(0.65 * 0.35 / n_eff + z**2 / (4 * n_eff**2))
    assert (lo[0], hi[0]) == pytest.approx((centre - half, centre + half))
    # scipy's Wilson at n = 20 is the same formula a little narrower
    assert lo[0] < ref.low < ref.high < hi[0] < ref.high + 0.01
    # ten of ten: not [1, 1] but Wilson at n = 10, with t(9)'s quantile
    lo, hi = paired.bounded_interval(np.array([1.0]), np.array([0.0]), 10, 9, 0.05, (0, 1))
    t = stats.t.ppf(0.975, 9)
    assert hi[0] == 1 and lo[0] == pytest.approx(10 / (10 + t**2))
    # none of ten: the mirror, its lower end exactly the scale's (not rounding's 1e-17)
    lo0, hi0 = paired.bounded_interval(np.array([0.0]), np.array([0.0]), 10, 9, 0.05, (0, 1))
    assert lo0[0] == 0.0 and hi0[0] == pytest.approx(1 - lo[0])
    # on another scale, the same interval stretched; without bounds, Student's t
    lo5, hi5 = paired.bounded_interval(np.array([5.0]), np.array([0.0]), 10, 9, 0.05, (1, 5))
    assert lo5[0] == pytest.approx(1 + 4 * lo[0]) and hi5[0] == 5
    lo, hi = paired.bounded_interval(np.array([2.0]), np.array([0.25]), 10, 9, 0.05,
                                     (-np.inf, np.inf))  # fmt: skip
    assert (lo[0], hi[0]) == pytest.approx((2 - t * 0.5, 2 + t * 0.5))


def test_the_items_variance_is_the_cells_trials_binomial_variance():
    x = np.array([[0.2, 0.5], [1.0, 0.0]])
    n = np.array([[10, 4], [10, 10]])
    v = paired.items_variance(x, n, trials=True)
    assert v[0] == pytest.approx((0.2 * 0.8 / 9 + 0.25 / 3) / 4) and v[1] == 0
    assert paired.items_variance(x, n, trials=False).tolist() == [0, 0]


def test_the_item_bootstrap_spreads_as_the_plug_in_standard_error():
    # 4,000 resamples: the bootstrap sd's Monte-Carlo relative error is about 1.1%; 4%
    rng = np.random.default_rng(2)
    x = (rng.random((3, 150)) < [[0.3], [0.5], [0.8]]).astype(float)
    means = paired.resampled_means(x, np.arange(150), 4000, 0)
    plug_in = x.std(axis=1, ddof=0) / np.sqrt(150)
    np.testing.assert_allclose(means.std(axis=0), plug_in, rtol=0.04)
    # clusters resampled whole: two clusters of identical items give two values only
    g = np.repeat([0, 1], 75)
    xx = np.repeat([[0.0, 1.0]], 3, axis=0).repeat(75, axis=1)
    m = paired.resampled_means(xx, g, 200, 1)
    assert set(np.round(m[:, 0], 12)) <= {0.0, 0.5, 1.0}
