"""The interpreted, vectorised evaluations that replace compiled per-draw loops: the
pointwise log-likelihood (LOO), the Laplace engine's log density and named variables by
rows of draws, and the NumPy forms of softplus and log1mexp.  References are PyMC's own
per-draw and per-point evaluations and NumPy, none of which goes through the code tested.
"""

import warnings

import numpy as np
import pymc as pm
import pytest
import xarray as xr

import judgebayes as jb
from judgebayes.inference.laplace import _functions
from judgebayes.inference.nuts import interpreted, vectorisable
from judgebayes.inference.nuts.predictive import _pointwise_log_likelihood


def _covariate_study():
    # the covariate model's likelihood is written with log-sigmoids (softplus), the op that
    # interpreted PyTensor evaluates one element at a time
    sim = jb.simulate.simulate_items(120, n_labelled=40, seed=4)
    f = sim.frame
    f["length"] = np.random.default_rng(4).normal(size=len(f))
    return jb.AccuracyStudy.from_items(f, covariates="length")


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


@pytest.mark.parametrize("make", [_covariate_study, _multiclass_study], ids=["covariate", "K"])
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


def test_laplace_rows_are_the_point_log_density_and_variables_row_by_row():
    study = _covariate_study()
    fns, _ = _functions(study.model_spec())
    model = fns.model
    from pymc.blocking import DictToArrayBijection, RaveledVars

    x0 = DictToArrayBijection.map(model.initial_point()).data
    u = x0 + np.random.default_rng(5).normal(0, 0.5, (7, x0.size))
    with interpreted() as kw:  # the reference: PyMC's point functions, one row at a time
        logp = model.compile_logp(jacobian=True, **kw)
        keep = [v for v in model.unobserved_value_vars if v.name in fns.out_names]
        expand = model.compile_fn(keep, inputs=model.value_vars, point_fn=False, **kw)
    points = [DictToArrayBijection.rmap(RaveledVars(r, fns.info)) for r in u]
    np.testing.assert_allclose(
        fns.logp_rows(u), [float(logp(p)) for p in points], rtol=1e-10, atol=1e-9
    )
    rows = fns.expand(u)
    for i, p in enumerate(points):
        want = expand(*[p[v.name] for v in model.value_vars])
        for got, w in zip(rows, want, strict=True):
            np.testing.assert_allclose(got[i], w, rtol=1e-10, atol=1e-12)


def test_the_compiler_is_restored_after_an_interpreted_block_even_on_error():
    import pytensor

    before = pytensor.config.cxx
    with pytest.raises(RuntimeError), interpreted():
        assert pytensor.config.cxx == ""
        raise RuntimeError("inside")
    assert pytensor.config.cxx == before
