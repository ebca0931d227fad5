"""Who drifted (judgebayes/inference/monitor/anchors.py): the looks' levels, the scan's
variance against its closed form, the false-alarm rate where nothing moved, the power
and the attribution where one thing moved, on streams of tests/simulators.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgebayes.inference.monitor.anchors import anchor_attribution
from tests.simulators import anchor_design


def _arrays(items, anchors):
    weeks = int(max(items.week.max(), anchors.week.max())) + 1
    return (
        anchors.week.to_numpy(), anchors.id.to_numpy(), anchors.judge.to_numpy(float),
        anchors.human.to_numpy(float), items.week.to_numpy(), items.judge.to_numpy(float),
        weeks,
    )  # fmt: skip


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
