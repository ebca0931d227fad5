"""MAP + Laplace (judgebayes/inference/laplace.py): the finite-difference Hessian against
PyTensor's symbolic one, and the engine's rows of log density and named variables against
PyMC's point functions, row by row.
"""

import numpy as np

import judgebayes as jb
from judgebayes.inference.laplace import _functions
from judgebayes.inference.nuts import interpreted
from tests.helpers import covariate_study


def test_laplace_hessian_matches_pytensor_exact_hessian():
    # the Laplace engine differences the compiled gradient; the reference is PyTensor's
    # symbolic Hessian of the same model (slow to compile, so only here)
    from pymc.blocking import DictToArrayBijection, RaveledVars

    from judgebayes.inference.laplace import hessian

    study = jb.AccuracyStudy.from_counts(k=[620, 40], n=[1000, 100], tn=70, m0=100, tp=90, m1=100)
    model = study.model_spec().build()
    with interpreted() as kw:  # NumPy per node: the same numbers, nothing compiled
        dlogp = model.compile_dlogp(jacobian=True, **kw)
        d2logp = model.compile_d2logp(jacobian=True, negate_output=False, **kw)
    ip = model.initial_point()
    info = DictToArrayBijection.map(ip).point_map_info
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = DictToArrayBijection.map(ip).data + rng.normal(0, 0.5, 4)
        pt = DictToArrayBijection.rmap(RaveledVars(x, info))
        exact = np.asarray(d2logp(pt))
        fd = hessian(
            lambda u: np.asarray(dlogp(DictToArrayBijection.rmap(RaveledVars(u, info)))), x
        )
        # central differences at step eps^(1/3): error ~ eps^(2/3) * |third derivative|
        np.testing.assert_allclose(fd, exact, rtol=1e-6, atol=1e-6 * np.abs(exact).max())


def test_laplace_rows_are_the_point_log_density_and_variables_row_by_row():
    study = covariate_study()
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
