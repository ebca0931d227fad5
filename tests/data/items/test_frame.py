"""The items frame reader (judgebayes/data/items/frame.py): a bad frame is one typed error
naming the field.
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.helpers import systems_frame


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda f: f.drop(columns="human"), "human"),
        (lambda f: f.assign(human=np.nan), "human"),  # nothing labelled
        (lambda f: f.assign(judge=f["judge"] * 3), "judge"),  # 3 is not a label
        (lambda f: f.assign(system=f["system"].where(f.index != 4)), "system"),
    ],
)
def test_bad_frames_get_one_typed_error_naming_the_field(change, field):
    f = systems_frame(n=100, labelled=20)
    with pytest.raises(InputError) as e:
        jb.AccuracyStudy.from_items(change(f), system="system")
    assert e.value.field == field
