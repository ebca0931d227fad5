"""The items design's data (judgebayes/data/items/data.py): the per-system summary counts blank
labels as unlabelled and missing verdicts apart.
"""

import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.data.items import items_from_frame


def test_blank_human_means_unlabelled_and_missing_verdicts_are_counted():
    f = pd.DataFrame(
        {
            "judge": ["pass", "fail", "pass", None, "pass", "fail"],
            "human": ["yes", "", None, "no", "no", np.nan],
            "system": ["x", "x", "x", "x", "y", "y"],
        }
    )
    d = items_from_frame(f, system="system")
    s = d.summary()
    # items, labelled, judged +, human + (labelled), missing verdict
    assert s.loc["x"].tolist() == [3, 1, 2, 1, 1]
    assert s.loc["y"].tolist() == [2, 1, 1, 0, 0]
    study = jb.AccuracyStudy.from_items(f, system="system")
    fit = study.fit("closed_form")
    assert any("1 row(s) without a verdict" in n for n in fit.notes)
