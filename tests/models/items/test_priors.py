"""The items design's priors (judgebayes/models/items/priors.py): Jeffreys's rate, the
judge_rates options, the stable logit, and the items model reading them.
"""

import numpy as np
import pytensor.tensor as pt
import pytest
from scipy import special

from judgebayes.errors import InputError
from judgebayes.inference.nuts import interpreted
from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import (
    ITEMS_THETA_PRIOR,
    JUDGE_RATES,
    items_accuracy_model,
    items_priors,
)
from judgebayes.models.items.priors import check_judge_rates, logit
from tests.models.logp import TOL, beta, terms


def test_the_items_design_takes_jeffreys_prior_on_the_rate():
    assert ITEMS_THETA_PRIOR == (0.5, 0.5)
    assert items_priors() == AccuracyPriors(theta=(0.5, 0.5))


@pytest.mark.parametrize("option", JUDGE_RATES)
def test_the_judge_rates_options(option):
    check_judge_rates(option)


@pytest.mark.parametrize("bad", ["auto", "Shared", "", None])
def test_any_other_judge_rates_is_an_input_error_naming_it(bad):
    with pytest.raises(InputError) as e:
        check_judge_rates(bad)
    assert e.value.field == "judge_rates"


def test_the_logit_is_finite_and_exact_near_0_and_1():
    p = np.array([1e-300, 1e-12, 0.3, 0.5, 1 - 1e-12, 1 - 2**-52])
    with interpreted() as kw:
        got = logit(pt.as_tensor(p)).eval(**kw)
    np.testing.assert_allclose(got, special.logit(p), rtol=1e-12)


def _one_cell(counts, priors):
    return items_accuracy_model(
        **counts, share=[[1.0]], systems=("A",), strata=("all",), priors=priors
    )


def test_the_items_model_reads_the_rates_prior():
    """Jeffreys's prior against the uniform default: the rate's term moves by the two Beta
    densities' difference, and nothing else does.
    """
    counts = dict(k=[[3]], n=[[10]], tp=[[2]], m1=[[3]], tn=[[1]], m0=[[2]])
    point = {"theta_stratum": np.array([[0.2]]), "q0": np.array([0.7]), "q1": np.array([0.8])}
    uniform, jeffreys = (
        terms(_one_cell(counts, pr), point) for pr in (AccuracyPriors(), items_priors())
    )
    assert uniform["theta_stratum"] == pytest.approx(0.0, **TOL)
    assert jeffreys["theta_stratum"] == pytest.approx(beta(0.2, 0.5, 0.5), **TOL)
    rest = [k for k in uniform if k != "theta_stratum"]
    assert [jeffreys[k] for k in rest] == pytest.approx([uniform[k] for k in rest], **TOL)
