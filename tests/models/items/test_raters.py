"""The latent-truth model of raters and judges (judgebayes/models/items/raters.py): its
variables and dims, and its log density at a fixed point against the docstring's
(Dawid-Skene with the judge in it, a missing rating dropped; scipy.stats).
"""

import numpy as np
import pytest

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import raters_items_model
from tests.models.logp import TOL, beta, coords, dims, evaluate

PRIORS = AccuracyPriors(theta=(0.5, 0.5), q0=(3.0, 2.0), q1=(4.0, 1.5), rater=(2.5, 1.5))
# ratings of each pattern by (judge, rater r1, rater r2): 1, 0 or None (not given)
RATINGS = [(1, 1, None), (0, 0, 0), (1, 0, 1), (0, None, None)]
YES = np.array([[r == 1 for r in p] for p in RATINGS], dtype=float)
NO = np.array([[r == 0 for r in p] for p in RATINGS], dtype=float)
COUNTS = np.array([[20, 15, 3, 40], [12, 20, 2, 30]])


def test_raters_and_judges_rate_a_latent_truth():
    model = raters_items_model(
        COUNTS, YES, NO, systems=("A", "B"), judges=("gpt",), raters=("r1", "r2"), priors=PRIORS
    )
    assert coords(model) == {
        "system": ["A", "B"],
        "judge": ["gpt"],
        "rater": ["r1", "r2"],
        "pattern": [0, 1, 2, 3],
        "rating": ["gpt", "r1", "r2"],
    }
    assert dims(model, "free_RVs") == {
        "theta": ("system",),
        "q0": ("judge",),
        "q1": ("judge",),
        "rater_skill0": ("rater",),
        "rater_skill1": ("rater",),
    }
    assert dims(model, "deterministics") == {"rater_q0": ("rater",), "rater_q1": ("rater",)}
    assert [p.name for p in model.potentials] == ["items_logp"] and not model.observed_RVs

    theta, q0, q1 = np.array([0.6, 0.4]), np.array([0.7]), np.array([0.85])
    a0, a1 = np.array([0.5, 0.8]), np.array([0.6, 0.9])
    point = {"theta": theta, "q0": q0, "q1": q1, "rater_skill0": a0, "rater_skill1": a1}
    lp, det = evaluate(model, point)
    # the raters' rates: 1/2 + 1/2 Beta, above chance
    r0, r1 = 0.5 + 0.5 * a0, 0.5 + 0.5 * a1
    np.testing.assert_allclose(det["rater_q0"], r0)
    spec, sens = np.concatenate([q0, r0]), np.concatenate([q1, r1])  # judges first
    items = 0.0
    for p, ratings in enumerate(RATINGS):
        l1 = l0 = 0.0
        for k, r in enumerate(ratings):
            if r is None:  # a rating not given drops out
                continue
            l1 += np.log(sens[k] if r else 1 - sens[k])
            l0 += np.log(1 - spec[k] if r else spec[k])
        for s in range(2):
            items += COUNTS[s, p] * np.logaddexp(np.log(theta[s]) + l1, np.log1p(-theta[s]) + l0)
    assert lp == pytest.approx(
        {
            "theta": beta(theta, 0.5, 0.5),
            "q0": beta(q0, 3, 2),
            "q1": beta(q1, 4, 1.5),
            "rater_skill0": beta(a0, 2.5, 1.5),
            "rater_skill1": beta(a1, 2.5, 1.5),
            "items_logp": items,
        },
        **TOL,
    )
