r"""The Dirichlet variables of every model, with PyMC's simplex transform written to compile
faster.

PyMC samples a Dirichlet vector :math:`x` on :math:`N` outcomes through
:math:`y_i = \log x_i - \frac1N\sum_k \log x_k`, :math:`i < N`.  Back, with
:math:`z = (y, -\sum_i y_i)`,

.. math::
    x = \operatorname{softmax}(z), \qquad
    \log\lvert J\rvert = \log N + \sum_{k=1}^N \log x_k,

the second because :math:`\sum_k \log x_k = -N \log \sum_k e^{z_k}`, which is PyMC's
:math:`\log N + N s - N \operatorname{lse}(y + s, 0)` with :math:`s = \sum_i y_i`.  The map,
the Jacobian and the value variable's name (``<name>_simplex__``) are PyMC's; the graph is
not: :math:`z` is a product with a constant :math:`(N - 1) \times N` matrix instead of a
concatenation, and :math:`\log x` is one log-softmax that the density and the Jacobian
share, so the model compiles faster under nutpie (numba) than with PyMC's graph
(BENCHMARKS).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["dirichlet", "simplex_transform"]


def simplex_transform(n: int):
    """PyMC's simplex transform of vectors of ``n`` outcomes (module docstring)."""
    import pytensor.tensor as pt
    from pymc.logprob.transforms import Transform

    # y -> z = (y, -sum y)
    to_full = np.hstack([np.eye(n - 1), -np.ones((n - 1, 1))])

    def log_x(y):
        z = pt.tensordot(y, to_full, axes=[[-1], [0]])
        return z - pt.logsumexp(z, -1, keepdims=True)

    class Simplex(Transform):
        name = "simplex"
        ndim_supp = 1

        def forward(self, value, *inputs):
            logs = pt.log(value)
            return logs[..., :-1] - pt.mean(logs, -1, keepdims=True)

        def backward(self, value, *inputs):
            return pt.exp(log_x(value))

        def log_jac_det(self, value, *inputs):
            return np.log(float(n)) + pt.sum(log_x(value), -1)

    return Simplex()


def dirichlet(pm, name: str, a: Any, **kwargs):
    """``pm.Dirichlet(name, a, **kwargs)`` with :func:`simplex_transform` (module docstring)."""
    a = np.asarray(a, dtype=float)
    return pm.Dirichlet(name, a=a, default_transform=simplex_transform(a.shape[-1]), **kwargs)
