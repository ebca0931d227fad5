"""The Newton engine of Bradley-Terry (judgebayes/inference/ranking/newton.py): the naive MAP
against choix, the gradient and Hessian against finite differences of a log posterior
written with loops (Davidson's ties too), the Laplace covariance of its draws, a warm start;
and at scale the O(n) bincount Hessian and the collapsed-counts likelihood against the row-
by-row sparse computation (exact references: the same sums).
"""

from dataclasses import replace

import numpy as np
import pytest

from judgebayes.data.ranking import pairwise_from_arrays
from judgebayes.inference.ranking import newton as bt
from judgebayes.inference.ranking.newton import _gradient_hessian, bt_design, fit_map, laplace_draws
from tests.simulators import random_comparisons


def central_differences(f, x, h=1e-4):
    """The gradient and Hessian of ``f`` at ``x`` by central differences of step ``h``:
    the reference the Newton fit's own derivatives are held to.
    """
    p = x.size
    E = np.eye(p) * h
    grad = np.array([(f(x + E[i]) - f(x - E[i])) / (2 * h) for i in range(p)])
    hess = np.array(
        [
            [
                (f(x + E[i] + E[j]) - f(x + E[i] - E[j])
                 - f(x - E[i] + E[j]) + f(x - E[i] - E[j])) / (4 * h * h)
                for j in range(p)
            ]
            for i in range(p)
        ]
    )  # fmt: skip
    return grad, hess


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


# ------------------------------------------------------------------ analytic engine
def test_naive_map_equals_choix():
    choix = pytest.importorskip("choix")
    a, b, y, *_ = random_comparisons(N=15, n=900, seed=3, c=0, kappa=0)
    y = (y > 0.5).astype(float)
    d = pairwise_from_arrays(a, b, y, n_items=15)
    lam = 0.7
    res = fit_map(bt_design(d, bias=False, lam=lam))
    pairs = [
        (int(i), int(j)) if v == 1 else (int(j), int(i)) for i, j, v in zip(a, b, y, strict=True)
    ]
    # choix penalises alpha * ||theta||^2, ours lam/2 * ||theta||^2
    ref = choix.opt_pairwise(15, pairs, alpha=lam / 2, tol=1e-12)
    np.testing.assert_allclose(res.theta, ref, atol=1e-6)


def _objective_loop(beta, a, b, F, y, prec, N):
    # independent, loop-based log-posterior (no sparse algebra)
    total = 0.5 * np.sum(prec * beta**2)
    for r in range(a.size):
        eta = beta[a[r]] - beta[b[r]] + F[r] @ beta[N:]
        total += np.logaddexp(0, eta) - y[r] * eta
    return total


def test_gradient_hessian_and_laplace_covariance():
    a, b, y, x, _ = random_comparisons(N=6, n=150, seed=1, ties=10)
    d = pairwise_from_arrays(a, b, y, n_items=6, item_covariates={"x": x}, ties="half")
    des = bt_design(d, lam=1.0, lam_b=0.1)
    res = fit_map(des)
    F = np.column_stack([d.X, np.ones(d.n)])
    f = lambda bt: _objective_loop(bt, d.first, d.second, F, d.y, des.prec, 6)  # noqa: E731
    grad, hess = central_differences(f, res.beta)
    assert np.max(np.abs(grad)) < 1e-5  # the mode: gradient zero
    np.testing.assert_allclose(res.hessian, hess, atol=2e-3 * np.abs(hess).max())
    cov = res.covariance()
    np.testing.assert_allclose(cov, np.linalg.inv(res.hessian), rtol=1e-9, atol=1e-12)
    S = 40_000
    dr = laplace_draws(res, S, np.random.default_rng(0))
    emp = np.cov(dr.T)
    # sd of a sample covariance entry: sqrt((s_ii s_jj + s_ij^2) / S); allow 5 sd
    tol = 5 * np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / S)
    assert np.all(np.abs(emp - cov) <= tol)
    assert np.all(np.abs(dr.mean(0) - res.beta) <= 5 * np.sqrt(np.diag(cov) / S))


def _davidson_loop(beta, a, b, F, y, prec, N):
    # Davidson (1970) written from the paper: P(a beats b) = pa / (pa + pb + nu sqrt(pa pb))
    total = 0.5 * np.sum(prec * beta**2)
    nu = np.exp(beta[-1])
    for r in range(a.size):
        la = beta[a[r]] + F[r] @ beta[N:-1]  # bias terms favour the first-shown item
        pa, pb = np.exp(la), np.exp(beta[b[r]])
        den = pa + pb + nu * np.sqrt(pa * pb)
        num = pa if y[r] == 1 else pb if y[r] == 0 else nu * np.sqrt(pa * pb)
        total -= np.log(num / den)
    return total


def test_davidson_engine_against_the_paper_formula():
    a, b, y, x, _ = random_comparisons(N=6, n=200, seed=1, ties=40)
    d = pairwise_from_arrays(a, b, y, n_items=6, item_covariates={"x": x})
    assert d.ties == "davidson" and d.n == 200
    des = bt_design(d)
    assert des.davidson and des.bias_names[-1] == "log_nu"
    res = fit_map(des)
    F = np.column_stack([d.X, np.ones(d.n)])
    f = lambda bt: _davidson_loop(bt, d.first, d.second, F, d.y, des.prec, 6)  # noqa: E731
    from judgebayes.inference.ranking.newton import _objective

    z = np.random.default_rng(0).normal(size=res.beta.size)
    assert _objective(des, z) == pytest.approx(f(z), rel=1e-10)
    grad, hess = central_differences(f, res.beta)
    # the mode: Newton stops at decrement / 2 < 1e-10, so |g| <~ sqrt(2e-10 * max eig H)
    assert np.max(np.abs(grad)) < 2e-4
    np.testing.assert_allclose(res.hessian, hess, atol=2e-3 * np.abs(hess).max())


def test_warm_start_converges_to_same_mode():
    a, b, y, x, _ = random_comparisons(seed=4)
    d = pairwise_from_arrays(a, b, y, n_items=12, item_covariates={"x": x})
    des = bt_design(d)
    cold = fit_map(des)
    warm = fit_map(des, cold.beta + 0.3)
    np.testing.assert_allclose(warm.beta, cold.beta, atol=1e-7)
    assert warm.iterations <= cold.iterations + 2
