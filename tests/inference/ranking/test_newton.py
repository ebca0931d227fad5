"""Bradley-Terry at scale: the O(n) bincount Hessian and the collapsed-counts likelihood
give what the row-by-row sparse computation gives (exact references: the same sums)."""

from dataclasses import replace

import numpy as np
import pytest

from judgebayes.data.ranking import pairwise_from_arrays
from judgebayes.inference.ranking import newton as bt
from judgebayes.inference.ranking.newton import _gradient_hessian


@pytest.fixture(scope="module")
def sim():
    rng = np.random.default_rng(1)
    n, N = 30_000, 40
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    xa, xb = rng.normal(size=n), rng.normal(size=n)
    th = rng.normal(0, 1, N)
    eta = th[a] - th[b] + 0.5 * (xa - xb) + 0.3
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    return a, b, xa, xb, y, N, rng


def test_bincount_hessian_equals_sparse(sim):
    a, b, xa, xb, y, N, rng = sim
    d = pairwise_from_arrays(
        a, b, y, n_items=N, comparison_covariates={"length": (xa, xb)}, ties="drop"
    )
    des = bt.bt_design(d)
    assert des.pairs is not None and des.F.shape == (a.size, 2)  # length, position
    beta = rng.normal(size=des.n_params) * 0.3
    w = rng.integers(1, 5, a.size).astype(float)
    for weights in (None, w):
        fast = _gradient_hessian(replace(des, w=weights), beta)
        slow = _gradient_hessian(replace(des, w=weights, pairs=None, F=None), beta)
        scale = np.abs(slow[1]).max()  # sums of ~1e4 terms: rounding ~1e-12 relative
        np.testing.assert_allclose(fast[0], slow[0], rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(fast[1], slow[1], rtol=0, atol=1e-12 * scale)


def test_collapsed_counts_give_the_posterior_of_every_row(sim):
    a, b, _, _, y, N, _ = sim
    full = bt.fit_map(bt.bt_design(pairwise_from_arrays(a, b, y, n_items=N, ties="half"),
                                   bias=False))  # fmt: skip
    f, s, wins, total = bt.collapse_pairs(a, b, y, N)
    assert total.sum() == a.size and f.size < a.size
    col = bt.fit_map(bt.bt_counts_design(f, s, wins, total, N))
    np.testing.assert_allclose(col.beta, full.beta, rtol=0, atol=1e-10)
    np.testing.assert_allclose(col.hessian, full.hessian, rtol=1e-12, atol=1e-9)
