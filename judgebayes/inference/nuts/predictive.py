"""Draws beside the posterior: pointwise log likelihood (vectorised over draws),
posterior predictive and prior draws.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import numpy as np
import xarray as xr

from judgebayes.errors import MethodRefused
from judgebayes.inference.nuts.spec import ModelSpec, interpreted
from judgebayes.inference.registry import check_count


def add_log_likelihood(idata, model, var_names: list[str] | None = None):
    """Add the pointwise log-likelihood of ``model``'s observed variables (for LOO).

    An entry whose log-likelihood is the same in every draw (to 1e-9: a beta-binomial of
    zero trials is 0 up to rounding) is no observation (a cell with no unannotated output):
    it adds a constant to every model's ELPD and nothing to their difference, and PSIS
    cannot smooth a constant tail, so such entries are left out (the variable's dims are
    then stacked into one ``<var>_obs`` dim labelled ``a|b``).
    """
    if isinstance(model, ModelSpec):
        model = model.build()
    ll = _pointwise_log_likelihood(idata, model, var_names)
    out = {}
    for name, da in ll.data_vars.items():
        obs = [d for d in da.dims if d not in ("chain", "draw")]
        spread = (da.max(("chain", "draw")) - da.min(("chain", "draw"))).values
        if not obs or (spread > 1e-9).all():
            out[name] = da
            continue
        dim = f"{name}_obs"
        flat = da.stack({dim: obs})
        keep = np.ravel(spread > 1e-9)
        labels = [
            "|".join(map(str, t)) if isinstance(t, tuple) else str(t) for t in flat[dim].values
        ]
        flat = flat.drop_vars([dim, *obs]).isel({dim: keep})
        out[name] = flat.assign_coords({dim: np.asarray(labels)[keep]})

    idata["log_likelihood"] = xr.Dataset(out, attrs=ll.attrs)
    return idata


def vectorisable(outputs: list) -> list:
    """``outputs`` with the elementwise ops that interpreted PyTensor runs one element at a
    time in Python (softplus, log1mexp: no NumPy function) written with NumPy's, to the
    same values, and the
    ops defined by an inner graph (logsumexp) inlined.
    """
    import pytensor.tensor as pt
    from pytensor.compile.builders import OpFromGraph
    from pytensor.graph.replace import clone_replace, graph_replace
    from pytensor.graph.traversal import ancestors
    from pytensor.scalar.math import Log1mexp, Softplus
    from pytensor.tensor.elemwise import Elemwise

    # ops defined by a graph of their own (logsumexp): inlined, or vectorising them over the
    # draws would loop over the draws in Python
    outputs = list(outputs)
    while True:  # each pass inlines one level of nesting
        nodes = {
            v.owner
            for v in ancestors(outputs)
            if v.owner is not None and isinstance(v.owner.op, OpFromGraph)
        }
        if not nodes:
            break
        swap: dict[Any, Any] = {}
        for node in nodes:
            inner = node.op.fgraph.unfreeze()
            given = dict(zip(inner.inputs, node.inputs, strict=True))
            swap |= dict(zip(node.outputs, clone_replace(inner.outputs, given), strict=True))
        outputs = list(graph_replace(outputs, swap, strict=False))

    def numpy_form(op, x):
        if isinstance(op, Softplus):
            return pt.maximum(x, 0) + pt.log1p(pt.exp(-pt.abs(x)))
        return pt.switch(x < -np.log(2), pt.log1p(-pt.exp(x)), pt.log(-pt.expm1(x)))

    swap = {
        v: numpy_form(v.owner.op.scalar_op, v.owner.inputs[0])
        for v in ancestors(outputs)
        if v.owner is not None
        and isinstance(v.owner.op, Elemwise)
        and isinstance(v.owner.op.scalar_op, Softplus | Log1mexp)
    }
    return list(graph_replace(outputs, swap, strict=False)) if swap else list(outputs)


def batched_function(inputs: list, outputs: list):
    """``outputs`` (graphs of ``inputs``) as one interpreted function of the inputs with a
    leading batch dim (draws): the graph vectorised (:func:`vectorisable` first), an output
    that depends on no input broadcast to one copy per row, nothing compiled
    (:func:`interpreted`).  Called with one array per input, shaped (n, *input shape).
    """
    import pytensor
    import pytensor.tensor as pt
    from pytensor.graph.replace import vectorize_graph

    batched = [pt.tensor(dtype=v.dtype, shape=(None, *v.type.shape)) for v in inputs]
    out = vectorize_graph(vectorisable(outputs), replace=dict(zip(inputs, batched, strict=True)))
    n = batched[0].shape[0]
    out = [
        o if o.ndim > g.ndim else pt.broadcast_to(o, (n, *o.shape))  # type: ignore[attr-defined]
        for o, g in zip(out, outputs, strict=True)
    ]
    with interpreted() as kw:
        return pytensor.function(batched, out, on_unused_input="ignore", **kw)


def _pointwise_log_likelihood(idata, model, var_names: list[str] | None) -> xr.Dataset:
    """Each observed variable's elementwise log density at every posterior draw, in one
    call of one graph vectorised over the draws.

    What ``pm.compute_log_likelihood`` returns, without its loop over the draws: that loop
    calls a function compiled per model structure, or interpreted (:func:`interpreted`) once
    per draw; the vectorised graph runs interpreted once, NumPy on whole arrays.
    """
    from pymc.backends.arviz import coords_and_dims_for_inferencedata
    from pymc.model.transform.conditioning import remove_value_transforms

    # a start value (``initval=``) is no part of the density, and the graph rewrite of
    # remove_value_transforms refuses a model that has one: set aside while it runs
    starts = dict(model.rvs_to_initial_values)
    model.rvs_to_initial_values.update(dict.fromkeys(starts))
    try:
        umodel = remove_value_transforms(model)
    finally:
        model.rvs_to_initial_values.update(starts)
    names = list(var_names) if var_names else [v.name for v in umodel.observed_RVs]
    terms = umodel.logp(vars=[umodel[n] for n in names], sum=False)
    post = idata["posterior"].to_dataset()
    free = list(umodel.free_RVs)
    fn = batched_function([umodel.rvs_to_values[rv] for rv in free], terms)
    n_chain, n_draw = post.sizes["chain"], post.sizes["draw"]
    values = fn(
        *(
            post[rv.name]
            .values.reshape(n_chain * n_draw, *post[rv.name].shape[2:])
            .astype(rv.dtype)
            for rv in free
        )
    )
    coords, dims = coords_and_dims_for_inferencedata(model)
    data = {}
    for name, v in zip(names, values, strict=True):
        v = np.asarray(v).reshape(n_chain, n_draw, *np.shape(v)[1:])
        # a multivariate variable's log density has no event dims: its leading dims only
        own = list(dims.get(name) or ())[: v.ndim - 2]
        own += [f"{name}_dim_{i}" for i in range(len(own), v.ndim - 2)]
        data[name] = xr.DataArray(
            v,
            dims=("chain", "draw", *own),
            coords={
                "chain": post["chain"].values,
                "draw": post["draw"].values,
                **{d: coords[d] for d in own if d in coords},
            },
        )
    return xr.Dataset(data)


def check_replicable(model) -> None:
    """A model with an observed variable to replicate, or a refusal naming the option."""
    if not model.observed_RVs:
        raise MethodRefused(
            "this model's likelihood is a pm.Potential (a marginal over latent labels or "
            "patterns), which has no observed variable to replicate: fit without "
            "posterior_predictive=True, or use the family's checks (study.check(fit))",
            field="posterior_predictive",
            value=True,
        )


def check_prior_drawable(model) -> None:
    """A model whose every free variable has a proper prior, or a refusal naming the
    option (a flat coordinate, whose prior is a ``pm.Potential`` on a function of it, has
    no prior to draw from).
    """
    from pymc.distributions.continuous import FlatRV, HalfFlatRV

    flat = [v.name for v in model.free_RVs if isinstance(v.owner.op, (FlatRV, HalfFlatRV))]
    if flat:
        raise MethodRefused(
            f"this model samples {flat[0]!r} on a flat prior (the prior it states is a "
            "potential on a function of it), which has no prior to draw from: fit without "
            "prior_draws",
            field="prior_draws",
            value=flat[0],
        )


def add_posterior_predictive(idata, model, seed: int | None):
    """Add ``posterior_predictive``: one replicate of each observed variable per draw."""
    import pymc as pm

    check_replicable(model)
    log = logging.getLogger("pymc")
    level = log.level
    log.setLevel(logging.WARNING)  # not its "Sampling: [...]" line
    try:
        with warnings.catch_warnings(), model, interpreted() as kw:
            warnings.simplefilter("ignore", UserWarning)
            pp = pm.sample_posterior_predictive(
                idata,
                var_names=[v.name for v in model.observed_RVs],
                random_seed=seed,
                progressbar=False,
                return_inferencedata=True,
                compile_kwargs=kw,
            )
    finally:
        log.setLevel(level)
    idata["posterior_predictive"] = pp["posterior_predictive"].to_dataset()
    return idata


def add_prior(idata, model, draws: int, seed: int | None):
    """Add ``prior`` (the model's named variables) and ``prior_predictive`` groups."""
    import pymc as pm

    draws = check_count(draws, "prior_draws")
    check_prior_drawable(model)
    named = {v.name for v in (*model.free_RVs, *model.deterministics)}
    with warnings.catch_warnings(), model, interpreted() as kw:
        warnings.simplefilter("ignore", UserWarning)
        pr = pm.sample_prior_predictive(
            draws=draws, random_seed=seed, var_names=None, compile_kwargs=kw
        )
    prior = pr["prior"].to_dataset()
    idata["prior"] = prior[[v for v in prior.data_vars if v in named]]
    idata["prior_predictive"] = pr["prior_predictive"].to_dataset()
    return idata
