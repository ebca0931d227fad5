"""Anytime-valid sequences (judgebayes/inference/sequences.py): the mixture boundary of the
paper, the period estimate's Horvitz-Thompson total and design variance (by exact
enumeration), power tuning from earlier periods only, the drift alarm's capital and
reference bounds by hand, its change-point evidence written out, and the betting sequence
exact on the lattice.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgebayes.inference import sequences as sq
from tests.simulators import stream


def test_mixture_radius_is_the_papers_boundary_and_tuned_where_asked():
    # Waudby-Smith et al. (2024) eq. 2.8 written out: the two-sided boundary for V = 50
    V, alpha = 50.0, 0.05
    rho2 = sq.tuning(V, alpha)
    expected_rho2 = (-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / V
    assert rho2 == pytest.approx(expected_rho2, rel=1e-14)
    s = V * rho2 + 1
    expected = math.sqrt(2 * s / rho2 * math.log(math.sqrt(s) / alpha))
    assert float(sq.mixture_radius(V, alpha, rho2)) == pytest.approx(expected, rel=1e-14)
    # tuned at V, the boundary divided by sqrt(V) is smallest near V (within a factor 2)
    grid = np.geomspace(1, 5000, 400)
    norm = sq.mixture_radius(grid, alpha, rho2) / np.sqrt(grid)
    assert V / 2 < grid[np.argmin(norm)] < 2 * V


def test_period_estimate_is_the_horvitz_thompson_total_and_its_design_variance():
    # one period of 6 items, 3 labelled, lambda 1: T = sum f + N/m * sum (y - f)
    period = np.zeros(6, dtype=np.int64)
    f = np.array([1, 0, 1, 1, 0, 1], dtype=float)
    y = np.array([1, np.nan, 0, np.nan, 0, np.nan])
    est = sq.period_estimates(period, f, y, power_tuning=False)
    r = np.array([0.0, -1.0, 0.0])
    assert est["total"][0] == pytest.approx(4 + 6 / 3 * r.sum())
    assert est["variance"][0] == pytest.approx(36 * (1 - 3 / 6) * np.var(r, ddof=1) / 3)
    # Bernoulli labelling with known probabilities: sum r / pi and sum (1 - pi) r^2 / pi^2
    prob = np.full(6, 0.5)
    est = sq.period_estimates(period, f, y, prob, power_tuning=False)
    assert est["total"][0] == pytest.approx(4 + r.sum() / 0.5)
    assert est["variance"][0] == pytest.approx(np.sum(0.5 * r**2 / 0.25))


def test_period_estimate_is_design_unbiased_by_enumeration():
    # every 2-label sample of a 5-item period: the mean of the estimates is the true total
    from itertools import combinations

    f = np.array([1.0, 1.0, 0.0, 1.0, 0.0])
    truth = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    totals = []
    for pick in combinations(range(5), 2):
        y = np.full(5, np.nan)
        y[list(pick)] = truth[list(pick)]
        totals.append(sq.period_estimates(np.zeros(5, np.int64), f, y)["total"][0])
    assert np.mean(totals) == pytest.approx(truth.sum(), abs=1e-12)


def test_power_tuning_uses_only_earlier_periods():
    rng = np.random.default_rng(3)
    frame, _ = stream(rng, weeks=4, items=100, labels=20)
    period = frame["week"].to_numpy()
    f = frame["judge"].to_numpy(float)
    y = frame["human"].to_numpy(float)
    lam = sq.period_estimates(period, f, y)["lam"]
    assert lam[0] == 1.0
    before = period < 2
    lab = before & ~np.isnan(y)
    slope = np.cov(f[lab], y[lab])[0, 1] / np.var(f[lab], ddof=1)
    assert lam[2] == pytest.approx(np.clip(slope, 0, 1))
    # changing week 2's labels does not change week 2's weight
    y2 = y.copy()
    y2[(period == 2) & ~np.isnan(y)] = 1.0 - y2[(period == 2) & ~np.isnan(y)]
    assert sq.period_estimates(period, f, y2)["lam"][2] == lam[2]


def test_drift_alarm_capital_is_the_product_of_its_bets_by_hand():
    # a floor of 0.8 and hits 1, 0, 0: the bets follow the recent rate (memory 2: the mean
    # moves half-way to each hit), Kelly fraction (0.8 - mu) / (0.8 * 0.2), capped at half
    # of 1 / (1 - 0.8)
    period = np.zeros(3, dtype=np.int64)
    y = np.ones(3)
    f = np.array([1.0, 0.0, 0.0])
    d = sq.drift_alarm(period, f, y, 1, 0.05, 1, floors={"sensitivity": 0.8}, memory=2.0)
    mus = [0.8, 0.9, 0.45]
    lams = [min(max(0.8 - m, 0) / 0.16, 2.5) for m in mus]
    capital = np.cumprod([1 + lam * (0.8 - x) for lam, x in zip(lams, [1, 0, 0], strict=True)])
    assert d["evidence"][0] == pytest.approx(capital.max() * 0.025, rel=1e-12)
    assert d["which"][0] == "sensitivity down"


def test_drift_alarm_reference_bounds_are_clopper_pearson():
    from scipy import stats

    period = np.r_[np.zeros(50, np.int64), np.ones(50, np.int64)]
    y = np.ones(100)
    f = np.r_[np.ones(45), np.zeros(5), np.ones(50)]
    d = sq.drift_alarm(period, f, y, 2, 0.05, 1)
    L, U = d["bounds"]["sensitivity"]
    assert L == pytest.approx(stats.beta.ppf(0.05 / 4, 45, 6))
    assert U == pytest.approx(stats.beta.ppf(1 - 0.05 / 4, 46, 5))
    assert "specificity" not in d["bounds"]  # no human negatives


def test_drift_evidence_is_the_change_point_mixture_written_out():
    # three periods, the first the reference: hits 1 1 1 0 | 1 0 | 0 0 0. The e-process at
    # the end of period 2: a mixture over the change at period 1 (weight 1/2) or period 2
    # (1/6) of two sequential Krichevsky-Trofimov forecasters, (k + 1/2) / (n + 1) for each
    # next hit, over the pooled likelihood at its maximum (4 hits in 9)
    def kt(xs):
        k = n = 0
        prob = 1.0
        for x in xs:
            p1 = (k + 0.5) / (n + 1)
            prob *= p1 if x else 1 - p1
            k, n = k + x, n + 1
        return prob

    hits = [1, 1, 1, 0, 1, 0, 0, 0, 0]
    per = np.array([0, 0, 0, 0, 1, 1, 2, 2, 2])
    mix = kt(hits[:4]) * kt(hits[4:]) / 2 + kt(hits[:6]) * kt(hits[6:]) / 6
    pooled = (4 / 9) ** 4 * (5 / 9) ** 5
    log_e, down = sq._change_evidence(np.array(hits, float), per, 1, 3)
    assert log_e[2] == pytest.approx(max(np.log(mix / pooled), log_e[1]), rel=1e-12)
    pooled6 = (4 / 6) ** 4 * (2 / 6) ** 2
    assert log_e[1] == pytest.approx(np.log(kt(hits[:4]) * kt(hits[4:6]) / 2 / pooled6))
    assert down[2]


def test_betting_sequence_for_binary_values_is_exact_on_the_lattice():
    # every kept mean is a k / N; the truth stays inside; the ends only move inwards
    rng = np.random.default_rng(5)
    pop = (rng.random(200) < 0.3).astype(float)
    x = rng.permutation(pop)[:150]
    lo, hi = sq.betting_sequence(x, 200, 0.05)
    assert np.allclose(lo * 200, np.round(lo * 200)) and np.allclose(hi * 200, np.round(hi * 200))
    assert np.all(np.diff(lo) >= 0) and np.all(np.diff(hi) <= 0)
    assert np.all((lo <= pop.mean()) & (pop.mean() <= hi))
    # after all 200 draws the mean is known exactly (the logical bounds close)
    lo, hi = sq.betting_sequence(rng.permutation(pop), 200, 0.05)
    assert lo[-1] == pytest.approx(pop.mean(), abs=1e-12) == hi[-1]
