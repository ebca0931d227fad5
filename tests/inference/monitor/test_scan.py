"""The change scan (judgebayes/inference/monitor/scan.py): the looks' levels, the
candidates, and a contrast's variance against its closed form.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from judgebayes.inference.monitor.scan import candidates, look_level, scan


def test_look_levels_sum_to_alpha():
    k = np.arange(1, 200_001)
    total = look_level(k, 0.05).sum()
    # the tail beyond K is below alpha * 6 / (pi^2 K)
    assert 0.05 - 0.05 * 6 / (math.pi**2 * k[-1]) <= total <= 0.05


def test_candidates_are_recent_windows_and_the_first():
    assert list(candidates(4, 4)) == [4]
    assert list(candidates(4, 11)) == [4, 8, 10, 11]  # the last 1, 2, 4 and all 8


def test_scan_variance_is_the_per_anchor_bernoulli_form():
    # one look (t = reference = 2): the only contrast is period 2 minus the mean of 0, 1
    f = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 1, 0]], dtype=float)
    n = f.shape[0]
    rate = f.mean(0)
    out = scan(rate, f, np.full_like(f, 1.0 / n), np.zeros(3), np.ones(3, bool), 2, 0.05)
    w = np.array([-0.5, -0.5, 1.0])
    own = f.mean(1)
    var = np.sum(own * (1 - own) * 3 / 2 * np.sum((w / n) ** 2))
    assert out["change"][2] == pytest.approx(w @ rate)
    assert out["se"][2] == pytest.approx(math.sqrt(var))
    p = 2 * stats.norm.sf(abs(w @ rate) / math.sqrt(var))
    assert out["evidence"][2] == pytest.approx(look_level(1, 0.05) / p)


def test_a_judge_always_right_on_an_anchor_adds_no_variance():
    f = np.ones((5, 6))
    f[0, 5] = 0.0  # one flip, in the last period
    out = scan(f.mean(0), f, np.full_like(f, 0.2), np.zeros(6), np.ones(6, bool), 3, 0.05)
    # the strongest candidate at the last look is the last period alone against the five
    # before it; only anchor 0 varies (its own mean 5/6 over six periods)
    own = 5 / 6
    w_sq = 1.0 + 5 * (1 / 5) ** 2
    assert out["change"][5] == pytest.approx(-0.2)
    assert out["se"][5] == pytest.approx(math.sqrt(own * (1 - own) * 6 / 5 * w_sq * 0.04))
