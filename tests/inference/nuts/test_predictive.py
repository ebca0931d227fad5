"""Log likelihood and predictive draws (judgebayes/inference/nuts/predictive.py): the
vectorisable forms of softplus and log1mexp against numpy at the extremes, inner graphs
inlined, and the pointwise log-likelihood against PyMC's own, draw by draw. References are
PyMC's per-draw evaluations and numpy, none of which goes through the code tested.
"""

import warnings

import numpy as np
import pymc as pm
import pytest
import xarray as xr

import judgebayes as jb
from judgebayes.inference.nuts import interpreted, vectorisable
from judgebayes.inference.nuts.predictive import _pointwise_log_likelihood
from tests.helpers import covariate_study


def _draws_as_posterior(model, draws=40):
    """Prior draws standing in for a posterior (any draws do: the two evaluations are
    compared at the same points)."""
    with warnings.catch_warnings(), model, interpreted() as kw:
        warnings.simplefilter("ignore")
        pr = pm.sample_prior_predictive(draws=draws, random_seed=2, compile_kwargs=kw)
    post = pr["prior"].to_dataset()
    named = [v.name for v in model.free_RVs]
    return xr.DataTree.from_dict({"posterior": post[named]})


def test_softplus_and_log1mexp_forms_match_numpy_at_the_extremes():
    import pytensor
    import pytensor.tensor as pt

    x = pt.vector("x")
    fn = pytensor.function([x], vectorisable([pt.softplus(x), pt.log1mexp(-pt.abs(x))]))
    v = np.array([-800.0, -40.0, -1.0, -1e-12, 0.0, 1e-12, 0.5, 2.0, 40.0, 800.0])
    sp, lm = fn(v)
    np.testing.assert_allclose(sp, np.logaddexp(0.0, v), rtol=1e-14, atol=0)
    a = -np.abs(v)
    with np.errstate(divide="ignore"):
        want = np.log(-np.expm1(a))
    # log(1 - e^a) near 0 for a << 0: NumPy rounds 1 - 4e-18 to 1, the stable form keeps it
    np.testing.assert_allclose(lm[a != 0], want[a != 0], rtol=1e-12, atol=1e-15)
    assert lm[a == 0][0] == -np.inf


def test_ops_with_inner_graphs_are_inlined_to_the_same_values():
    # logsumexp is an op defined by a graph: vectorised over draws it would loop in Python
    import pytensor
    import pytensor.tensor as pt
    from pytensor.compile.builders import OpFromGraph
    from pytensor.graph.traversal import ancestors
    from scipy.special import logsumexp

    x = pt.matrix("x")
    out = vectorisable([pt.logsumexp(x, axis=1)])
    assert not any(
        v.owner is not None and isinstance(v.owner.op, OpFromGraph) for v in ancestors(out)
    )
    v = np.random.default_rng(0).normal(0, 30, (5, 4))
    with interpreted() as kw:
        f = pytensor.function([x], out[0], **kw)
    np.testing.assert_allclose(f(v), logsumexp(v, axis=1), rtol=1e-14)


def _multiclass_study():
    # a multinomial likelihood: its log density drops the class dim
    return jb.AccuracyStudy.from_multiclass_counts(
        [[40, 5, 5], [4, 42, 4], [6, 6, 38]], [[120, 90, 90]], classes=["a", "b", "c"]
    )


@pytest.mark.parametrize("make", [covariate_study, _multiclass_study], ids=["covariate", "K"])
def test_pointwise_log_likelihood_is_pymcs_draw_by_draw(make):
    model = make().build_model()
    idata = _draws_as_posterior(model)
    ours = _pointwise_log_likelihood(idata, model, None)
    # the reference interpreted too: PyMC's own graph, evaluated without compiling it
    with warnings.catch_warnings(), interpreted() as kw:
        warnings.simplefilter("ignore")
        ref = pm.compute_log_likelihood(
            idata, model=model, progressbar=False, extend_inferencedata=False, compile_kwargs=kw
        )
    ref = ref["log_likelihood"].to_dataset() if "log_likelihood" in ref else ref
    assert sorted(ours.data_vars) == sorted(ref.data_vars)
    for name in ref.data_vars:
        assert ours[name].dims == ref[name].dims
        np.testing.assert_allclose(ours[name].values, ref[name].values, rtol=1e-10, atol=1e-10)
