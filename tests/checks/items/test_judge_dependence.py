"""Check ``judge_dependence`` (judgebayes/checks/items/judge_dependence.py): several judges err
independently given the truth; it fires on correlated judges and not on independent ones."""

import numpy as np

import judgebayes as jb
from tests.simulators import correlated_judges


def test_judge_dependence_check_fires_on_correlated_judges_and_not_on_independent_ones():
    # 50 sets each, 300 labels: flagged in 100% of the correlated sets (tau = 2) and 0% of
    # the independent ones when measured over 100 (benchmarks/items_edges.py's sibling
    # run); the rule asks >= 80% and <= 10%
    rates = {}
    for tau in (0.0, 2.0):
        flagged = []
        for r in range(50):
            frame, _ = correlated_judges(r, tau)
            study = jb.AccuracyStudy.from_items(frame, judge=["j0", "j1", "j2"])
            table = study.check().table
            assert set(table["check"]) == {"judge_dependence", "labelling"}
            flagged.append(bool(table.query("check == 'judge_dependence'")["flagged"].any()))
        rates[tau] = np.mean(flagged)
    assert rates[2.0] >= 0.8 and rates[0.0] <= 0.1, rates
