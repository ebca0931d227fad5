"""A round of labels drawn by the design (inference/items/active.py): the probabilities
against their closed form, the round's estimate unbiased by exact enumeration of every
draw, the error scales and the test that decides them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from judgebayes.inference.items import active as al


def test_inclusion_probabilities_are_neyman_per_cost_capped_at_one():
    s = np.array([1.0, 1.0, 2.0, 8.0])
    c = np.array([1.0, 4.0, 1.0, 1.0])
    pi = al.inclusion_probabilities(s, 2.0, c)
    assert pi[3] == 1.0  # 8 / sqrt(1) would ask for more than 1
    free = slice(0, 3)
    ratio = pi[free] / (s[free] / np.sqrt(c[free]))
    assert np.allclose(ratio, ratio[0])  # proportional to s / sqrt(c) below the cap
    assert np.dot(pi, c) == pytest.approx(2.0)
    assert al.predicted_variance(pi, s) == pytest.approx(np.sum((1 - pi) / pi * s**2) / 16)


def test_round_estimate_is_unbiased_by_enumeration():
    # four items, Poisson sampling with known probabilities, a working model fixed before:
    # the probability-weighted mean of the estimate over all 16 draws is the true mean
    f = np.array([1.0, 0.0, 1.0, 1.0])
    y = np.array([1.0, 0.0, 0.0, 1.0])
    pi = np.array([0.3, 0.6, 0.9, 0.5])
    g = 0.2 + 0.5 * f  # any working model fixed before the draw
    mean = var = mean_v = 0.0
    for draw in itertools.product((0, 1), repeat=4):
        r = np.array(draw, dtype=bool)
        p = np.prod(np.where(r, pi, 1 - pi))
        est, v = al.greg_estimate(g, y, r, pi)
        mean += p * est
        var += p * (est - y.mean()) ** 2
        mean_v += p * v
    assert mean == pytest.approx(y.mean(), abs=1e-12)
    e = y - g
    assert var == pytest.approx(np.sum((1 - pi) / pi * e**2) / 16, abs=1e-12)
    assert mean_v == pytest.approx(var, abs=1e-12)  # the variance estimate is unbiased too


def test_error_scale_learns_within_bins_and_shrinks():
    u = np.repeat([0.0, 1.0], 50)
    lab = np.zeros(100, bool)
    lab[::5] = True  # 10 labels per bin
    # bins that differ: each bin's mean, shrunk toward the overall one with 5 pseudo-items
    r2 = np.where(u == 1, 0.5, 0.02)
    s = al.error_scale(u, r2, lab, bins=2, prior=5.0)
    overall = r2[lab].mean()
    assert s[60] ** 2 == pytest.approx((10 * 0.5 + 5 * overall) / 15)
    assert s[10] ** 2 == pytest.approx((10 * 0.02 + 5 * overall) / 15)
    # bins whose means differ by less than their noise: one scale for the group
    r2 = np.tile([0.0, 1.0], 50)  # both bins' labels alternate 0 and 1: within variance 1/4
    r2[np.flatnonzero(lab & (u == 1))[:1]] = 0.0  # means 0.5 and 0.4; sd of a bin mean 0.17
    s = al.error_scale(u, r2, lab, bins=2, prior=5.0)
    assert s[60] == s[10] == pytest.approx(np.sqrt(r2[lab].mean()))


def test_same_scale_is_the_one_way_f_test():
    from scipy import stats

    rng = np.random.default_rng(4)
    decided = []
    for _ in range(200):
        xs = [np.abs(rng.normal(0, 1 + 0.3 * k, 12)) for k in range(3)]
        p = stats.f_oneway(*xs).pvalue
        assert al._same_scale(xs) == (p > al.EVIDENCE_LEVEL)
        decided.append(p > al.EVIDENCE_LEVEL)
    assert 0 < np.mean(decided) < 1  # both answers occur
