"""The accuracy family's door (judgebayes/studies/accuracy/base.py)."""

import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.helpers import systems_frame


def test_the_same_frame_as_test_and_calibration_points_to_from_items():
    f = systems_frame(n=100, labelled=20, systems=("a",))
    with pytest.raises(InputError, match="from_items"):
        jb.AccuracyStudy.from_frames(f, f)
