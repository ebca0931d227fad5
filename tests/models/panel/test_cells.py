"""The panel's cell model (judgebayes/models/panel/cells.py, the rates of
judgebayes/models/panel/priors.py): its variables and dims under each option, and its log
density at a fixed point against the module docstring's (scipy.stats).
"""

import numpy as np
import pytest
from scipy import stats

from judgebayes.models.panel import CENTRED_TPR_MIN, PanelPriors, panel_cell_model
from tests.models.logp import TOL, binom, coords, dims, evaluate, expit, half_normal, logit, normal

PRIORS = PanelPriors(
    mu_g=(1.5, 1.2), sigma_g=0.8, mu_tpr=(1.8, 1.0), mu_tnr=(0.2, 1.3), sigma_tpr=0.9,
    sigma_tnr=1.1, tau_generator=0.4, tau_cell=0.3, self_shift=0.7, log_phi=(3.5, 1.2),
)  # fmt: skip
DATA = dict(
    n_rest=np.array([[40, 38, 40], [30, 30, 28]]),
    k_rest=np.array([[30, 25, 33], [20, 15, 22]]),
    tp=np.array([[5, 6, 4], [3, 2, 4]]),
    pos=np.array([[6, 7, 6], [4, 4, 5]]),
    tn=np.array([[2, 1, 3], [3, 2, 1]]),
    neg=np.array([[4, 3, 4], [5, 4, 3]]),
    n_annotated=np.array([10, 9]),
    n_valid_human=np.array([6, 4]),
    self_mask=np.array([[1, 0, 0], [0, 1, 0]], dtype=bool),
)
GV = ("generator", "validator")
G, V = ("generator",), ("validator",)


def _model(**structure):
    return panel_cell_model(
        **DATA, generators=("g1", "g2"), validators=("v1", "v2", "v3"), priors=PRIORS, **structure
    )


def test_the_cell_model_with_every_option():
    model = _model(rate_shift=True, overdispersion=True, self_shift=True)
    assert coords(model) == {"generator": ["g1", "g2"], "validator": ["v1", "v2", "v3"]}
    assert dims(model, "free_RVs") == {
        "mu_g": (), "sigma_g": (), "g_z": G,
        "mu_tpr": (), "mu_tnr": (), "sigma_tpr": (), "sigma_tnr": (), "tpr_z": V, "tnr_z": V,
        "tau_gen_tpr": (), "tau_gen_tnr": (), "tpr_gen_z": G, "tnr_gen_z": G,
        "tau_tpr": (), "tau_tnr": (), "tpr_dev_z": GV, "tnr_dev_z": GV,
        "self_tpr_shift": (), "self_tnr_shift": (), "f_z": G, "log_phi": (),
    }  # fmt: skip
    assert dims(model, "observed_RVs") == {"human": G, "tp_obs": GV, "tn_obs": GV, "cells": GV}
    assert dims(model, "deterministics") == {
        "g": G, "tpr": V, "tnr": V, "tpr_cell": GV, "tnr_cell": GV, "f": G,
        "precision_judged": G,
    }  # fmt: skip

    rng = np.random.default_rng(3)
    z = {n: rng.normal(0, 1, s) for n, s in [("g_z", 2), ("tpr_z", 3), ("tnr_z", 3),
         ("tpr_gen_z", 2), ("tnr_gen_z", 2), ("tpr_dev_z", (2, 3)), ("tnr_dev_z", (2, 3)),
         ("f_z", 2)]}  # fmt: skip
    scales = dict(sigma_g=0.6, sigma_tpr=0.7, sigma_tnr=0.9, tau_gen_tpr=0.2, tau_gen_tnr=0.3)
    scales |= dict(tau_tpr=0.25, tau_tnr=0.15)
    point = {**z, **scales, "mu_g": 1.4, "mu_tpr": 2.1, "mu_tnr": 0.3}
    point |= {"self_tpr_shift": 0.5, "self_tnr_shift": -0.4, "log_phi": 3.0}
    lp, det = evaluate(model, point)

    # the docstring's rates, with the generator, cell and self shifts
    s = DATA["self_mask"].astype(float)
    g = expit(1.4 + 0.6 * z["g_z"])
    lp_j, ln_j = 2.1 + 0.7 * z["tpr_z"], 0.3 + 0.9 * z["tnr_z"]
    vp = expit(lp_j + 0.2 * z["tpr_gen_z"][:, None] + 0.25 * z["tpr_dev_z"] + 0.5 * s)
    vn = expit(ln_j + 0.3 * z["tnr_gen_z"][:, None] + 0.15 * z["tnr_dev_z"] - 0.4 * s)
    # the realised share among the N_i unannotated outputs (N_i: the largest n_rest)
    n_i = DATA["n_rest"].max(1)
    sd_f = np.sqrt(1 / (n_i * g + 0.5) + 1 / (n_i * (1 - g) + 0.5))
    f = expit(logit(g) + z["f_z"] * sd_f)
    np.testing.assert_allclose(det["g"], g, rtol=1e-12)
    np.testing.assert_allclose(det["tpr"], expit(lp_j), rtol=1e-12)
    np.testing.assert_allclose(det["tnr_cell"], vn, rtol=1e-12)
    np.testing.assert_allclose(det["f"], f, rtol=1e-12)
    np.testing.assert_allclose(
        det["precision_judged"],
        (DATA["n_valid_human"] + n_i * f) / (DATA["n_annotated"] + n_i),
        rtol=1e-12,
    )
    p = f[:, None] * vp + (1 - f[:, None]) * (1 - vn)
    phi = np.exp(3.0)
    want = {n: normal(v, 0, 1) for n, v in z.items()}
    prior_sd = dict(sigma_g=0.8, sigma_tpr=0.9, sigma_tnr=1.1, tau_gen_tpr=0.4, tau_gen_tnr=0.4)
    prior_sd |= dict(tau_tpr=0.3, tau_tnr=0.3)  # PRIORS' sigma_*, tau_generator, tau_cell
    want |= {n: half_normal(v, prior_sd[n]) for n, v in scales.items()}
    want |= {
        "mu_g": normal(1.4, 1.5, 1.2),
        "mu_tpr": normal(2.1, 1.8, 1.0),
        "mu_tnr": normal(0.3, 0.2, 1.3),
        "self_tpr_shift": normal(0.5, 0, 0.7),
        "self_tnr_shift": normal(-0.4, 0, 0.7),
        "log_phi": normal(3.0, 3.5, 1.2),
        "human": binom(DATA["n_valid_human"], DATA["n_annotated"], g),
        "tp_obs": binom(DATA["tp"], DATA["pos"], vp),
        "tn_obs": binom(DATA["tn"], DATA["neg"], vn),
        "cells": float(
            np.sum(stats.betabinom.logpmf(DATA["k_rest"], DATA["n_rest"], p * phi, (1 - p) * phi))
        ),
    }
    assert lp == pytest.approx(want, **TOL)


