"""The leaderboard models' priors (judgebayes/models/leaderboard/priors.py): a bad setting
is an InputError naming its field, and the builder's density moves with the setting it
reads.
"""

import math

import numpy as np
import pytest

from judgebayes.models.leaderboard import BoardPriors, board_model
from tests.models.logp import TOL, normal, refused_setting, terms

SCALES = ("ability_sd", "item_sd", "cluster_sd", "discrimination_sd", "judge_mu_sd", "judge_spread")
BAD = [
    *((f, v) for f in SCALES for v in (0.0, -1.0, math.nan)),
    ("ability_sd", True),
    ("judge_mu", math.inf),
    ("judge_mu", math.nan),
    ("concentration", (2.0, 0.0)),
    ("floor", (0.0, 6.0)),
    ("floor", (2.0, math.nan)),
    ("concentration", (math.nan, 1.5)),
]


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v}" for f, v in BAD])
def test_a_bad_setting_is_an_input_error_naming_its_field(field, value):
    refused_setting(BoardPriors, "priors", field, value)


def test_the_builder_reads_the_abilities_scale():
    point = {"ability": np.array([0.8, -0.4])}
    base, moved = (terms(_exchangeable(BoardPriors(ability_sd=sd)), point) for sd in (2.0, 0.5))
    assert base["ability"] == pytest.approx(normal(point["ability"], 0, 2.0), **TOL)
    assert moved["ability"] == pytest.approx(normal(point["ability"], 0, 0.5), **TOL)
    assert moved["y"] == pytest.approx(base["y"], **TOL)


def _exchangeable(priors):
    return board_model(
        [3, 1], [4, 4], [0, 1], [0, 0], [], [], [], [], np.zeros((2, 4), int), [0],
        systems=("S1", "S2"), items=("i1",), clusters=(), item_effects=False,
        discrimination=False, judged=False, priors=priors,
    )  # fmt: skip
