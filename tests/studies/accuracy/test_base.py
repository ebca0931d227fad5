"""The accuracy family's door (judgebayes/studies/accuracy/base.py): bad counts, strata,
methods and interval kinds named, and a frame given as both test and calibration pointed to
from_items.
"""

import pytest

import judgebayes as jb
from judgebayes.errors import EmptyClassError, InputError, MethodRefused
from tests.helpers import systems_frame


def test_the_same_frame_as_test_and_calibration_points_to_from_items():
    f = systems_frame(n=100, labelled=20, systems=("a",))
    with pytest.raises(InputError, match="from_items"):
        jb.AccuracyStudy.from_frames(f, f)


def test_bad_inputs():
    import pandas as pd

    with pytest.raises(EmptyClassError):
        jb.AccuracyStudy.from_counts(k=5, n=10, tn=0, m0=0, tp=5, m1=10)
    test = pd.DataFrame({"judge": [1, 0, 1], "len": ["short", "long", "huge"]})
    cal = pd.DataFrame(
        {"human": [1, 0, 1, 0], "judge": [1, 0, 0, 0], "len": ["short"] * 2 + ["long"] * 2}
    )
    with pytest.raises(InputError, match="'huge'"):
        jb.AccuracyStudy.from_frames(test, cal, stratum="len")
    s = jb.AccuracyStudy.from_counts(k=[1, 2], n=[10, 10], tn=7, m0=10, tp=9, m1=10)
    with pytest.raises(MethodRefused, match="one system"):
        s.fit("exact")
    with pytest.raises(InputError, match="method"):
        s.fit("bootstrap")
    with pytest.raises(InputError, match="kind"):
        s.fit("closed_form").interval(kind="wide")
