"""The two frames' reader (judgebayes/data/accuracy/frames.py): test and calibration frames to
counts with systems, strata and missing verdicts, errors naming the field, and an item in
both frames refused.
"""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.accuracy import counts_from_calibration_frame, counts_from_test_frame
from judgebayes.errors import EmptyClassError, InputError


def test_frames_to_counts_with_systems_strata_and_missing():
    df = pd.DataFrame(
        {
            "sys": ["a", "a", "a", "b", "b", "b", "b"],
            "len": ["short", "long", "long", "short", "short", "long", "long"],
            "v": ["pass", "fail", None, "pass", "pass", np.nan, "fail"],
        }
    )
    t = counts_from_test_frame(df, judge="v", system="sys", stratum="len")
    assert t.systems == ("a", "b") and t.strata == ("short", "long")
    np.testing.assert_array_equal(t.k, [[1, 0], [2, 0]])
    np.testing.assert_array_equal(t.n, [[1, 1], [2, 1]])
    np.testing.assert_array_equal(t.n_missing, [[0, 1], [0, 1]])
    assert int(t.n.sum() + t.n_missing.sum()) == len(df)  # nothing lost


def test_calibration_frame():
    cal = pd.DataFrame(
        {
            "human": [1, 1, 1, 0, 0, 0, None, 1],
            "judge": [1, 1, 0, 0, 1, 0, 1, None],
            "src": ["x"] * 8,
        }
    )
    c = counts_from_calibration_frame(cal, stratum="src")
    assert (c.tp[0], c.m1[0], c.tn[0], c.m0[0], c.n_missing[0]) == (2, 3, 2, 3, 2)
    assert c.dim == "src" and c.fp[0] == 1 and c.fn[0] == 1
    with pytest.raises(EmptyClassError, match="truly negative"):
        counts_from_calibration_frame(pd.DataFrame({"human": [1, 1], "judge": [1, 0]}))


def test_frame_errors_name_the_field():
    with pytest.raises(InputError, match="'verdict'") as ei:
        counts_from_test_frame(pd.DataFrame({"judge": [1]}), judge="verdict")
    assert ei.value.field == "judge"
    with pytest.raises(InputError, match="no rows"):
        counts_from_test_frame(pd.DataFrame({"judge": []}))
    with pytest.raises(InputError, match="'sys'"):
        counts_from_test_frame(pd.DataFrame({"judge": [1, 0], "sys": ["a", None]}), system="sys")


def test_an_item_in_both_frames_is_refused():
    import pandas as pd

    df = pd.DataFrame({"id": [1, 2, 3, 4], "judge": [1, 0, 1, 0], "human": [1, 0, 0, 1]})
    with pytest.raises(jb.InputError, match="same frame") as e:
        jb.AccuracyStudy.from_frames(df, df)
    assert e.value.field == "calibration_df"
    with pytest.raises(jb.InputError, match="2 item") as e:
        jb.AccuracyStudy.from_frames(df.iloc[:3], df.iloc[1:], item="id")
    assert (e.value.field, e.value.value) == ("id", "2")
    ok = jb.AccuracyStudy.from_frames(df.iloc[:2], df.iloc[2:].assign(id=[3, 4]), item="id")
    assert ok.test.n.sum() == 2
