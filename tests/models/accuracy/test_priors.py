"""The accuracy models' priors (judgebayes/models/accuracy/priors.py): a bad setting is an
InputError naming its field, and a builder's density moves with the setting it reads.
"""

import math

import numpy as np
import pytest

from judgebayes.models.accuracy import AccuracyPriors, binary_accuracy_model
from tests.models.logp import TOL, beta, refused_setting, terms

NAN = math.nan

BAD = [
    ("theta", (0.0, 1.0)),
    ("q0", (1.0, -2.0)),
    ("q1", (NAN, 1.0)),
    ("theta_cal", (1.0, 0.0)),
    ("rater", (-1.0, 1.0)),
    ("strata_mu", (1.0, 0.0)),
    ("strata_mu", (math.inf, 1.5)),
    ("cluster_mu", (0.0, NAN)),
    ("strata_sigma", 0.0),
    ("strata_sigma", NAN),
    ("prevalence", -1.0),
    ("cluster_sigma", NAN),
    ("coef_sd", 0.0),
    ("judge_sigma", -0.5),
    ("walk_step", 0.0),
    ("walk_jump", (1.5, 3.0)),
    ("walk_jump", (0.2, 0.0)),
]


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v}" for f, v in BAD])
def test_a_bad_setting_is_an_input_error_naming_its_field(field, value):
    refused_setting(AccuracyPriors, "priors", field, value)


def test_the_defaults_are_the_documented_ones():
    pr = AccuracyPriors()
    assert (pr.theta, pr.q0, pr.q1, pr.theta_cal) == ((1.0, 1.0),) * 4
    assert (pr.strata_mu, pr.strata_sigma, pr.prevalence) == ((1.0, 1.5), 1.0, 1.0)
    assert (pr.cluster_mu, pr.cluster_sigma, pr.rater) == ((0.0, 1.5), 1.0, (2.0, 1.0))
    assert (pr.walk_step, pr.walk_jump, pr.coef_sd, pr.judge_sigma) == (0.5, (0.2, 3.0), 1.0, 1.0)


def test_a_builder_reads_each_judge_rate_prior():
    """Change q1's prior: the q1 term moves by the two Beta densities' difference, and
    nothing else does (the unrestricted judge rates are Beta variables).
    """
    data = dict(k=[30], n=[50], tp=8, m1=10, tn=7, m0=10, systems=("A",))
    point = {"theta": np.array([0.6]), "q0": 0.7, "q1": 0.9}
    base, moved = (
        terms(binary_accuracy_model(**data, priors=pr, better_than_chance=False), point)
        for pr in (AccuracyPriors(), AccuracyPriors(q1=(4.0, 1.5)))
    )
    assert base["q1"] == pytest.approx(beta(0.9, 1, 1), **TOL)
    assert moved["q1"] == pytest.approx(beta(0.9, 4, 1.5), **TOL)
    assert {k: v for k, v in moved.items() if k != "q1"} == pytest.approx(
        {k: v for k, v in base.items() if k != "q1"}, **TOL
    )