def test_the_plain_cell_model_is_binomial_with_the_validators_rates_alone():
    model = _model(rate_shift=False)
    assert dims(model, "free_RVs") == {
        "mu_g": (), "sigma_g": (), "g_z": G, "mu_tpr": (), "mu_tnr": (), "sigma_tpr": (),
        "sigma_tnr": (), "tpr_z": V, "tnr_z": V, "f_z": G,
    }  # fmt: skip
    point = {"mu_g": 1.4, "sigma_g": 0.6, "g_z": np.array([0.3, -0.5]), "mu_tpr": 2.1}
    point |= {"mu_tnr": 0.3, "sigma_tpr": 0.7, "sigma_tnr": 0.9, "f_z": np.array([0.2, 1.1])}
    point |= {"tpr_z": np.array([0.1, -0.4, 0.8]), "tnr_z": np.array([-1.0, 0.5, 0.0])}
    lp = evaluate(model, point)[0]
    g = expit(1.4 + 0.6 * point["g_z"])
    vp = expit(2.1 + 0.7 * point["tpr_z"])[None, :]
    vn = expit(0.3 + 0.9 * point["tnr_z"])[None, :]
    n_i = DATA["n_rest"].max(1)
    f = expit(logit(g) + point["f_z"] * np.sqrt(1 / (n_i * g + 0.5) + 1 / (n_i * (1 - g) + 0.5)))
    p = f[:, None] * vp + (1 - f[:, None]) * (1 - vn)
    assert lp["cells"] == pytest.approx(binom(DATA["k_rest"], DATA["n_rest"], p), **TOL)
    assert lp["tp_obs"] == pytest.approx(binom(DATA["tp"], DATA["pos"], vp), **TOL)


def test_one_generator_has_no_spread_and_many_validators_a_centred_tpr():
    one = panel_cell_model(
        **{k: v[:1] for k, v in DATA.items()}, generators=("g1",), validators=("v1", "v2", "v3")
    )
    free = dims(one, "free_RVs")
    assert "sigma_g" not in free and "g_z" not in free and free["mu_g"] == ()
    n = CENTRED_TPR_MIN
    many = panel_cell_model(
        *(np.ones((2, n), int) for _ in range(6)), [10, 10], [5, 5], np.zeros((2, n), bool),
        generators=("g1", "g2"), validators=tuple(f"v{j}" for j in range(n)),
    )  # fmt: skip
    free = dims(many, "free_RVs")
    assert free["tpr_logit"] == V and "tpr_z" not in free and free["tnr_z"] == V
