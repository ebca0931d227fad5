"""The scores design's ordinal model (judgebayes/models/scores/model.py): its variables and
dims, its log density at a fixed point against the docstring's cumulative logit (scipy),
the level probabilities in numpy, and the distinct lines the model is given.
"""

import numpy as np
import pytest

from judgebayes.models.scores import distinct_lines, level_probabilities, scores_model
from tests.models.logp import (
    TOL,
    coords,
    dims,
    evaluate,
    expit,
    half_normal,
    normal,
    zero_sum_normal,
)

LEVELS = (1.0, 2.0, 3.0, 4.0)
SCORE = np.array([[0.5, -1.0], [1.2, 0.3], [-0.7, 0.9], [0.0, -0.4], [1.5, 1.1], [-1.2, 0.2]])
LEVEL = np.array([1, 3, 0, 2, 3, 0])  # level codes 0..K-1
SYS = np.array([0, 1, 2, 0, 1, 2])
W = np.array([2.0, 1.0, 1.0, 3.0, 1.0, 0.0])  # the last line is padding


def _model(systems=("A", "B", "C"), shift=True):
    return scores_model(
        SCORE, LEVEL, SYS, W,
        systems=systems, levels=LEVELS, judges=("j1", "j2"), system_shift=shift,
    )  # fmt: skip


def _ordinal(cut, eta):
    """log P(H = level) of the cumulative logit: F(c_k - eta) - F(c_(k-1) - eta)."""
    c = np.concatenate([[-np.inf], cut, [np.inf]])
    return np.log(expit(c[LEVEL + 1] - eta) - expit(c[LEVEL] - eta))


def test_the_level_is_ordinal_given_the_scores_and_the_system():
    model = _model()
    assert coords(model) == {
        "system": ["A", "B", "C"],
        "cut": ["1|2", "2|3", "3|4"],
        "judge": ["j1", "j2"],
    }
    assert dims(model, "free_RVs") == {
        "c1": (),
        "log_gap": (),
        "beta": ("judge",),
        "tau": (),
        "u": ("system",),
    }
    assert dims(model, "observed_RVs") == {"level": ()}
    assert dims(model, "deterministics") == {"cutpoints": ("cut",), "alpha": ("system",)}

    c1, gap, beta, tau = -0.5, np.array([0.2, -0.4]), np.array([1.1, -0.6]), 0.7
    u = np.array([0.5, -0.2, -0.3])  # sums to zero
    lp, det = evaluate(model, {"c1": c1, "log_gap": gap, "beta": beta, "tau": tau, "u": u})
    cut = c1 + np.concatenate([[0.0], np.cumsum(np.exp(gap))])  # ordered: c1 plus positive gaps
    np.testing.assert_allclose(det["cutpoints"], cut, rtol=1e-14)
    np.testing.assert_allclose(det["alpha"], tau * u, rtol=1e-14)
    eta = SCORE @ beta + tau * u[SYS]
    assert lp == pytest.approx(
        {
            "c1": normal(c1, 0, 3),
            "log_gap": normal(gap, 0, 1),
            "beta": normal(beta, 0, 2.5),
            "tau": half_normal(tau, 1.0),
            "u": zero_sum_normal(u, 1.0),
            "level": float(np.sum(W * _ordinal(cut, eta))),  # each line times its count
        },
        **TOL,
    )
    probs = level_probabilities(SCORE, SYS, cut[None], beta[None], (tau * u)[None])
    assert probs.shape == (1, 6, 4)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(np.log(probs[0, np.arange(6), LEVEL]), _ordinal(cut, eta))


@pytest.mark.parametrize(("systems", "shift"), [(("A", "B", "C"), False), (("A",), True)])
def test_without_a_system_shift_one_calibration_serves_every_system(systems, shift):
    free = dims(_model(systems, shift), "free_RVs")
    assert set(free) == {"c1", "log_gap", "beta"}


def test_distinct_lines_count_each_row_once_and_pad_with_weight_zero():
    x = np.array([[1, 0], [0, 2], [1, 0], [1, 0], [3, 3]])
    lines, weights = distinct_lines(x, pad=4)
    assert len(lines) == 4 and len(weights) == 4
    np.testing.assert_array_equal(lines[:3], [[0, 2], [1, 0], [3, 3]])
    np.testing.assert_array_equal(weights, [1, 3, 1, 0])
    np.testing.assert_array_equal(lines[3], lines[0])  # a copy of the first
    lines, weights = distinct_lines(x, pad=8)
    assert len(lines) == 8 and weights.sum() == len(x)
