"""Estimators that use the calibration labels
(judgebayes/inference/accuracy/closed_form/labelled.py): Table 1's estimators by hand, the
difference estimator and PPI++ worked out per item, and double sampling's coverage on a
random calibration sample.
"""

import math

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.inference.accuracy import closed_form as cf


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
