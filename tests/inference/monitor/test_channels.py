"""The all-channel drift alarm (judgebayes/inference/monitor/channels.py): the period's
rates against a numerical maximum of the likelihood, the variance against simulation, the
false-alarm rate with and without the prevalence moving, and the power the verdict rate
adds to the labels.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from judgebayes.inference.monitor.channels import (
    channel_alarm,
    period_counts,
    period_rates,
    pooled_rates,
)
from judgebayes.inference.sequences import drift_alarm


def _week(rng, n=1500, m=40, theta=0.6, se=0.9, sp=0.8, by_verdict=False):
    y = rng.random(n) < theta
    f = np.where(y, rng.random(n) < se, rng.random(n) > sp)
    if by_verdict:  # labels drawn more among positive verdicts (random given the verdict)
        w = np.where(f, 3.0, 1.0)
        pick = rng.choice(n, m, replace=False, p=w / w.sum())
    else:
        pick = rng.choice(n, m, replace=False)
    h = np.full(n, np.nan)
    h[pick] = y[pick]
    return f.astype(float), h


def _stream(rng, weeks=12, drift_at=None, theta=lambda w: 0.6, **kw):
    f, y, p = [], [], []
    for w in range(weeks):
        se = 0.7 if drift_at is not None and w >= drift_at else 0.9
        fw, hw = _week(rng, theta=theta(w), se=se, **kw)
        f.append(fw), y.append(hw), p.append(np.full(fw.size, w))
    return np.concatenate(p), np.concatenate(f), np.concatenate(y)


def test_period_rates_are_the_likelihood_maximum():
    cells = np.array([[20.0, 3.0, 4.0, 13.0, 700.0, 760.0]])
    n11, n10, n01, n00, u1, u0 = cells[0]

    def nll(x):
        th, se, fp = 1 / (1 + np.exp(-x))
        q = fp + th * (se - fp)
        return -(n11 * np.log(th * se) + n10 * np.log(th * (1 - se))
                 + n01 * np.log((1 - th) * fp) + n00 * np.log((1 - th) * (1 - fp))
                 + u1 * np.log(q) + u0 * np.log(1 - q))  # fmt: skip

    opts = {"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20_000}
    best = optimize.minimize(nll, np.zeros(3), method="Nelder-Mead", options=opts)
    want = 1 / (1 + np.exp(-best.x))
    got = np.array([r[0] for r in period_rates(cells)])
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_pooled_rates_hold_while_the_prevalence_moves():
    rng = np.random.default_rng(0)
    p, f, y = _stream(rng, weeks=30, theta=lambda w: 0.3 + 0.02 * w)
    cells = period_counts(p, f, y, 30)
    theta, _, _ = period_rates(cells)
    se, fp = pooled_rates(cells, theta)
    se0, fp0 = se[-1], fp[-1]
    # 1,200 labels: sd of each about 0.012; 4 sd
    assert se0 == pytest.approx(0.9, abs=0.05) and fp0 == pytest.approx(0.2, abs=0.05)


@pytest.mark.parametrize("by_verdict", [False, True])
def test_no_drift_alarms_at_most_alpha(by_verdict):
    rng = np.random.default_rng(7)
    streams = 200
    alarms = sum(
        bool(channel_alarm(*_stream(rng, by_verdict=by_verdict), 12, 0.05, 4)["alarm"].any())
        for _ in range(streams)
    )
    # alpha 0.05; allowance 2.5 Monte-Carlo sd of that rate over 200 streams
    assert alarms / streams <= 0.05 + 2.5 * math.sqrt(0.05 * 0.95 / streams)


def test_the_system_moving_is_not_the_judge_moving():
    # the prevalence falls from 0.6 to 0.4 at week 6, the judge steady: the labels say
    # the verdict rate fell with the prevalence
    rng = np.random.default_rng(8)
    streams = 100
    moving = [_stream(rng, theta=lambda w: 0.6 if w < 6 else 0.4) for _ in range(streams)]
    alarms = sum(bool(channel_alarm(*s, 12, 0.05, 4)["alarm"].any()) for s in moving)
    assert alarms / streams <= 0.05 + 2.5 * math.sqrt(0.05 * 0.95 / streams)


def test_the_verdict_rate_adds_power_to_the_labels():
    rng = np.random.default_rng(9)
    found = {"all": 0, "labels": 0}
    for _ in range(40):
        p, f, y = _stream(rng, drift_at=5)
        found["all"] += bool(channel_alarm(p, f, y, 12, 0.05, 4)["alarm"][9])
        found["labels"] += bool(drift_alarm(p, f, y, 12, 0.05, 4)["alarm"][9])
    # benchmarks/drift_power.py measures the rates by week 10 on 400 streams
    assert found["all"] >= 28 and found["all"] >= found["labels"] + 10, found


def test_which_rate_moved_and_the_reference_bounds():
    rng = np.random.default_rng(10)
    out = channel_alarm(*_stream(rng, drift_at=5), 12, 0.05, 4)
    assert out["alarm"][-1] and out["which"][-1] == "sensitivity down"
    lo, hi = out["bounds"]["sensitivity"]
    assert lo < 0.9 < hi
