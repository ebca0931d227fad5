"""The scores frame reader (judgebayes/data/scores/frame.py): bad input named by field, missing
scores counted and said, no labels and unknown keywords refused.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.scores import scores_from_frame
from judgebayes.errors import InputError
from tests.simulators import simulate_scores


def test_missing_scores_are_counted_and_said():
    rng = np.random.default_rng(10)
    frame, _ = simulate_scores(rng)
    frame.loc[[0, 5, 9], "score"] = np.nan
    fit = jb.ScoreStudy.from_items(frame, score="score", human="human", system="system").fit()
    assert fit.info["n_items"] == [297, 300]
    assert any("3 row(s) without every judge's score" in n for n in fit.notes)


@pytest.mark.parametrize(
    ("kwargs", "field", "match"),
    [
        ({"score": "nope"}, "score", "no column 'nope'"),
        ({"scale": (1, 5)}, "score", "outside scale"),
        ({"scale": (5, 1)}, "scale", "low < high"),
        ({"threshold": "3"}, "threshold", "must be a number"),
        ({"human_scale": (0, 0.5)}, "human", "outside human_scale"),
        ({"item": "prompt", "system": None}, "item", "appears twice"),
    ],
)
def test_bad_input_names_the_field(kwargs, field, match):
    rng = np.random.default_rng(11)
    frame, _ = simulate_scores(rng)
    kw = {"score": "score", "human": "human", "system": "system", **kwargs}
    with pytest.raises(InputError, match=match) as e:
        scores_from_frame(frame, **kw)
    assert e.value.field == field


def test_no_labels_and_unknown_keywords():
    frame = pd.DataFrame({"score": [1.0, 2.0], "human": [None, None]})
    with pytest.raises(InputError, match="without some"):
        jb.ScoreStudy.from_items(frame, score="score", human="human")
    with pytest.raises(InputError, match="scale"):
        jb.ScoreStudy.from_items(frame, score="score", human="human", scael=(1, 2))
