"""The Bayesian leaderboard (judgebayes/models/leaderboard/model.py): its variables and dims
for no item effect, the one- and two-parameter models, a guessing floor, clusters, centred
blocks, a judge and several trials per cell, its log density at fixed points against the
module docstring's (scipy.stats), and the success probabilities in numpy.
"""

import numpy as np
import pytest
from scipy import stats

from judgebayes.models.leaderboard import BoardPriors, board_model, success_probabilities
from tests.models.logp import (
    TOL,
    beta,
    binom,
    coords,
    dims,
    evaluate,
    expit,
    half_normal,
    normal,
    zero_sum_normal,
)

PRIORS = BoardPriors(
    ability_sd=1.5, item_sd=1.2, cluster_sd=0.8, discrimination_sd=0.4, judge_mu=1.2,
    judge_mu_sd=0.9, judge_spread=0.6, concentration=(2.5, 1.0), floor=(3.0, 5.0),
)  # fmt: skip
SYSTEM = np.array([0, 0, 0, 0, 1, 1, 1])  # cells: every (system, item) but (S2, i4)
ITEM = np.array([0, 1, 2, 3, 0, 1, 2])
K, N = np.array([3, 2, 0, 1, 4, 1, 2]), np.array([4, 4, 4, 4, 4, 4, 4])
LAB = dict(h1=[1, 0, 2], n_l=[1, 2, 2], lab_system=[0, 1, 1], lab_item=[0, 1, 3])
CONFUSION = np.array([[5, 1, 3, 2], [4, 0, 2, 1]])  # (tp, fn, tn, fp) per system
ABILITY = np.array([0.8, -0.4])


def _board(**structure):
    structure = {"item_effects": True, "discrimination": False, "judged": False} | structure
    return board_model(
        K, N, SYSTEM, ITEM, *LAB.values(), CONFUSION, structure.pop("item_cluster", [0] * 4),
        systems=("S1", "S2"), items=("i1", "i2", "i3", "i4"), priors=PRIORS, **structure,
    )  # fmt: skip


def test_two_parameters_and_a_judge_with_each_systems_rates():
    model = _board(discrimination=True, judged=True, clusters=())
    assert coords(model) == {"system": ["S1", "S2"], "item": ["i1", "i2", "i3", "i4"]}
    sy = ("system",)
    assert dims(model, "free_RVs") == {
        "ability": sy, "sigma_item": (), "z_item": ("item",), "sigma_disc": (),
        "z_disc": ("item",), "mu_sensitivity": (), "tau_sensitivity": (),
        "e_sensitivity": sy, "mu_specificity": (), "tau_specificity": (), "e_specificity": sy,
    }  # fmt: skip
    assert set(dims(model, "observed_RVs")) == {
        "y", "human", "judge_on_positives", "judge_on_negatives",
    }  # fmt: skip
    assert dims(model, "deterministics") == {
        "difficulty": ("item",), "discrimination": ("item",), "sensitivity": sy,
        "specificity": sy,
    }  # fmt: skip

    z, zd = np.array([0.9, -0.2, 0.5, -1.2]), np.array([0.3, -0.8, 1.1, 0.0])
    e_se, e_sp = np.array([0.4, -0.6]), np.array([-0.2, 1.0])
    point = {"ability": ABILITY, "sigma_item": 1.1, "z_item": z, "sigma_disc": 0.35}
    point |= {"z_disc": zd, "mu_sensitivity": 1.6, "tau_sensitivity": 0.5, "e_sensitivity": e_se}
    point |= {"mu_specificity": 0.9, "tau_specificity": 0.3, "e_specificity": e_sp}
    lp, det = evaluate(model, point)
    b, a = 1.1 * z, np.exp(0.35 * zd)  # difficulty and discrimination
    np.testing.assert_allclose(det["difficulty"], b, rtol=1e-14)
    np.testing.assert_allclose(det["discrimination"], a, rtol=1e-14)
    p = expit(a[None, :] * (ABILITY[:, None] - b[None, :]))  # (systems, items)
    se, sp = expit(1.6 + 0.5 * e_se), expit(0.9 + 0.3 * e_sp)
    q = p[SYSTEM, ITEM] * se[SYSTEM] + (1 - p[SYSTEM, ITEM]) * (1 - sp[SYSTEM])
    ls, li = np.array(LAB["lab_system"]), np.array(LAB["lab_item"])
    assert (
        lp
        == pytest.approx(
            {
                "ability": normal(ABILITY, 0, 1.5),
                "sigma_item": half_normal(1.1, 1.2),
                "z_item": zero_sum_normal(z, 1.0),  # without centred items the z sum to zero
                "sigma_disc": half_normal(0.35, 0.4),
                "z_disc": normal(zd, 0, 1),
                "mu_sensitivity": normal(1.6, 1.2, 0.9),
                "tau_sensitivity": half_normal(0.5, 0.6),
                "e_sensitivity": normal(e_se, 0, 1),
                "mu_specificity": normal(0.9, 1.2, 0.9),
                "tau_specificity": half_normal(0.3, 0.6),
                "e_specificity": normal(e_sp, 0, 1),
                "y": binom(K, N, q),
                "human": binom(LAB["h1"], LAB["n_l"], p[ls, li]),
                "judge_on_positives": binom(CONFUSION[:, 0], CONFUSION[:, :2].sum(1), se),
                "judge_on_negatives": binom(CONFUSION[:, 2], CONFUSION[:, 2:].sum(1), sp),
            },
            **TOL,
        )
    )


