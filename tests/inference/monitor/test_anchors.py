"""Who drifted (judgebayes/inference/monitor/anchors.py): the looks' levels, the scan's
variance against its closed form, the false-alarm rate where nothing moved, the power
and the attribution where one thing moved, on streams of tests/simulators.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from judgebayes.inference.monitor.anchors import (
    anchor_attribution,
    candidates,
    look_level,
    scan,
)
from tests.simulators import anchor_design


def _arrays(items, anchors):
    weeks = int(max(items.week.max(), anchors.week.max())) + 1
    return (
        anchors.week.to_numpy(), anchors.id.to_numpy(), anchors.judge.to_numpy(float),
        anchors.human.to_numpy(float), items.week.to_numpy(), items.judge.to_numpy(float),
        weeks,
    )  # fmt: skip


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


@pytest.mark.parametrize("consistency", [None, 1.0])
def test_no_drift_alarms_at_most_alpha(consistency):
    rng = np.random.default_rng(11)
    streams = 150
    judge = system = 0
    for _ in range(streams):
        out = anchor_attribution(
            *_arrays(
                *anchor_design(rng, anchors=60, weeks=9, per_week=500, consistency=consistency)
            ),
            0.05,
            3,
        )
        judge += bool(out["judge_alarm"][-1])
        system += bool(out["system_alarm"][-1])
    # each at most alpha / 2 = 0.025; allowance 2.5 Monte-Carlo sd of that rate
    bound = 0.025 + 2.5 * math.sqrt(0.025 * 0.975 / streams)
    assert judge / streams <= bound
    assert system / streams <= bound


def test_judge_drift_found_and_not_called_the_system():
    rng = np.random.default_rng(3)
    hits = blamed = 0
    for _ in range(40):
        out = anchor_attribution(
            *_arrays(*anchor_design(rng, weeks=8, judge_drift_at=5, consistency=1.0)), 0.05, 4
        )
        hits += bool(out["judge_alarm"][6])
        blamed += bool(out["system_alarm"][-1])
        assert out["judge_moved"][-1] == "sensitivity down" or not out["judge_alarm"][-1]
    assert hits >= 36  # the benchmark's rate by the second week after is 0.99
    assert blamed <= 4


def test_system_drift_read_as_the_system_with_a_consistent_judge():
    rng = np.random.default_rng(4)
    out = [
        anchor_attribution(
            *_arrays(
                *anchor_design(
                    rng, anchors=200, weeks=10, per_week=2000, system_drift_at=4, consistency=0.3
                )
            ),
            0.05,
            4,
        )
        for _ in range(20)
    ]
    assert sum(o["verdict"][-1] == "system" for o in out) >= 16
    # the corrected rate falls by the system's 0.1
    change = np.mean([o["system_change"][-1] for o in out])
    assert -0.13 < change < -0.07


def test_judge_worse_on_new_items_than_on_anchors_is_not_a_drift():
    # the assumption broken: the anchors' rates are not the new items' (a fixed bias of
    # the corrected rate); nothing moves, so neither alarm sounds beyond its level
    rng = np.random.default_rng(5)
    alarms = [
        anchor_attribution(
            *_arrays(*anchor_design(rng, weeks=8, per_week=800, new_like_anchors=False)),
            0.05,
            4,
        )["verdict"][-1]
        for _ in range(40)
    ]
    assert alarms.count("none") >= 36
