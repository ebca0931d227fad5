"""The scores design's data (judgebayes/data/scores/data.py): the per-system summary by
pandas, each row's mean over several judges, and whether the labels are a pass rate."""

import numpy as np
import pandas as pd

from judgebayes.data.scores import scores_from_frame


def test_the_summary_is_pandas_group_means():
    frame = pd.DataFrame(
        {
            "system": ["a", "a", "a", "b", "b"],
            "s1": [2.0, 4.0, 6.0, 8.0, 10.0],
            "s2": [4.0, 4.0, 4.0, 6.0, 6.0],
            "human": [1.0, None, 3.0, 5.0, None],
        }
    )
    data = scores_from_frame(frame, score=["s1", "s2"], human="human", system="system")
    s = data.summary()
    by = frame.groupby("system")
    np.testing.assert_array_equal(s["n_items"], by.size())
    np.testing.assert_array_equal(s["n_labelled"], by["human"].count())
    np.testing.assert_allclose(s["mean_score[s1]"], by["s1"].mean())
    np.testing.assert_allclose(s["mean_score[s2]"], by["s2"].mean())
    np.testing.assert_allclose(s["mean_human_labelled"], by["human"].mean())
    np.testing.assert_allclose(data.mean_score, (frame["s1"] + frame["s2"]) / 2)
    assert data.n_judges == 2 and not data.binary  # labels 1 to 5: a mean rating
    passes = frame.assign(human=[1.0, None, 0.0, 1.0, None])
    assert scores_from_frame(passes, score="s1", human="human").binary
