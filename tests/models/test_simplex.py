"""The models' Dirichlet transform (judgebayes/models/simplex.py) against the module
docstring's map, written in numpy: the forward and backward maps, and the log Jacobian
against the determinant of the map's derivative by central differences.
(tests/inference/test_simplex_transform.py compares it with PyMC's own transform.)
"""

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest

from judgebayes.inference.nuts import interpreted
from judgebayes.models.simplex import dirichlet, simplex_transform


def _back(y):
    """x = softmax(y, -sum y)."""
    z = np.append(y, -y.sum())
    return np.exp(z - np.logaddexp.reduce(z))


@pytest.mark.parametrize("n", [2, 3, 5])
def test_the_map_and_its_jacobian_are_the_docstrings(n):
    rng = np.random.default_rng(n)
    tr = simplex_transform(n)
    x = rng.dirichlet(np.ones(n))
    y = rng.normal(0, 1.5, n - 1)
    with interpreted() as kw:
        fwd = tr.forward(pt.as_tensor(x)).eval(**kw)
        back = tr.backward(pt.as_tensor(y)).eval(**kw)
        ljd = tr.log_jac_det(pt.as_tensor(y)).eval(**kw)
    # forward: y_i = log x_i - mean_k log x_k, i < N
    np.testing.assert_allclose(fwd, (np.log(x) - np.log(x).mean())[:-1], rtol=1e-12)
    np.testing.assert_allclose(back, _back(y), rtol=1e-12)
    np.testing.assert_allclose(_back(fwd), x, rtol=1e-12)  # they invert each other
    # the density on the simplex is on its first N - 1 coordinates: the Jacobian of
    # y -> x_{1..N-1}
    h = 1e-6
    jac = np.column_stack(
        [(_back(y + h * e)[:-1] - _back(y - h * e)[:-1]) / (2 * h) for e in np.eye(n - 1)]
    )
    assert ljd == pytest.approx(np.log(abs(np.linalg.det(jac))), abs=1e-7)
    assert ljd == pytest.approx(np.log(n) + np.log(back).sum(), rel=1e-12)


def test_dirichlet_takes_the_transform_and_pymcs_value_name():
    with pm.Model(coords={"row": ["a", "b"], "col": [0, 1, 2]}) as model:
        x = dirichlet(pm, "x", [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], dims=("row", "col"))
    assert model.rvs_to_transforms[x].name == "simplex"
    assert [v.name for v in model.value_vars] == ["x_simplex__"]
    assert model.named_vars_to_dims["x"] == ("row", "col")
