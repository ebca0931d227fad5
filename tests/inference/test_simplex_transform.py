"""The models' Dirichlet transform is PyMC's simplex transform: the same value variable,
map, log density and gradient, checked against ``pm.Dirichlet``'s default at random points
of the unconstrained space (the constraint, not just the shapes, is compared).
"""

import numpy as np
import pymc as pm
import pytensor
import pytest

from judgebayes.inference.nuts import interpreted
from judgebayes.models.simplex import dirichlet


@pytest.mark.parametrize("shape", [(2,), (3,), (5,), (4, 3), (2, 3, 2)])
def test_the_transform_is_pymcs_simplex(shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.uniform(0.5, 3.0, shape)
    with pm.Model() as ours:
        dirichlet(pm, "x", a)
    with pm.Model() as pymcs:
        pm.Dirichlet("x", a=a)
    assert (
        [v.name for v in ours.value_vars] == [v.name for v in pymcs.value_vars] == ["x_simplex__"]
    )
    point = pymcs.initial_point()
    # the forward map: the same unconstrained start from the same support point
    np.testing.assert_allclose(ours.initial_point()["x_simplex__"], point["x_simplex__"])
    with interpreted() as kw:  # nothing to compile: the functions run a few times each
        logp = [m.compile_logp(jacobian=True, **kw) for m in (ours, pymcs)]
        dlogp = [m.compile_dlogp(jacobian=True, **kw) for m in (ours, pymcs)]
        back = [
            pytensor.function([m.rvs_to_values[m["x"]]], m.replace_rvs_by_values([m["x"]])[0], **kw)
            for m in (ours, pymcs)
        ]
    for _ in range(5):
        y = {"x_simplex__": rng.normal(0, 2, point["x_simplex__"].shape)}
        # double precision: the two graphs round differently, by a few ulps of the density
        np.testing.assert_allclose(logp[0](y), logp[1](y), rtol=1e-12)
        np.testing.assert_allclose(dlogp[0](y), dlogp[1](y), rtol=1e-10, atol=1e-12)
        x = back[0](y["x_simplex__"])
        np.testing.assert_allclose(x, back[1](y["x_simplex__"]), rtol=1e-12)
        np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-14)
