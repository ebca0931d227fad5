"""The ``board_labelling`` check (judgebayes/checks/leaderboard/labelling.py): its tests
against scipy's, and on judged boards simulated by tests/simulators.py: quiet where each
system's labels are a random choice of its rows, firing where they follow the verdict."""

import numpy as np
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes.checks.leaderboard.labelling import labelling_pvalues
from judgebayes.inference.multiplicity import holm
from tests.simulators import judged_board


def test_the_tests_are_fishers_the_chi_squares_and_ks():
    rng = np.random.default_rng(0)
    lab = rng.random((2, 80)) < 0.3
    x = (rng.random((2, 80)) < 0.6).astype(float)
    p = labelling_pvalues(x, lab)
    a, b = x[0, lab[0]], x[0, ~lab[0]]
    table = [[(a == 1).sum(), (a == 0).sum()], [(b == 1).sum(), (b == 0).sum()]]
    assert p[0] == pytest.approx(stats.fisher_exact(table).pvalue)
    grades = rng.integers(1, 6, (2, 80)).astype(float)
    p = labelling_pvalues(grades, lab)
    counts = np.array([[np.sum(grades[1, lab[1]] == v), np.sum(grades[1, ~lab[1]] == v)]
                       for v in range(1, 6)])  # fmt: skip
    assert p[1] == pytest.approx(stats.chi2_contingency(counts)[1])
    wins = rng.random((2, 80))
    p = labelling_pvalues(wins, lab)
    assert p[0] == pytest.approx(stats.ks_2samp(wins[0, lab[0]], wins[0, ~lab[0]]).pvalue)


def _flagged(seed, by_verdict: float) -> float:
    """Share of 100 boards whose check flags (Holm over the systems, alpha 0.01)."""
    out = []
    for r in range(100):
        rng = np.random.default_rng([seed, r])
        frame, _ = judged_board(rng, np.linspace(1, -1, 6), n_items=300, labelled=0.2)
        if by_verdict:  # labels kept 1 - by_verdict as often where the judge said 0
            keep = rng.random(len(frame)) < np.where(frame["score"] == 1, 1.0, 1 - by_verdict)
            frame["human"] = frame["human"].where(keep)
        x = frame.pivot(index="system", columns="item", values="score").to_numpy()
        h = frame.pivot(index="system", columns="item", values="human").to_numpy()
        out.append(bool((holm(labelling_pvalues(x, ~np.isnan(h))) < 0.01).any()))
    return float(np.mean(out))


def test_it_is_quiet_on_random_labels_and_fires_when_they_follow_the_verdict():
    # 100 boards each: random labels flag at alpha (1% + 2.5 Monte-Carlo sds); labels kept
    # at a quarter the rate where the judge said 0 flag on at least 80% (measured: 1.00)
    assert _flagged(1, 0.0) <= 0.01 + 2.5 * np.sqrt(0.01 * 0.99 / 100)
    assert _flagged(2, 0.75) >= 0.8


def test_the_study_runs_it_for_the_closed_forms():
    frame, _ = judged_board(np.random.default_rng(5), np.linspace(1, -1, 4), n_items=200)
    study = jb.LeaderboardStudy.from_items(frame, human="human")
    report = study.check(study.fit("closed_form"))
    assert "board_labelling" in set(report.table["check"])
    assert not report.failures


def test_labels_drawn_by_a_column_the_judge_follows_are_seen_in_that_column():
    # labels e-fold more likely per sd of an answer's log length, which the judge follows:
    # the length column's test flags on 40 of 40 boards (measured: 100 of 100 in
    # BENCHMARKS), and on none of 40 boards labelled at random
    from tests.simulators import labelled_by_length_board

    def flags(selection):
        out = []
        for r in range(40):
            frame, _ = labelled_by_length_board(np.random.default_rng([6, r]), selection=selection)
            study = jb.LeaderboardStudy.from_items(frame, human="human")
            table = study.check()["board_labelling"].table
            out.append(bool(table.loc[table["column"] == "length", "flagged"].any()))
        return np.mean(out)

    assert flags(1.0) >= 0.8
    assert flags(0.0) <= 0.01 + 2.5 * np.sqrt(0.01 * 0.99 / 40)
