"""The Bradley-Terry models' priors (judgebayes/models/ranking/priors.py): a bad setting is
an InputError naming its field, the bias priors as registered classes, and the builder's
density moving with the setting it reads.
"""

import dataclasses

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.models.ranking import (
    BIAS_PRIORS,
    PRIORS,
    HierarchicalBias,
    HorseshoeBias,
    NoBias,
    NormalBias,
    RankingPriors,
    bias_prior,
    bradley_terry_model,
)
from tests.models.logp import TOL, normal, refused_setting, terms, zero_sum_normal

FIELDS = [f.name for f in dataclasses.fields(RankingPriors)]


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), True, "1"])
def test_a_bad_setting_is_an_input_error_naming_its_field(field, bad):
    refused_setting(RankingPriors, "priors", field, bad)


def test_the_bias_priors_are_registered_classes():
    assert PRIORS == ("none", "normal", "hierarchical", "horseshoe")
    assert [BIAS_PRIORS[n] for n in PRIORS] == [NoBias, NormalBias, HierarchicalBias, HorseshoeBias]
    for name in PRIORS:
        prior = bias_prior(name)
        assert isinstance(prior, BIAS_PRIORS[name]) and str(prior) == name
        assert bias_prior(prior) is prior
    # which the Newton engine fits exactly (a Gaussian prior), which learn a scale
    assert [BIAS_PRIORS[n].newton for n in PRIORS] == [False, True, True, False]
    assert [BIAS_PRIORS[n].learns_scale for n in PRIORS] == [False, False, True, False]
    assert not NoBias.has_bias and NormalBias.has_bias
    # the funnels' small steps travel with the prior
    assert HierarchicalBias.sampler.target_accept == HorseshoeBias.sampler.target_accept == 0.99
    assert NoBias.sampler is None and NormalBias.sampler is None
    with pytest.raises(InputError) as e:
        bias_prior("laplace")
    assert e.value.field == "prior"


def test_the_builder_reads_the_qualities_precision():
    """theta ~ N(0, I / lam): its mean N(0, 1 / (lam N)) and its centred part, both moved
    by lam; the verdicts' term is not.
    """
    point = {"theta_mean": 0.3, "theta_centred": np.array([0.5, -0.2, -0.3])}
    base, moved = (terms(_naive(RankingPriors(lam=lam)), point) for lam in (1.0, 4.0))
    for lp, lam in ((base, 1.0), (moved, 4.0)):
        assert lp["theta_mean"] == pytest.approx(normal(0.3, 0, 1 / np.sqrt(lam * 3)), **TOL)
        assert lp["theta_centred"] == pytest.approx(
            zero_sum_normal(point["theta_centred"], 1 / np.sqrt(lam)), **TOL
        )
    assert moved["y"] == pytest.approx(base["y"], **TOL)


def _naive(priors):
    return bradley_terry_model(
        [0, 1, 2], [1, 2, 0], [1.0, 0.0, 1.0], np.zeros((3, 0)), [0, 0, 0],
        items=("a", "b", "c"), prior="none", priors=priors,
    )  # fmt: skip