def test_rasch_with_clusters_a_centred_block_and_several_trials_per_cell():
    model = _board(
        clusters=("c0", "c1"), item_cluster=[0, 0, 1, 1], centred=(0, 0, -1, -1),
        overdispersed=True,
    )  # fmt: skip
    assert coords(model)["cluster"] == ["c0", "c1"]
    assert dims(model, "free_RVs") == {
        "ability": ("system",), "sigma_item": (), "sigma_cluster": (),
        "z_cluster": ("cluster",), "deviation_0": (), "z_item": (), "log_phi": (),
    }  # fmt: skip
    assert dims(model, "deterministics") == {"difficulty": ("item",), "concentration": ()}
    u, dev0, z = np.array([0.6, -0.6]), np.array([0.25, -0.25]), np.array([0.7, -1.3])
    point = {"ability": ABILITY, "sigma_item": 0.9, "sigma_cluster": 0.5, "z_cluster": u}
    lp, det = evaluate(model, point | {"deviation_0": dev0, "z_item": z, "log_phi": 1.8})
    # i1, i2: their block's own deviations; i3, i4: scaled standard normals
    b = 0.5 * u[[0, 0, 1, 1]] + np.concatenate([dev0, 0.9 * z])
    np.testing.assert_allclose(det["difficulty"], b, rtol=1e-14)
    p = expit(ABILITY[SYSTEM] - b[ITEM])
    phi = np.exp(1.8)
    assert lp == pytest.approx(
        {
            "ability": normal(ABILITY, 0, 1.5),
            "sigma_item": half_normal(0.9, 1.2),
            "sigma_cluster": half_normal(0.5, 0.8),
            "z_cluster": zero_sum_normal(u, 1.0),
            "deviation_0": zero_sum_normal(dev0, 0.9),
            "z_item": normal(z, 0, 1),
            "log_phi": normal(1.8, 2.5, 1.0),
            # each cell's rate around p: beta-binomial
            "y": float(np.sum(stats.betabinom.logpmf(K, N, p * phi, (1 - p) * phi))),
        },
        **TOL,
    )


def test_no_item_effect_is_a_rate_per_system():
    model = _board(item_effects=False, clusters=())
    assert dims(model, "free_RVs") == {"ability": ("system",)}
    lp = evaluate(model, {"ability": ABILITY})[0]
    assert lp == pytest.approx(
        {"ability": normal(ABILITY, 0, 1.5), "y": binom(K, N, expit(ABILITY[SYSTEM]))}, **TOL
    )
    # success_probabilities: one item column, the same rates
    np.testing.assert_allclose(success_probabilities(ABILITY[None])[0, :, 0], expit(ABILITY))


def test_success_probabilities_in_numpy():
    ability, b = np.array([[0.8, -0.4]]), np.array([[0.5, -1.0, 0.0]])
    a, c = np.array([[1.5, 0.5, 1.0]]), np.array([[0.25, 0.0, 0.1]])
    p = success_probabilities(ability, b, a, c)
    assert p.shape == (1, 2, 3)
    want = c[0] + (1 - c[0]) * expit(a[0] * (ability[0][:, None] - b[0]))
    np.testing.assert_allclose(p[0], want, rtol=1e-14)
    np.testing.assert_allclose(
        success_probabilities(ability, b)[0], expit(ability[0][:, None] - b[0]), rtol=1e-14
    )


def test_a_guessing_floor_under_the_one_parameter_model_judged():
    model = _board(judged=True, clusters=(), guessing=True)
    free = dims(model, "free_RVs")
    assert free["floor"] == () and "z_disc" not in free
    assert dims(model, "deterministics")["guessing"] == ("item",)
    z, e_se, e_sp = np.array([0.9, -0.2, 0.5, -1.2]), np.array([0.4, -0.6]), np.array([-0.2, 1.0])
    point = {"ability": ABILITY, "sigma_item": 1.1, "z_item": z, "floor": 0.3}
    point |= {"mu_sensitivity": 1.6, "tau_sensitivity": 0.5, "e_sensitivity": e_se}
    point |= {"mu_specificity": 0.9, "tau_specificity": 0.3, "e_specificity": e_sp}
    lp, det = evaluate(model, point)
    np.testing.assert_allclose(det["guessing"], np.full(4, 0.3))
    # p = c + (1 - c) logistic(ability - difficulty): a system with no ability guesses
    p = 0.3 + 0.7 * expit(ABILITY[:, None] - 1.1 * z[None, :])
    se, sp = expit(1.6 + 0.5 * e_se), expit(0.9 + 0.3 * e_sp)
    q = p[SYSTEM, ITEM] * se[SYSTEM] + (1 - p[SYSTEM, ITEM]) * (1 - sp[SYSTEM])
    ls, li = np.array(LAB["lab_system"]), np.array(LAB["lab_item"])
    assert lp["floor"] == pytest.approx(beta(0.3, 3.0, 5.0), **TOL)
    assert lp["y"] == pytest.approx(binom(K, N, q), **TOL)
    assert lp["human"] == pytest.approx(binom(LAB["h1"], LAB["n_l"], p[ls, li]), **TOL)
    np.testing.assert_allclose(
        success_probabilities(ABILITY[None], (1.1 * z)[None], None, det["guessing"][None])[0], p
    )
