"""The binary model and its replicates (judgebayes/models/accuracy/binary.py): the variables
and dims the builders give, and the log density at a fixed point against the module
docstring's, written again with scipy.stats.
"""

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.models.accuracy import (
    AccuracyPriors,
    batched_accuracy_model,
    binary_accuracy_model,
)
from tests.models.logp import TOL, beta, binom, coords, dims, evaluate, terms

# priors away from uniform, so that a prior swapped or dropped changes the density
PRIORS = AccuracyPriors(theta=(2.0, 3.0), q0=(3.0, 2.0), q1=(4.0, 1.5), theta_cal=(1.5, 2.5))
DATA = dict(k=[30, 12], n=[50, 40], tp=8, m1=10, tn=7, m0=10)


def _judged(theta, q0, q1, k, n):
    return binom(k, n, np.asarray(theta) * q1 + (1 - np.asarray(theta)) * (1 - q0))


def test_the_restricted_model_is_theta_u0_u1_with_the_prior_as_a_potential():
    model = binary_accuracy_model(**DATA, systems=("A", "B"), priors=PRIORS)
    assert coords(model) == {"system": ["A", "B"]}
    assert dims(model, "free_RVs") == {"theta": ("system",), "u0": (), "u1": ()}
    assert dims(model, "observed_RVs") == {"k_obs": ("system",), "tp_obs": (), "tn_obs": ()}
    assert dims(model, "deterministics") == {"q1": (), "q0": (), "p": ("system",)}
    assert [p.name for p in model.potentials] == ["q_prior"]
    assert {d.name for d in model.data_vars} == {"k", "n", "tp", "m1", "tn", "m0"}

    theta, u0, u1 = np.array([0.6, 0.3]), 0.4, 0.85
    lp, det = evaluate(model, {"theta": theta, "u0": u0, "u1": u1})
    # q1 = u1, q0 = 1 - u0 u1: q0 + q1 > 1 for every u in (0, 1)^2
    q1, q0 = u1, 1 - u0 * u1
    np.testing.assert_allclose([det["q0"], det["q1"]], [q0, q1], rtol=1e-14)
    np.testing.assert_allclose(det["p"], theta * q1 + (1 - theta) * (1 - q0), rtol=1e-14)
    assert lp == pytest.approx(
        {
            "theta": beta(theta, 2, 3),
            "u0": 0.0,  # uniform on (0, 1)
            "u1": 0.0,
            # the map's Jacobian u1 and the Beta priors of q0 and q1
            "q_prior": np.log(u1) + beta(q0, 3, 2) + beta(q1, 4, 1.5),
            "k_obs": _judged(theta, q0, q1, DATA["k"], DATA["n"]),
            "tp_obs": binom(8, 10, q1),
            "tn_obs": binom(7, 10, q0),
        },
        **TOL,
    )


@pytest.mark.parametrize("design", ["stratified", "random", "shifted"])
def test_the_calibration_designs_add_the_labels_class_counts(design):
    systems = ("A",) if design == "random" else ("A", "B")
    data = {**DATA, "k": DATA["k"][: len(systems)], "n": DATA["n"][: len(systems)]}
    model = binary_accuracy_model(
        **data, systems=systems, design=design, priors=PRIORS, better_than_chance=False
    )
    theta, q0, q1 = np.array([0.6, 0.3])[: len(systems)], 0.7, 0.9
    point = {"theta": theta, "q0": q0, "q1": q1}
    want = {
        "theta": beta(theta, 2, 3),
        "q0": beta(q0, 3, 2),
        "q1": beta(q1, 4, 1.5),
        "k_obs": _judged(theta, q0, q1, data["k"], data["n"]),
        "tp_obs": binom(8, 10, q1),
        "tn_obs": binom(7, 10, q0),
    }
    if design == "random":  # the labelled items are a sample of the system's own answers
        want["m1_obs"] = binom(10, 20, theta[0])
    if design == "shifted":  # ... of another distribution, with its own rate
        point["theta_cal"] = 0.45
        want |= {"theta_cal": beta(0.45, 1.5, 2.5), "m1_obs": binom(10, 20, 0.45)}
    assert set(dims(model, "free_RVs")) == set(point)
    assert dims(model, "free_RVs")["theta"] == ("system",)
    assert not model.potentials
    assert terms(model, point) == pytest.approx(want, **TOL)


def test_a_design_the_model_does_not_have_is_refused_by_name():
    with pytest.raises(InputError) as e:
        binary_accuracy_model(**DATA, systems=("A", "B"), design="paired")
    assert e.value.field == "design"
    # a random sample of one system's test distribution says nothing of two systems
    with pytest.raises(InputError, match="one system") as e:
        binary_accuracy_model(**DATA, systems=("A", "B"), design="random")
    assert e.value.field == "design"


def test_the_replicates_share_nothing():
    counts = dict(k=[30, 12], n=[50, 40], tp=[8, 5], m1=[10, 6], tn=[7, 9], m0=[10, 12])
    model = batched_accuracy_model(**counts, replicates=("r1", "r2"), priors=PRIORS)
    assert coords(model) == {"replicate": ["r1", "r2"]}
    rep = ("replicate",)
    assert dims(model, "free_RVs") == {"theta": rep, "u0": rep, "u1": rep}
    assert dims(model, "observed_RVs") == {"k_obs": rep, "tp_obs": rep, "tn_obs": rep}
    assert dims(model, "potentials") == {"q_prior": rep}

    theta, u0, u1 = np.array([0.6, 0.3]), np.array([0.4, 0.2]), np.array([0.85, 0.7])
    q1, q0 = u1, 1 - u0 * u1
    lp = terms(model, {"theta": theta, "u0": u0, "u1": u1})
    c = {k: np.asarray(v) for k, v in counts.items()}
    assert lp == pytest.approx(
        {
            "theta": beta(theta, 2, 3),
            "u0": 0.0,
            "u1": 0.0,
            "q_prior": np.sum(np.log(u1)) + beta(q0, 3, 2) + beta(q1, 4, 1.5),
            "k_obs": _judged(theta, q0, q1, c["k"], c["n"]),
            "tp_obs": binom(c["tp"], c["m1"], q1),
            "tn_obs": binom(c["tn"], c["m0"], q0),
        },
        **TOL,
    )
