"""Check score_range: scores the labels never saw, on frames simulated in
tests/simulators.py (a judge's 1-10 score of a Likert 1-5 rating)."""

import numpy as np

import judgebayes as jb
from tests.helpers import score_check_flags
from tests.simulators import scores_labelled_where


def test_labels_on_high_scores_only_fail_the_closed_form():
    # the calibration is extrapolated to the low scores and the mean misses by far more
    # than its interval; the range check fails the closed form
    frame, truth = scores_labelled_where(np.random.default_rng(1), "high only")
    study = jb.ScoreStudy.from_items(frame, score="score", human="human")
    fit = study.fit("closed_form")
    iv = fit.interval().iloc[0]
    assert not iv["lower"] <= truth <= iv["upper"]
    report = study.check(fit)
    assert not report.passed
    assert "score_range" in {r.check for r in report.failures}


def test_random_labels_rarely_flag_it():
    # 60 random labellings: the check flags at most alpha of them in expectation (3); 8 is
    # 3 Monte-Carlo sd (1.7) above that
    rng = np.random.default_rng(2)
    flagged = sum(
        score_check_flags(scores_labelled_where(rng, "random")[0]).get("score_range", False)
        for _ in range(60)
    )
    assert flagged <= 8, flagged
