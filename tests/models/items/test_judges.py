"""The latent-class model of several judges (judgebayes/models/items/judges.py): its
variables and dims, and its log density at a fixed point against the docstring's
(Dawid-Skene given the true label; with the shared difficulty integrated by the
trapezoid).
"""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import logsumexp

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import multi_judge_items_model
from tests.models.logp import TOL, beta, coords, dims, evaluate, expit, half_normal, normal

PRIORS = AccuracyPriors(theta=(0.5, 0.5), q0=(3.0, 2.0), q1=(4.0, 1.5))
PATTERNS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
U = np.array([[20, 5, 4, 30], [10, 6, 3, 12]])  # unlabelled items per system and pattern
Y = np.array([[0, 1, 1, 5], [1, 0, 0, 3]])  # labelled human-positive
Z = np.array([[4, 1, 0, 1], [3, 1, 1, 0]])  # labelled human-negative
THETA = np.array([0.6, 0.4])


def _model(judge_rates="shared", difficulty=False):
    return multi_judge_items_model(
        U, Y, Z, PATTERNS,
        systems=("A", "B"), judges=("j1", "j2"),
        judge_rates=judge_rates, difficulty=difficulty, priors=PRIORS,
    )  # fmt: skip


def _potentials(ll1, ll0):
    """The docstring's two sums, from each system's patterns' log-likelihoods given h."""
    pos = np.log(THETA)[:, None] + ll1
    neg = np.log1p(-THETA)[:, None] + ll0
    return {
        "unlabelled_logp": float(np.sum(U * np.logaddexp(pos, neg))),
        "labelled_logp": float(np.sum(Y * pos + Z * neg)),
    }


def _pattern_logs(q0, q1):
    """l_1(V), l_0(V) of each pattern, per system: (S, P)."""
    q0, q1 = np.broadcast_to(q0, (2, 2)), np.broadcast_to(q1, (2, 2))
    v = PATTERNS[None, :, :]
    ll1 = np.sum(v * np.log(q1[:, None]) + (1 - v) * np.log1p(-q1[:, None]), -1)
    ll0 = np.sum(v * np.log1p(-q0[:, None]) + (1 - v) * np.log(q0[:, None]), -1)
    return ll1, ll0


@pytest.mark.parametrize("judge_rates", ["shared", "per_system"])
def test_judges_are_independent_given_the_true_label(judge_rates):
    model = _model(judge_rates)
    assert coords(model) == {"system": ["A", "B"], "judge": ["j1", "j2"], "pattern": [0, 1, 2, 3]}
    rate = ("system", "judge") if judge_rates == "per_system" else ("judge",)
    assert dims(model, "free_RVs") == {"theta": ("system",), "q0": rate, "q1": rate}
    assert not model.observed_RVs
    assert [p.name for p in model.potentials] == ["unlabelled_logp", "labelled_logp"]
    if judge_rates == "per_system":
        q0, q1 = np.array([[0.8, 0.7], [0.6, 0.9]]), np.array([[0.9, 0.75], [0.85, 0.8]])
    else:
        q0, q1 = np.array([0.8, 0.7]), np.array([0.9, 0.75])
    lp = evaluate(model, {"theta": THETA, "q0": q0, "q1": q1})[0]
    assert lp == pytest.approx(
        {
            "theta": beta(THETA, 0.5, 0.5),
            "q0": beta(q0, 3, 2),
            "q1": beta(q1, 4, 1.5),
            **_potentials(*_pattern_logs(q0, q1)),
        },
        **TOL,
    )


def test_a_shared_difficulty_is_integrated_out_per_pattern():
    model = _model(difficulty=True)
    assert dims(model, "free_RVs") == {
        "theta": ("system",),
        "gamma0": ("judge",),
        "gamma1": ("judge",),
        "tau": (),
    }
    assert dims(model, "deterministics") == {
        "q1": ("judge",),
        "q0": ("judge",),
        "log_lik_pos": ("system", "pattern"),
        "log_lik_neg": ("system", "pattern"),
    }
    g0, g1, tau = np.array([1.2, 0.4]), np.array([2.0, 1.5]), 0.8
    lp, det = evaluate(model, {"theta": THETA, "gamma0": g0, "gamma1": g1, "tau": tau})
    # P(judge j right | h, x) = logistic(gamma_jh - tau x), x ~ N(0, 1) shared by the judges
    x = np.linspace(-14, 14, 28_001)
    w = stats.norm.pdf(x)
    r1, r0 = expit(g1[:, None] - tau * x), expit(g0[:, None] - tau * x)  # (J, x)
    v = PATTERNS[:, :, None]
    like1 = np.prod(np.where(v == 1, r1, 1 - r1), axis=1)  # (P, x)
    like0 = np.prod(np.where(v == 1, 1 - r0, r0), axis=1)
    ll1 = np.log(integrate.trapezoid(like1 * w, x))
    ll0 = np.log(integrate.trapezoid(like0 * w, x))
    # one row for every system with shared rates (broadcast to the systems in the trace)
    np.testing.assert_allclose(det["log_lik_pos"], ll1[None, :], rtol=1e-9)
    np.testing.assert_allclose(det["log_lik_neg"], ll0[None, :], rtol=1e-9)
    # q0, q1: the judges' rates averaged over the items' difficulty
    np.testing.assert_allclose(det["q1"], integrate.trapezoid(r1 * w, x), rtol=1e-9)
    np.testing.assert_allclose(det["q0"], integrate.trapezoid(r0 * w, x), rtol=1e-9)
    assert lp == pytest.approx(
        {
            "theta": beta(THETA, 0.5, 0.5),
            "gamma0": normal(g0, 1.0, 1.5),
            "gamma1": normal(g1, 1.0, 1.5),
            "tau": half_normal(tau, 1.0),
            **_potentials(np.tile(ll1, (2, 1)), np.tile(ll0, (2, 1))),
        },
        **TOL,
    )
    assert logsumexp(ll1) == pytest.approx(0.0, abs=1e-12)  # the patterns' probabilities
