"""Checks score_labelling and score_range: labels drawn by the score, and scores the labels
never saw, on frames simulated here (a judge's 1-10 score of a Likert 1-5 rating)."""

import numpy as np
import pandas as pd

import judgebayes as jb


def _frame(rng, how: str, n: int = 600) -> tuple[pd.DataFrame, float]:
    quality = rng.normal(0, 1, n)
    human = np.clip(np.round(3 + quality + rng.normal(0, 0.6, n)), 1, 5)
    score = np.clip(np.round(5.5 + 1.6 * (human - 3) + rng.normal(0, 1.2, n)), 1, 10)
    p = {"random": np.full(n, 0.2), "high only": np.where(score >= 7, 0.4, 0.0)}[how]
    lab = rng.random(n) < p
    return pd.DataFrame({"score": score, "human": np.where(lab, human, np.nan)}), human.mean()


def _flags(frame) -> dict[str, bool]:
    study = jb.ScoreStudy.from_items(frame, score="score", human="human")
    table = study.check(study.fit("closed_form")).table
    return {c: bool(table.loc[table["check"] == c, "flagged"].any()) for c in table["check"]}


def test_labels_on_high_scores_only_are_flagged_and_the_closed_form_fails():
    # the means are off by far more than the interval (the 6.86 against 5.92): the
    # range check fails the closed form, the labelling check warns
    frame, truth = _frame(np.random.default_rng(1), "high only")
    study = jb.ScoreStudy.from_items(frame, score="score", human="human")
    fit = study.fit("closed_form")
    iv = fit.interval().iloc[0]
    assert not iv["lower"] <= truth <= iv["upper"]
    report = study.check(fit)
    assert not report.passed
    assert "score_range" in {r.check for r in report.failures}
    flags = _flags(frame)
    assert flags["score_range"] and flags["score_labelling"]


def test_random_labels_rarely_flag_either_check():
    # 60 random labellings: each check flags at most alpha of them in expectation (3); 8
    # is 3 Monte-Carlo sd (1.7) above that
    rng = np.random.default_rng(2)
    counts = {"score_range": 0, "score_labelling": 0}
    for _ in range(60):
        flags = _flags(_frame(rng, "random")[0])
        for c in counts:
            counts[c] += flags.get(c, False)
    assert max(counts.values()) <= 8, counts


def test_known_probabilities_leave_the_labelling_check_nothing_to_test():
    frame, _ = _frame(np.random.default_rng(3), "random")
    frame["p"] = 0.2
    study = jb.ScoreStudy.from_items(frame, score="score", human="human", label_prob="p")
    table = study.check(study.fit("closed_form")).table
    assert "score_labelling" not in set(table["check"])
