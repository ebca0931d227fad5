"""The Bradley-Terry builder (judgebayes/models/ranking/model.py): its variables and dims
under the bias priors, ties, judges, instance effect and identifications, and its log
density at fixed points against the ranking package docstring's (scipy.stats).
"""

import numpy as np
import pytest
from scipy import stats

from judgebayes.errors import InputError
from judgebayes.models.ranking import (
    HierarchicalBias,
    HorseshoeBias,
    NoBias,
    NormalBias,
    RankingPriors,
    bradley_terry_model,
    bt_var_names,
)
from tests.models.logp import TOL, coords, dims, evaluate, half_normal, normal, zero_sum_normal

PRIORS = RankingPriors(
    lam=1.5, lam_b=0.2, tau_scale=0.8, tau0=0.9, slab_scale=1.5, slab_df=5.0, judge_sd=0.4,
    lam_nu=0.5, spread_scale=1.5, instance_scale=0.7,
)  # fmt: skip
FIRST, SECOND = np.array([0, 1, 2, 0, 1, 2]), np.array([1, 2, 0, 2, 0, 1])
Y = np.array([1.0, 0.0, 0.5, 1.0, 1.0, 0.0])  # 0.5: a tie
X = np.array([[0.3], [-1.2], [0.5], [0.9], [-0.4], [0.0]])
JUDGE = np.array([0, 1, 0, 1, 0, 1])
INSTANCE = np.array([0, 0, 1, 1, -1, -1])  # -1: no instance
ITEMS = ("a", "b", "c")
THETA_C = np.array([0.6, -0.1, -0.5])  # centred: sums to zero


def _model(**kw):
    return bradley_terry_model(FIRST, SECOND, Y, X, JUDGE, items=ITEMS, priors=PRIORS, **kw)


def _invgamma(x, a, b):
    return float(np.sum(stats.invgamma.logpdf(x, a, scale=b)))


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def test_horseshoe_biases_of_two_judges_davidson_ties_and_an_instance_effect():
    model = _model(
        covariates=("length",), judges=("j1", "j2"), prior="horseshoe", davidson=True,
        instance=INSTANCE, n_instances=2,
    )  # fmt: skip
    assert coords(model) == {
        "item": list(ITEMS),
        "comparison": list(range(6)),
        "bias": ["length", "position"],
        "judge": ["j1", "j2"],
    }
    bias = ("bias",)
    assert dims(model, "free_RVs") == {
        "theta_mean": (), "theta_centred": ("item",), "instance_sd": (), "instance_z": (),
        "tau_b_hn": (), "tau_b_ig": (), "b_lambda_hn": bias, "b_lambda_ig": bias,
        "slab_c2": (), "b_z": bias, "b_judge_sd": bias, "b_judge_z": ("judge", "bias"),
        "log_nu": (),
    }  # fmt: skip
    assert dims(model, "observed_RVs") == {"y": ("comparison",)}
    assert set(dims(model, "deterministics")) == {
        "theta", "tau_b", "b_lambda", "b", "b_judge", "nu",
    }  # fmt: skip

    t1, t2, l1, l2 = 0.8, 1.3, np.array([0.5, 1.2]), np.array([2.0, 0.7])
    c2, bz, jsd = 2.5, np.array([0.4, -0.9]), np.array([0.3, 0.2])
    jz, u_z, log_nu = np.array([[0.5, -0.1], [-0.7, 0.6]]), np.array([0.8, -0.3]), -0.6
    point = {"theta_mean": 0.2, "theta_centred": THETA_C, "instance_sd": 0.5, "instance_z": u_z}
    point |= {"tau_b_hn": t1, "tau_b_ig": t2, "b_lambda_hn": l1, "b_lambda_ig": l2}
    point |= {"slab_c2": c2, "b_z": bz, "b_judge_sd": jsd, "b_judge_z": jz, "log_nu": log_nu}
    lp, det = evaluate(model, point)

    # the regularised horseshoe, non-centred (half-t scales as half-normal x sqrt(inv-gamma))
    tau, lam = 0.9 * t1 * np.sqrt(t2), l1 * np.sqrt(l2)
    b = bz * tau * np.sqrt(c2 * lam**2 / (c2 + tau**2 * lam**2))
    np.testing.assert_allclose(det["b"], b, rtol=1e-12)
    b_judge = b + jsd * jz  # judge j: the panel's biases plus its deviation
    np.testing.assert_allclose(det["b_judge"], b_judge, rtol=1e-12)
    theta = 0.2 + THETA_C
    sign = np.where(INSTANCE < 0, 0.0, np.where(FIRST < SECOND, 1.0, -1.0))
    features = np.hstack([X, np.ones((6, 1))])
    eta = theta[FIRST] - theta[SECOND] + sign * 0.5 * u_z[np.maximum(INSTANCE, 0)]
    eta = eta + np.sum(features * b_judge[JUDGE], axis=1)
    # Davidson: first wins, second wins, tie with log-odds (eta/2, -eta/2, log nu)
    u = np.stack([eta / 2, -eta / 2, np.full(6, log_nu)], axis=1)
    outcome = np.where(Y == 1, 0, np.where(Y == 0, 1, 2))
    y = np.sum(u[np.arange(6), outcome] - np.logaddexp.reduce(u, axis=1))
    nu, s0 = 5.0, 1.5
    assert lp == pytest.approx(
        {
            "theta_mean": normal(0.2, 0, 1 / np.sqrt(1.5 * 3)),  # the prior's mean, N(0, 1/(lam N))
            "theta_centred": zero_sum_normal(THETA_C, 1 / np.sqrt(1.5)),
            "instance_sd": half_normal(0.5, 0.7),
            "instance_z": normal(u_z, 0, 1),
            "tau_b_hn": half_normal(t1, 1.0),
            "tau_b_ig": _invgamma(t2, 1.5, 1.5),
            "b_lambda_hn": half_normal(l1, 1.0),
            "b_lambda_ig": _invgamma(l2, 0.5, 0.5),
            "slab_c2": _invgamma(c2, nu / 2, nu * s0**2 / 2),
            "b_z": normal(bz, 0, 1),
            "b_judge_sd": half_normal(jsd, 0.4),
            "b_judge_z": normal(jz, 0, 1),
            "log_nu": normal(log_nu, 0, 1 / np.sqrt(0.5)),
            "y": float(y),
        },
        **TOL,
    )


