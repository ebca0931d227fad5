"""The items model over time (judgebayes/models/items/dynamic.py): its variables and dims,
and its log density at a fixed point against the docstring's random walks with
mixture-of-normals steps (scipy.stats).
"""

import numpy as np
import pytest
from scipy import stats

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import items_dynamic_model
from tests.models.logp import TOL, coords, dims, evaluate, expit, half_normal, items_terms, normal

PRIORS = AccuracyPriors(
    strata_mu=(0.5, 2.0), cluster_mu=(0.2, 1.2), walk_step=0.4, walk_jump=(0.25, 2.5)
)
COUNTS = dict(
    k=[[30, 12, 9], [20, 25, 14]],
    n=[[50, 40, 30], [30, 60, 20]],
    tp=[[4, 2, 1], [3, 5, 0]],
    m1=[[5, 3, 2], [4, 6, 0]],
    tn=[[4, 6, 2], [2, 3, 1]],
    m0=[[5, 7, 2], [3, 4, 1]],
)
SHARE = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3]])
CELL = ("system", "stratum")


def _mixture(z, w=0.25, c=2.5):
    """The walk's standardised steps: N(0, 1) w.p. 1 - w, N(0, c^2) w.p. w."""
    return float(np.sum(np.log((1 - w) * stats.norm.pdf(z) + w * stats.norm.pdf(z, 0, c))))


def _walk(start, step, z):
    """eta_1 = start, eta_t = eta_{t-1} + step z_t: z's first period is no step."""
    z = np.asarray(z, dtype=float)
    return np.asarray(start, dtype=float)[..., None] + step * np.concatenate(
        [np.zeros_like(z[..., :1]), np.cumsum(z[..., 1:], axis=-1)], axis=-1
    )


def test_the_judge_and_the_rates_walk_over_the_periods():
    model = items_dynamic_model(
        **COUNTS, share=SHARE, systems=("A", "B"), strata=("w1", "w2", "w3"), priors=PRIORS
    )
    assert coords(model) == {"system": ["A", "B"], "stratum": ["w1", "w2", "w3"]}
    st = ("stratum",)
    assert dims(model, "free_RVs") == {
        "rate_start": ("system",),
        "rate_step": (),
        "rate_z": CELL,
        "q1_start": (),
        "q1_step": (),
        "q1_z": st,
        "q0_start": (),
        "q0_step": (),
        "q0_z": st,
    }
    obs = ("k_obs", "m1_obs", "tp_obs", "tn_obs")
    assert dims(model, "observed_RVs") == dict.fromkeys(obs, CELL)
    assert dims(model, "deterministics") == {
        "theta_stratum": CELL,
        "q1": st,
        "q0": st,
        "theta": ("system",),
    }

    rate_start, rate_z = np.array([0.3, -0.5]), np.array([[0.9, -0.4, 2.0], [0.1, 0.6, -3.0]])
    q1_z, q0_z = np.array([-0.2, 0.5, -1.5]), np.array([1.1, 0.3, 0.4])
    point = {"rate_start": rate_start, "rate_step": 0.3, "rate_z": rate_z}
    point |= {"q1_start": 2.0, "q1_step": 0.5, "q1_z": q1_z}
    point |= {"q0_start": 1.2, "q0_step": 0.2, "q0_z": q0_z}
    lp, det = evaluate(model, point)
    th = expit(_walk(rate_start, 0.3, rate_z))
    q1, q0 = expit(_walk(2.0, 0.5, q1_z)), expit(_walk(1.2, 0.2, q0_z))
    np.testing.assert_allclose(det["theta_stratum"], th, rtol=1e-12)
    np.testing.assert_allclose(det["q1"], q1, rtol=1e-12)
    np.testing.assert_allclose(det["theta"], (SHARE * th).sum(1), rtol=1e-12)
    assert lp == pytest.approx(
        {
            "rate_start": normal(rate_start, 0.2, 1.2),  # cluster_mu
            "rate_step": half_normal(0.3, 0.4),
            "rate_z": _mixture(rate_z),
            "q1_start": normal(2.0, 0.5, 2.0),  # strata_mu
            "q1_step": half_normal(0.5, 0.4),
            "q1_z": _mixture(q1_z),
            "q0_start": normal(1.2, 0.5, 2.0),
            "q0_step": half_normal(0.2, 0.4),
            "q0_z": _mixture(q0_z),
            # one judge for every system within a period
            **items_terms(COUNTS, th, q0[None, :], q1[None, :]),
        },
        **TOL,
    )
