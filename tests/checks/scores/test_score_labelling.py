"""Check score_labelling: labels drawn by the score, on frames simulated in
tests/simulators.py (a judge's 1-10 score of a Likert 1-5 rating)."""

import numpy as np

import judgebayes as jb
from tests.helpers import score_check_flags
from tests.simulators import scores_labelled_where


def test_labels_on_high_scores_only_are_flagged_as_not_random():
    frame, _ = scores_labelled_where(np.random.default_rng(1), "high only")
    assert score_check_flags(frame)["score_labelling"]


def test_random_labels_rarely_flag_it():
    # 60 random labellings: the check flags at most alpha of them in expectation (3); 8 is
    # 3 Monte-Carlo sd (1.7) above that
    rng = np.random.default_rng(2)
    flagged = sum(
        score_check_flags(scores_labelled_where(rng, "random")[0]).get("score_labelling", False)
        for _ in range(60)
    )
    assert flagged <= 8, flagged


def test_known_probabilities_leave_it_nothing_to_test():
    frame, _ = scores_labelled_where(np.random.default_rng(3), "random")
    frame["p"] = 0.2
    study = jb.ScoreStudy.from_items(frame, score="score", human="human", label_prob="p")
    table = study.check(study.fit("closed_form")).table
    assert "score_labelling" not in set(table["check"])
