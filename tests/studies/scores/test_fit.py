"""The scores family's fit (judgebayes/studies/scores/fit.py): contrasts of one system name
the single system; its prob_best is 1.
"""

from __future__ import annotations

import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError


def test_contrasts_of_one_system_name_the_single_system():
    # one system: contrasts say there is nothing to compare, and how to give several,
    # rather than blaming the method; prob_best is 1
    frame = pd.DataFrame({"score": [1.0, 2.0, 3.0, 4.0, 5.0] * 4, "human": [1, 2, 3, None, 5] * 4})
    fit = jb.ScoreStudy.from_items(frame, score="score", human="human").fit("closed_form")
    with pytest.raises(
        InputError, match="this fit has one \\('all'\\): give the study system="
    ) as e:
        fit.contrasts()
    assert e.value.field == "system"
    assert fit.prob_best().to_dict() == {"all": 1.0}
