"""The paired items model (judgebayes/models/items/paired.py): the joint states and the
patterns' masks, the model's variables and dims, and its log density at a fixed point
against the docstring's (scipy.stats), summed over what each pattern allows.
"""

import itertools

import numpy as np
import pytest

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import paired_items_model, pattern_masks, truth_states
from tests.models.logp import TOL, coords, dims, dirichlet_rows, evaluate

# patterns of two systems' verdicts and labels (-1: none)
VERDICT = np.array([[1, 1], [1, 0], [0, -1], [0, 0]])
HUMAN = np.array([[1, 0], [-1, -1], [0, -1], [-1, 1]])
COUNTS = np.array([12, 30, 5, 3])
STATES = [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_the_joint_states_and_what_each_pattern_allows():
    np.testing.assert_array_equal(truth_states(2), STATES)
    assert truth_states(3).tolist() == [list(t) for t in itertools.product((0, 1), repeat=3)]
    V, L = pattern_masks(VERDICT, HUMAN)
    # a system without a verdict (label) allows either value
    allows = [
        [all(x < 0 or x == s for x, s in zip(row, st, strict=True)) for st in STATES]
        for row in VERDICT
    ]
    np.testing.assert_array_equal(V, allows)
    np.testing.assert_array_equal(L[1], [1, 1, 1, 1])  # no label: any joint truth
    np.testing.assert_array_equal(L[0], [0, 0, 1, 0])  # labels (1, 0): that truth alone


def test_the_verdicts_shares_and_the_truths_given_a_verdict_are_dirichlet():
    a, b = 2.0, 3.0
    model = paired_items_model(
        COUNTS, VERDICT, HUMAN, systems=("A", "B"), priors=AccuracyPriors(theta=(a, b))
    )
    names = ["00", "01", "10", "11"]
    assert coords(model) == {"system": ["A", "B"], "state": names, "verdict": names}
    assert dims(model, "free_RVs") == {"share": ("verdict",), "given": ("verdict", "state")}
    assert [p.name for p in model.potentials] == ["loglik"] and not model.observed_RVs
    assert dims(model, "deterministics") == {"theta": ("system",)}

    share = np.array([0.1, 0.2, 0.3, 0.4])
    given = np.array(
        [[0.4, 0.3, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25], [0.1, 0.6, 0.2, 0.1], [0.7, 0.1, 0.1, 0.1]]
    )
    lp, det = evaluate(model, {"share": share, "given": given})
    # alpha_t = (a + b) prod_s rho^t_s (1 - rho)^(1 - t_s), rho = a / (a + b)
    rho = a / (a + b)
    alpha = [(a + b) * np.prod([rho if t else 1 - rho for t in st]) for st in STATES]
    # an item: sum over the joint verdicts and truths its verdicts and labels allow
    like = []
    for v, h in zip(VERDICT, HUMAN, strict=True):
        ok = [all(x < 0 or x == s for x, s in zip(v, w, strict=True)) for w in STATES]
        lab = [all(x < 0 or x == s for x, s in zip(h, t, strict=True)) for t in STATES]
        like.append(sum(share[w] * given[w, lab].sum() for w in range(4) if ok[w]))
    assert lp == pytest.approx(
        {
            "share": dirichlet_rows(share, 0.5),  # 2 ** (1 - S)
            "given": dirichlet_rows(given, alpha),
            "loglik": float(np.sum(COUNTS * np.log(like))),
        },
        **TOL,
    )
    # theta_s: the share of items whose truth has system s right
    truth = share @ given
    np.testing.assert_allclose(det["theta"], [truth[2] + truth[3], truth[1] + truth[3]])
