"""Check ``monotone_calibration`` (judgebayes/checks/scores/monotone.py): the human label
rises with the judge's score; it fires where the judge gives the best answers a low score."""

import numpy as np
import pytest

from tests.helpers import times_flagged
from tests.simulators import simulate_scores


@pytest.mark.parametrize(
    ("condition", "check", "low", "high"),
    [
        # 40 sets each.  Control: the check's level is alpha = 0.01; at a true rate of
        # 0.02 five or more flags in 40 happen 1% of the time.  Broken: measured 0.925;
        # 3 Monte-Carlo sd below it is 0.80
        ("control", "monotone_calibration", 0, 4),
        ("non-monotone", "monotone_calibration", 32, 40),
    ],
)
def test_monotone_check_fires_where_the_judge_is_not_monotone(condition, check, low, high):
    def frame(rng):
        frame, _ = simulate_scores(rng, kind="likert", frac=0.3)
        if condition == "non-monotone":  # the judge gives the best stories a 2
            frame["score"] = np.where(frame["truth"] >= 5, 2.0, frame["score"])
        return frame

    fired = times_flagged(check, frame)
    assert low <= fired <= high, fired
