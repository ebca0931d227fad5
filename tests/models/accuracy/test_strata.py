"""The pooled-strata model (judgebayes/models/accuracy/strata.py): its variables and dims,
and its log density at a fixed point against the module docstring's (scipy.stats).
"""

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.models.accuracy import AccuracyPriors, stratified_accuracy_model
from tests.models.logp import TOL, beta, binom, coords, dims, evaluate, expit, half_normal, normal

PRIORS = AccuracyPriors(theta=(2.0, 3.0), strata_mu=(0.5, 2.0), strata_sigma=0.7)
K = np.array([[30, 12], [20, 25]])
N = np.array([[50, 40], [30, 60]])
CAL = dict(tp=[8, 5], m1=[10, 6], tn=[7, 0], m0=[10, 0])  # stratum "long" lacks negatives


def test_the_judges_rates_pool_over_strata_on_the_logit_scale():
    model = stratified_accuracy_model(
        K, N, **CAL, systems=("A", "B"), strata=("short", "long"), priors=PRIORS
    )
    assert coords(model) == {"system": ["A", "B"], "stratum": ["short", "long"]}
    cell, st = ("system", "stratum"), ("stratum",)
    assert dims(model, "free_RVs") == {
        "mu_q0": (),
        "sigma_q0": (),
        "z_q0": st,
        "mu_q1": (),
        "sigma_q1": (),
        "z_q1": st,
        "theta_stratum": cell,
    }
    assert dims(model, "observed_RVs") == {"k_obs": cell, "tp_obs": st, "tn_obs": st}
    assert dims(model, "deterministics") == {"q0": st, "q1": st, "theta": ("system",)}

    th = np.array([[0.6, 0.3], [0.5, 0.45]])
    z0, z1 = np.array([0.3, -1.2]), np.array([-0.4, 0.8])
    point = {
        "mu_q0": 0.9, "sigma_q0": 0.5, "z_q0": z0,
        "mu_q1": 1.7, "sigma_q1": 0.3, "z_q1": z1,
        "theta_stratum": th,
    }  # fmt: skip
    lp, det = evaluate(model, point)
    q0, q1 = expit(0.9 + 0.5 * z0), expit(1.7 + 0.3 * z1)
    # theta_s: the strata's rates weighted by the system's test items in each
    w = N / N.sum(1, keepdims=True)
    np.testing.assert_allclose(det["theta"], (w * th).sum(1), rtol=1e-14)
    np.testing.assert_allclose(det["q0"], q0, rtol=1e-14)
    assert lp == pytest.approx(
        {
            "mu_q0": normal(0.9, 0.5, 2.0),
            "sigma_q0": half_normal(0.5, 0.7),
            "z_q0": normal(z0, 0, 1),
            "mu_q1": normal(1.7, 0.5, 2.0),
            "sigma_q1": half_normal(0.3, 0.7),
            "z_q1": normal(z1, 0, 1),
            "theta_stratum": beta(th, 2, 3),
            "k_obs": binom(K, N, th * q1 + (1 - th) * (1 - q0)),
            "tp_obs": binom(CAL["tp"], CAL["m1"], q1),
            "tn_obs": binom(CAL["tn"], CAL["m0"], q0),  # none in "long": log 1
        },
        **TOL,
    )


def test_a_system_without_judged_items_is_refused():
    with pytest.raises(InputError) as e:
        stratified_accuracy_model(
            K, [[50, 40], [0, 0]], **CAL, systems=("A", "B"), strata=("short", "long")
        )
    assert e.value.field == "n"
