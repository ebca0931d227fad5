"""The items model (judgebayes/models/items/items.py): its variables and dims under each
judge_rates option, and its log density at a fixed point against the docstring's
(scipy.stats).
"""

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import items_accuracy_model
from tests.models.logp import (
    TOL,
    beta,
    coords,
    dims,
    evaluate,
    expit,
    half_normal,
    items_terms,
    logit,
    normal,
)

PRIORS = AccuracyPriors(theta=(0.5, 0.5), q0=(3.0, 2.0), q1=(4.0, 1.5), judge_sigma=0.8)
COUNTS = dict(
    k=[[30, 12], [20, 25]],
    n=[[50, 40], [30, 60]],
    tp=[[4, 2], [3, 5]],
    m1=[[5, 3], [4, 6]],
    tn=[[4, 6], [2, 3]],
    m0=[[5, 7], [3, 4]],
)
SHARE = np.array([[0.6, 0.4], [0.3, 0.7]])
CELL = ("system", "stratum")
TH = np.array([[0.6, 0.3], [0.5, 0.45]])


def _model(judge_rates):
    return items_accuracy_model(
        **COUNTS,
        share=SHARE,
        systems=("A", "B"),
        strata=("s1", "s2"),
        judge_rates=judge_rates,
        priors=PRIORS,
    )


def _check_common(model, lp, det):
    assert coords(model) == {"system": ["A", "B"], "stratum": ["s1", "s2"]}
    assert dims(model, "observed_RVs") == dict.fromkeys(
        ("k_obs", "m1_obs", "tp_obs", "tn_obs"), CELL
    )
    assert model.named_vars_to_dims["share"] == CELL
    # theta_s: the strata's rates weighted by the system's shares
    np.testing.assert_allclose(det["theta"], (SHARE * TH).sum(1), rtol=1e-14)


def test_shared_judge_rates_are_one_pair_per_stratum():
    model = _model("shared")
    assert dims(model, "free_RVs") == {
        "theta_stratum": CELL,
        "q0": ("stratum",),
        "q1": ("stratum",),
    }
    q0, q1 = np.array([0.8, 0.7]), np.array([0.9, 0.85])
    lp, det = evaluate(model, {"theta_stratum": TH, "q0": q0, "q1": q1})
    _check_common(model, lp, det)
    want = {"q0": beta(q0, 3, 2), "q1": beta(q1, 4, 1.5), **items_terms(COUNTS, TH, q0, q1)}
    assert lp == pytest.approx({"theta_stratum": beta(TH, 0.5, 0.5), **want}, **TOL)


def test_per_system_judge_rates_are_one_pair_per_cell():
    model = _model("per_system")
    assert dims(model, "free_RVs") == {"theta_stratum": CELL, "q0": CELL, "q1": CELL}
    q0, q1 = np.array([[0.8, 0.7], [0.6, 0.75]]), np.array([[0.9, 0.85], [0.95, 0.8]])
    lp, det = evaluate(model, {"theta_stratum": TH, "q0": q0, "q1": q1})
    _check_common(model, lp, det)
    want = {"q0": beta(q0, 3, 2), "q1": beta(q1, 4, 1.5), **items_terms(COUNTS, TH, q0, q1)}
    assert lp == pytest.approx({"theta_stratum": beta(TH, 0.5, 0.5), **want}, **TOL)


def test_pooled_judge_rates_spread_around_the_judges_typical_ones():
    model = _model("pooled")
    st = ("stratum",)
    assert dims(model, "free_RVs") == {
        "theta_stratum": CELL,
        "q0_mean": st,
        "q0_sigma": (),
        "q0_system": CELL,
        "q1_mean": st,
        "q1_sigma": (),
        "q1_system": CELL,
    }
    assert dims(model, "deterministics") == {"q0": CELL, "q1": CELL, "theta": ("system",)}
    m0, m1 = np.array([0.8, 0.7]), np.array([0.9, 0.85])
    e0, e1 = np.array([[0.5, -1.0], [0.2, 1.5]]), np.array([[-0.3, 0.4], [1.1, -0.7]])
    point = {"theta_stratum": TH, "q0_mean": m0, "q0_sigma": 0.6, "q0_system": e0}
    point |= {"q1_mean": m1, "q1_sigma": 0.4, "q1_system": e1}
    lp, det = evaluate(model, point)
    _check_common(model, lp, det)
    # logit q_st = logit(mean_t) + sigma eps_st
    q0, q1 = expit(logit(m0) + 0.6 * e0), expit(logit(m1) + 0.4 * e1)
    np.testing.assert_allclose(det["q0"], q0, rtol=1e-12)
    np.testing.assert_allclose(det["q1"], q1, rtol=1e-12)
    want = {
        "q0_mean": beta(m0, 3, 2),
        "q0_sigma": half_normal(0.6, 0.8),
        "q0_system": normal(e0, 0, 1),
        "q1_mean": beta(m1, 4, 1.5),
        "q1_sigma": half_normal(0.4, 0.8),
        "q1_system": normal(e1, 0, 1),
        **items_terms(COUNTS, TH, q0, q1),
    }
    assert lp == pytest.approx({"theta_stratum": beta(TH, 0.5, 0.5), **want}, **TOL)


def test_an_unknown_judge_rates_option_is_refused_by_name():
    with pytest.raises(InputError) as e:
        _model("per_judge")
    assert e.value.field == "judge_rates"
