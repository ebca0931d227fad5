"""The judged board's items integrated one by one (judgebayes/inference/leaderboard/items.py):
its log density against a brute-force integral written here from the model's
definition, its gradient and precision against finite differences, its mode.
"""

import numpy as np
import pytest
from scipy import special

from judgebayes.inference.leaderboard import items as bi
from judgebayes.inference.leaderboard.field import BoardCells
from judgebayes.models.leaderboard import BoardPriors
from tests.simulators import board_cells

PR = BoardPriors()
S, N_ITEMS = 4, 12


def _judged(rng) -> BoardCells:
    """The simulators' judged board as the engine's cells."""
    return BoardCells(*board_cells(rng, S, N_ITEMS, True), judged=True, items=True)


def _log_marginal(xs, psi, c: BoardCells) -> float:
    """The systems' block's log density with every difficulty integrated on a grid of
    40,001 points over +-12 sigma, from the model's definition: abilities N(0, 2^2), the
    judge's logits N(mu, tau^2), mu ~ N(1.4, 1), difficulties N(0, sigma^2), binomial
    cells; the spreads' half-normal priors on the log scale (with their Jacobian)."""
    sig, ta, tc = np.exp(psi)
    alpha, a, cc, mua, muc = xs[:S], xs[S : 2 * S], xs[2 * S : 3 * S], xs[3 * S], xs[3 * S + 1]
    se, sp = special.expit(a), special.expit(cc)
    grid = np.linspace(-12 * sig, 12 * sig, 40001)
    total = 0.0
    for i in range(N_ITEMS):
        p = special.expit(alpha[:, None] - grid[None, :])
        q = p * se[:, None] + (1 - p) * (1 - sp[:, None])
        ll = c.h1[:, i, None] * np.log(p) + (c.nl - c.h1)[:, i, None] * np.log1p(-p)
        ll += c.k[:, i, None] * np.log(q) + (c.n - c.k)[:, i, None] * np.log1p(-q)
        dens = np.exp(ll.sum(0) - grid**2 / (2 * sig**2)) / np.sqrt(2 * np.pi * sig**2)
        total += np.log(np.trapezoid(dens, grid))
    tp, fn, tn, fp = c.confusion.T
    total += np.sum(tp * np.log(se) + fn * np.log1p(-se) + tn * np.log(sp) + fp * np.log1p(-sp))
    total -= alpha @ alpha / 8
    total -= S * np.log(ta) + np.sum((a - mua) ** 2) / (2 * ta**2) + (mua - 1.4) ** 2 / 2
    total -= S * np.log(tc) + np.sum((cc - muc) ** 2) / (2 * tc**2) + (muc - 1.4) ** 2 / 2
    scales = (PR.item_sd, PR.judge_spread, PR.judge_spread)
    return total + sum(v - np.exp(2 * v) / (2 * s**2) for v, s in zip(psi, scales, strict=True))


@pytest.fixture(scope="module")
def board():
    rng = np.random.default_rng(3)
    c = _judged(rng)
    xs = np.r_[rng.normal(0, 0.5, S), 1.5 + rng.normal(0, 0.3, 2 * S), 1.4, 1.6]
    return c, xs


def test_the_integrated_density_is_the_items_integral(board):
    c, xs = board
    rng = np.random.default_rng(4)
    moved = xs + rng.normal(0, 0.3, xs.size)
    points = [(xs, np.log([1.2, 0.4, 0.3])), (moved, np.log([0.8, 0.6, 0.2]))]
    got = [bi._value(x, np.zeros(N_ITEMS), psi, c, PR)[0] for x, psi in points]
    ref = [_log_marginal(x, psi, c) for x, psi in points]
    # the 9-node adaptive quadrature of a near-Gaussian integrand is exact to about 1e-7
    # per item, the trapezoid on 40,001 points to far less (they agree to 2e-6 here)
    np.testing.assert_allclose(got, ref, atol=1e-4)
    assert abs(ref[0] - ref[1]) > 1  # the two points differ


def test_its_gradient_and_precision_are_its_derivatives(board):
    c, xs = board
    psi = np.log([1.2, 0.4, 0.3])
    _, g, P, b, _, _ = bi._integrate(xs, np.zeros(N_ITEMS), psi, c, PR)
    h = 1e-4
    eye = np.eye(xs.size)
    num_g = [(bi._value(xs + h * e, b, psi, c, PR)[0] - bi._value(xs - h * e, b, psi, c, PR)[0])
             / (2 * h) for e in eye]  # fmt: skip
    num_P = [-(bi._integrate(xs + h * e, b, psi, c, PR)[1]
               - bi._integrate(xs - h * e, b, psi, c, PR)[1]) / (2 * h) for e in eye]  # fmt: skip
    # Fisher's and Louis's identities differentiate the integral; the quadrature's nodes
    # move with xs, a difference of the order of its error (1e-6): 1e-4 of the largest
    scale_g, scale_P = np.abs(g).max(), np.abs(P).max()
    np.testing.assert_allclose(num_g, g, atol=1e-4 * scale_g)
    np.testing.assert_allclose(num_P, P, atol=1e-4 * scale_P)


def test_newton_finds_the_integrated_densitys_mode(board):
    c, xs = board
    psi = np.log([1.2, 0.4, 0.3])
    (mode, b), F, fac = bi.nested_mode(psi, (xs, np.zeros(N_ITEMS)), c, PR)
    _, g, P, _, _, _ = bi._integrate(mode, b, psi, c, PR)
    # the Newton decrement stop: g' P^-1 g / 2 below DECREMENT
    assert g @ np.linalg.solve(P, g) / 2 < bi.DECREMENT
    np.testing.assert_allclose(fac.chol @ fac.chol.T, P, rtol=1e-8, atol=1e-8)
    rng = np.random.default_rng(5)
    for _ in range(5):  # no nearby point is higher
        assert bi._value(mode + rng.normal(0, 0.05, mode.size), b, psi, c, PR)[0] < F
