"""The covariate items model (judgebayes/models/items/covariate.py): its variables and dims
under each judge_rates option, and its log density at a fixed point against the
docstring's, item by item in numpy; and ``standardise``.
"""

import numpy as np
import pytest
from scipy.special import logsumexp

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import items_covariate_model, standardise
from tests.models.logp import TOL, beta, coords, dims, evaluate, expit, logit, normal

PRIORS = AccuracyPriors(theta=(0.5, 0.5), q0=(3.0, 2.0), q1=(4.0, 1.5), coef_sd=0.7)
SYS = np.array([0, 0, 0, 1, 1, 1])
ST = np.array([0, 1, 1, 0, 0, 1])
Z = np.array([[0.5, -1.0], [1.2, 0.3], [-0.7, 0.9], [0.0, -0.4], [-1.5, 1.1], [0.8, -0.2]])
VERDICT = np.array([1, 0, 1, 1, 0, 0])
HUMAN = np.array([1, 0, np.nan, np.nan, 1, np.nan])  # NaN: not labelled
CELL = ("system", "stratum")
TH0 = np.array([[0.6, 0.3], [0.5, 0.45]])
GAMMA = np.array([[0.4, -0.2], [0.1, 0.3]])
B0, B1 = np.array([0.3, -0.5]), np.array([-0.2, 0.6])


def _model(judge_rates):
    return items_covariate_model(
        SYS, ST, Z, VERDICT, HUMAN,
        systems=("A", "B"), strata=("s1", "s2"), covariates=("length", "depth"),
        judge_rates=judge_rates, priors=PRIORS,
    )  # fmt: skip


def _items_logp(q0_item, q1_item, b0_item, b1_item):
    """The docstring's likelihood, one item at a time."""
    eta = logit(TH0[SYS, ST]) + (Z * GAMMA[SYS]).sum(1)
    e1 = logit(q1_item) + (Z * b1_item).sum(1)
    e0 = logit(q0_item) + (Z * b0_item).sum(1)
    ph1 = expit(eta)
    pv_h1 = np.where(VERDICT == 1, expit(e1), 1 - expit(e1))  # P(v | h = 1)
    pv_h0 = np.where(VERDICT == 0, expit(e0), 1 - expit(e0))  # P(v | h = 0)
    pos, neg = np.log(ph1 * pv_h1), np.log((1 - ph1) * pv_h0)
    lab = ~np.isnan(HUMAN)
    labelled = np.where(HUMAN == 1, pos, neg)
    total = np.where(lab, labelled, logsumexp([pos, neg], axis=0)).sum()
    theta = [ph1[SYS == s].mean() for s in (0, 1)]
    return total, theta


@pytest.mark.parametrize("judge_rates", ["shared", "per_system"])
def test_the_judges_rates_follow_the_covariates(judge_rates):
    model = _model(judge_rates)
    assert coords(model) == {
        "system": ["A", "B"],
        "stratum": ["s1", "s2"],
        "covariate": ["length", "depth"],
    }
    per = judge_rates == "per_system"
    q_dims = CELL if per else ("stratum",)
    c_dims = ("system", "covariate") if per else ("covariate",)
    assert dims(model, "free_RVs") == {
        "theta_stratum": CELL,
        "rate_coef": ("system", "covariate"),
        "q0": q_dims,
        "q1": q_dims,
        "q0_coef": c_dims,
        "q1_coef": c_dims,
    }
    assert not model.observed_RVs and [p.name for p in model.potentials] == ["items"]
    assert dims(model, "deterministics") == {"theta": ("system",)}

    if per:
        q0, q1 = np.array([[0.8, 0.7], [0.6, 0.75]]), np.array([[0.9, 0.85], [0.95, 0.8]])
        b0, b1 = np.stack([B0, -B0]), np.stack([B1, 0.5 * B1])
        args = (q0[SYS, ST], q1[SYS, ST], b0[SYS], b1[SYS])
    else:
        q0, q1, b0, b1 = np.array([0.8, 0.7]), np.array([0.9, 0.85]), B0, B1
        args = (q0[ST], q1[ST], b0, b1)
    point = {"theta_stratum": TH0, "rate_coef": GAMMA, "q0": q0, "q1": q1}
    lp, det = evaluate(model, point | {"q0_coef": b0, "q1_coef": b1})
    items, theta = _items_logp(*args)
    # theta_s: the mean over the system's own items of P(h = 1 | covariates)
    np.testing.assert_allclose(det["theta"], theta, rtol=1e-12)
    assert lp == pytest.approx(
        {
            "theta_stratum": beta(TH0, 0.5, 0.5),
            "rate_coef": normal(GAMMA, 0, 0.7),
            "q0": beta(q0, 3, 2),
            "q1": beta(q1, 4, 1.5),
            "q0_coef": normal(b0, 0, 0.7),
            "q1_coef": normal(b1, 0, 0.7),
            "items": items,
        },
        **TOL,
    )


def test_pooled_judge_rates_have_the_pooled_variables():
    free = dims(_model("pooled"), "free_RVs")
    assert {"q0_mean", "q0_sigma", "q0_system", "q1_mean", "q1_sigma", "q1_system"} <= set(free)
    assert free["q0_system"] == CELL and free["q0_coef"] == ("covariate",)


def test_standardise_centres_and_scales_each_column():
    x = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [8.0, 5.0, 0.0]])
    z, mu, sd = standardise(x)
    np.testing.assert_allclose(mu, x.mean(0))
    np.testing.assert_allclose(sd, [np.std(x[:, 0]), 1.0, np.std(x[:, 2])])  # constant: 1
    np.testing.assert_allclose(z.mean(0), 0.0, atol=1e-15)
    np.testing.assert_allclose(z[:, [0, 2]].std(0), 1.0)
    np.testing.assert_array_equal(z[:, 1], 0.0)