def test_normal_biases_zero_sum_qualities_and_ties_as_half_wins():
    model = _model(covariates=("length",), prior=NormalBias(), theta="zero_sum", half_ties=True)
    assert dims(model, "free_RVs") == {"theta": ("item",), "b": ("bias",)}
    b = np.array([0.7, -0.2])
    lp = evaluate(model, {"theta": THETA_C, "b": b})[0]
    eta = THETA_C[FIRST] - THETA_C[SECOND] + np.hstack([X, np.ones((6, 1))]) @ b
    assert lp == pytest.approx(
        {
            "theta": zero_sum_normal(THETA_C, 1 / np.sqrt(1.5)),
            "b": normal(b, 0, 1 / np.sqrt(0.2)),
            # a tie counts as half a win and half a loss
            "y": float(np.sum(Y * _log_sigmoid(eta) + (1 - Y) * _log_sigmoid(-eta))),
        },
        **TOL,
    )


def test_a_learnt_spread_and_one_learnt_bias_scale():
    y = (Y > 0.5).astype(float)
    model = bradley_terry_model(
        FIRST, SECOND, y, np.zeros((6, 0)), JUDGE, items=ITEMS, prior=HierarchicalBias(),
        learn_spread=True, priors=PRIORS,
    )  # fmt: skip
    assert coords(model)["bias"] == ["position"]  # no covariates: the position term alone
    assert dims(model, "free_RVs") == {
        "theta_sd": (), "theta_mean_z": (), "theta_centred_z": ("item",), "tau_b": (),
        "b_z": ("bias",),
    }  # fmt: skip
    sd, zm, bz = 1.3, 0.4, np.array([-0.6])
    point = {"theta_sd": sd, "theta_mean_z": zm, "theta_centred_z": THETA_C}
    lp, det = evaluate(model, point | {"tau_b": 0.5, "b_z": bz})
    theta = sd * (zm / np.sqrt(3) + THETA_C)
    np.testing.assert_allclose(det["theta"], theta, rtol=1e-12)
    eta = theta[FIRST] - theta[SECOND] + 0.5 * bz[0]
    assert lp == pytest.approx(
        {
            "theta_sd": half_normal(sd, 1.5),
            "theta_mean_z": normal(zm, 0, 1),
            "theta_centred_z": zero_sum_normal(THETA_C, 1.0),
            "tau_b": half_normal(0.5, 0.8),
            "b_z": normal(bz, 0, 1),
            "y": float(np.sum(stats.bernoulli.logpmf(y, 1 / (1 + np.exp(-eta))))),
        },
        **TOL,
    )


def test_the_naive_model_has_no_bias_and_reports_what_it_has():
    model = _model(covariates=("length",), prior="none")
    assert set(dims(model, "free_RVs")) == {"theta_mean", "theta_centred"}
    assert "bias" not in model.coords
    assert bt_var_names(NoBias(), 2) == ("theta",)
    assert bt_var_names(HorseshoeBias(), 1, davidson=True) == ("theta", "b", "nu")
    assert bt_var_names(NormalBias(), 2) == ("theta", "b", "b_judge")
    with pytest.raises(ValueError, match="theta"):
        _model(theta="sum_to_one")
    with pytest.raises(InputError) as e:
        _model(prior="laplace")
    assert e.value.field == "prior"
