"""The items model's numpy density (judgebayes/models/items/density.py): its log density
on the unconstrained scale against the items model's written again with scipy.stats and
the logistic's Jacobian, its gradient against finite differences, and what it expands a
draw into.
"""

import numpy as np
import pytest

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import ItemsLogDensity
from tests.models.logp import beta, expit, items_terms

PRIORS = AccuracyPriors(theta=(0.5, 0.5), q0=(3.0, 2.0), q1=(4.0, 1.5))
COUNTS = dict(
    k=[[30, 12], [20, 25]],
    n=[[50, 40], [30, 60]],
    tp=[[4, 2], [3, 5]],
    m1=[[5, 3], [4, 6]],
    tn=[[4, 6], [2, 0]],
    m0=[[5, 7], [3, 0]],  # a cell without labelled negatives
)
SHARE = np.array([[0.6, 0.4], [0.3, 0.7]])


def _density(judge_rates):
    return ItemsLogDensity(
        *COUNTS.values(),
        SHARE,
        systems=("A", "B"),
        strata=("s1", "s2"),
        judge_rates=judge_rates,
        priors=PRIORS,
    )


def _reference(x, shared):
    """The items model's log density at logits ``x``: each Beta prior at u = logistic(x)
    times the Jacobian u (1 - u), and the four binomial terms.
    """
    th = expit(x[:4]).reshape(2, 2)
    nq = 2 if shared else 4
    q0 = expit(x[4 : 4 + nq]).reshape(-1, 2)
    q1 = expit(x[4 + nq :]).reshape(-1, 2)
    jac = np.sum(np.log(expit(x) * (1 - expit(x))))
    prior = beta(th, 0.5, 0.5) + beta(q0, 3, 2) + beta(q1, 4, 1.5)
    return prior + jac + sum(items_terms(COUNTS, th, q0, q1).values())


@pytest.mark.parametrize("judge_rates", ["shared", "per_system"])
def test_the_density_is_the_items_models_on_the_logit_scale(judge_rates):
    d = _density(judge_rates)
    shared = judge_rates == "shared"
    assert d.size == 4 + 2 * (2 if shared else 4)
    assert d.dims == {
        "theta_stratum": ["system", "stratum"],
        "q0": ["stratum"] if shared else ["system", "stratum"],
        "q1": ["stratum"] if shared else ["system", "stratum"],
        "theta": ["system"],
    }
    assert d.coords == {"system": ["A", "B"], "stratum": ["s1", "s2"]}
    # the start: each variable's prior mean, on the logit scale
    pr = PRIORS
    starts = [np.log(a / b) for a, b in (pr.theta, pr.q0, pr.q1)]
    np.testing.assert_allclose(d.x0, np.repeat(starts, [4, d.size // 2 - 2, d.size // 2 - 2]))

    rng = np.random.default_rng(1)
    x = rng.normal(0.5, 1.5, (5, d.size))
    lp = d.logp(x)
    assert np.isfinite(lp).all()
    np.testing.assert_allclose(lp, [_reference(r, shared) for r in x], rtol=1e-12)
    # the analytic gradient against central differences
    h = 1e-6
    for row in x[:2]:
        numeric = [(d.logp(row + h * e) - d.logp(row - h * e)) / (2 * h) for e in np.eye(d.size)]
        np.testing.assert_allclose(d.grad(row), numeric, rtol=1e-6, atol=1e-6)

    out = d.expand(x)
    th = expit(x[:, :4]).reshape(5, 2, 2)
    np.testing.assert_allclose(out["theta_stratum"], th)
    np.testing.assert_allclose(out["theta"], (SHARE * th).sum(-1))
    assert out["q0"].shape == ((5, 2) if shared else (5, 2, 2))
