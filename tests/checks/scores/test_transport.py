"""Check ``calibration_transport`` (judgebayes/checks/scores/transport.py): the calibration
of the judge's scores carries over from one system to another; it fires where a system is
scored kinder, and fails only the models that assume it."""

import numpy as np
import pytest

import judgebayes as jb
from tests.helpers import times_flagged
from tests.simulators import simulate_scores


@pytest.mark.parametrize(
    ("condition", "check", "low", "high"),
    [
        # 40 sets each.  Control: the check's level is alpha = 0.01; at a true rate of
        # 0.02 five or more flags in 40 happen 1% of the time.  Broken (B scored 1.5 points
        # kinder): measured 0.675; 3 Monte-Carlo sd below it is 0.45
        ("control", "calibration_transport", 0, 4),
        ("kind to B", "calibration_transport", 18, 40),
    ],
)
def test_transport_check_fires_where_one_system_is_scored_kinder(condition, check, low, high):
    shift = (0, 1.5) if condition == "kind to B" else None

    def frame(rng):
        return simulate_scores(rng, kind="likert", frac=0.3, shift=shift)[0]

    fired = times_flagged(check, frame)
    assert low <= fired <= high, fired


def test_transport_check_fails_only_the_models_that_assume_it():
    rng = np.random.default_rng(14)
    frame, _ = simulate_scores(rng, kind="likert", frac=0.5, shift=(0, 3.0))
    kw = dict(score="score", human="human", system="system")
    study = jb.ScoreStudy.from_items(frame, **kw)
    closed = study.fit()
    report = study.check(closed)
    assert not report["calibration_transport"].passed  # flagged ...
    assert report.passed  # ... as a warning: the closed form's residual is per system
    assert not study.check(study.fit("naive")).passed
