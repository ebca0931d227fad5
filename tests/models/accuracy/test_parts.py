"""The pieces the accuracy, items and repeats builders share
(judgebayes/models/accuracy/parts.py): the counts as data, the items design's likelihood
terms against scipy.stats, and the Gauss-Hermite rule's stated accuracy.
"""

import numpy as np
import pymc as pm
import pytest
from scipy import integrate, stats

from judgebayes.models.accuracy.parts import COUNTS, GH_NODES, count_data, judged_and_labelled
from tests.models.logp import TOL, beta, binom, dims, expit, terms

COUNTS_OF = dict(k=[3, 40], n=[10, 60], tp=[4, 7], m1=[5, 9], tn=[6, 2], m0=[7, 3])


def _model(with_rate: bool):
    with pm.Model(coords={"cell": ["a", "b"]}) as model:
        d = count_data(2, "cell", **COUNTS_OF)
        th = pm.Beta("th", 2.0, 3.0, dims="cell")
        q0, q1 = pm.Beta("q0", 3.0, 2.0), pm.Beta("q1", 4.0, 1.5)
        p = th * q1 + (1 - th) * (1 - q0)
        judged_and_labelled(d, p, th if with_rate else None, q0, q1, "cell")
    return model, d


@pytest.mark.parametrize("with_rate", [True, False])
def test_the_items_likelihood_is_four_binomials(with_rate):
    model, d = _model(with_rate)
    assert list(d) == list(COUNTS)
    for name, v in COUNTS_OF.items():
        assert d[name].dtype.startswith("int") and model.named_vars_to_dims[name] == ("cell",)
        np.testing.assert_array_equal(d[name].get_value(), v)
    obs = {"k_obs": ("cell",), "tp_obs": ("cell",), "tn_obs": ("cell",)}
    if with_rate:
        obs["m1_obs"] = ("cell",)
    assert dims(model, "observed_RVs") == obs

    th, q0, q1 = np.array([0.3, 0.7]), 0.8, 0.9
    c = {k: np.asarray(v) for k, v in COUNTS_OF.items()}
    want = {
        "th": beta(th, 2, 3),
        "q0": beta(q0, 3, 2),
        "q1": beta(q1, 4, 1.5),
        # the unlabelled items' verdicts, the labelled items' confusion counts
        "k_obs": binom(c["k"], c["n"], th * q1 + (1 - th) * (1 - q0)),
        "tp_obs": binom(c["tp"], c["m1"], q1),
        "tn_obs": binom(c["tn"], c["m0"], q0),
    }
    if with_rate:  # the labelled items' classes: a sample of the rate
        want["m1_obs"] = binom(c["m1"], c["m0"] + c["m1"], th)
    assert terms(model, {"th": th, "q0": q0, "q1": q1}) == pytest.approx(want, **TOL)


@pytest.mark.parametrize(
    ("sigma", "bound"),
    # the logistic's poles at +-i pi limit the rule as sigma grows: 1.1e-9 at 1.5, 1.3e-7
    # at 2, 1.8e-5 at 3 (the largest over mu in [-6, 6])
    [(0.3, 1e-12), (1.0, 1e-12), (1.5, 1e-8), (2.0, 1e-6), (3.0, 1e-4)],
)
def test_the_gauss_hermite_rule_gives_a_logit_normal_mean(sigma, bound):
    x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    z = np.linspace(-14, 14, 280_001)  # the trapezoid on an analytic integrand: exact to 1e-15
    pdf = stats.norm.pdf(z)
    for mu in np.linspace(-6, 6, 13):
        rule = np.sum(w / np.sqrt(2 * np.pi) * expit(mu + sigma * x))
        exact = integrate.trapezoid(expit(mu + sigma * z) * pdf, z)
        assert abs(rule - exact) < bound, mu
