"""Check ``judge_drift`` (judgebayes/checks/items/judge_drift.py): the judge's sensitivity and
specificity hold from period to period; it says where a simulated judge changed and stays
quiet on a steady one."""

import numpy as np

import judgebayes as jb
from tests.simulators import stream


def test_judge_drift_check_says_where_the_judge_changed():
    frame, _ = stream(
        np.random.default_rng(43), weeks=10, items=300, labels=80, drift_at=6, sens_after=0.5
    )
    study = jb.AccuracyStudy.from_items(frame, judge="judge", human="human", time="week")
    rows = study.check().table
    row = rows[rows["check"] == "judge_drift"].iloc[0]
    assert row["p_value"] < 0.01
    assert "sensitivity down" in row["unit"]
    steady, _ = stream(np.random.default_rng(44), weeks=10, items=300, labels=80)
    rows = jb.AccuracyStudy.from_items(steady, judge="judge", human="human", time="week")
    table = rows.check().table
    assert table.loc[table["check"] == "judge_drift", "p_value"].iloc[0] > 0.05
