"""The clustered items model (judgebayes/models/items/clustered.py): its variables and
dims, and its log density at a fixed point against the docstring's (scipy.stats); the
process rate against the logit-normal mean by the trapezoid.
"""

import numpy as np
import pytest
from scipy import integrate, stats

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import clustered_items_model
from tests.models.logp import (
    TOL,
    beta,
    coords,
    dims,
    evaluate,
    expit,
    half_normal,
    items_terms,
    normal,
)

PRIORS = AccuracyPriors(cluster_mu=(0.5, 1.2), cluster_sigma=0.7, q0=(3.0, 2.0), q1=(4.0, 1.5))
COUNTS = dict(k=[3, 5, 8], n=[8, 9, 10], tp=[1, 2, 1], m1=[2, 2, 1], tn=[1, 0, 1], m0=[1, 1, 1])
SYSTEM_OF = np.array([0, 0, 1])  # clusters c0 and c1 are system A's, c2 system B's
MU, SIGMA = np.array([0.4, -0.8]), np.array([0.9, 1.3])
Z = np.array([0.5, -1.1, 0.3])


def _model(judge_rates):
    return clustered_items_model(
        **COUNTS,
        cluster_system=SYSTEM_OF,
        systems=("A", "B"),
        clusters=("c0", "c1", "c2"),
        judge_rates=judge_rates,
        priors=PRIORS,
    )


def _logit_normal_mean(mu, sigma):
    z = np.linspace(-14, 14, 280_001)
    return integrate.trapezoid(expit(mu + sigma * z) * stats.norm.pdf(z), z)


@pytest.mark.parametrize("judge_rates", ["shared", "per_system"])
def test_the_clusters_rates_are_logit_normal_around_their_systems(judge_rates):
    model = _model(judge_rates)
    assert coords(model) == {"system": ["A", "B"], "cluster": ["c0", "c1", "c2"]}
    rate_dims = ("system",) if judge_rates == "per_system" else ()
    assert dims(model, "free_RVs") == {
        "mu": ("system",),
        "sigma": ("system",),
        "z": ("cluster",),
        "q0": rate_dims,
        "q1": rate_dims,
    }
    obs = ("k_obs", "m1_obs", "tp_obs", "tn_obs")
    assert dims(model, "observed_RVs") == dict.fromkeys(obs, ("cluster",))
    assert dims(model, "deterministics") == {"theta_cluster": ("cluster",), "theta": ("system",)}

    if judge_rates == "per_system":
        q0, q1 = np.array([0.8, 0.6]), np.array([0.9, 0.7])
        q0g, q1g = q0[SYSTEM_OF], q1[SYSTEM_OF]
    else:
        q0 = q0g = 0.8
        q1 = q1g = 0.9
    lp, det = evaluate(model, {"mu": MU, "sigma": SIGMA, "z": Z, "q0": q0, "q1": q1})
    th = expit(MU[SYSTEM_OF] + SIGMA[SYSTEM_OF] * Z)
    np.testing.assert_allclose(det["theta_cluster"], th, rtol=1e-14)
    # the process rate: the mean of the clusters' logit-normal population
    np.testing.assert_allclose(
        det["theta"], [_logit_normal_mean(m, s) for m, s in zip(MU, SIGMA, strict=True)], atol=1e-8
    )
    assert lp == pytest.approx(
        {
            "mu": normal(MU, 0.5, 1.2),
            "sigma": half_normal(SIGMA, 0.7),
            "z": normal(Z, 0, 1),
            "q0": beta(q0, 3, 2),
            "q1": beta(q1, 4, 1.5),
            **items_terms(COUNTS, th, q0g, q1g),
        },
        **TOL,
    )
