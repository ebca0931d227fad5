"""A system not on the board from a few items: its ability per draw of the items against
the exact posterior by quadrature, with a concentration on its grid, and the items
planned for it."""

import numpy as np
import pytest
from scipy import integrate, special

from judgebayes.inference.leaderboard import new_system


def _exact(b, k, n, loglik):
    """Mean and sd of the ability's posterior (prior N(0, 2^2)) by quadrature."""

    def post(a):
        return np.exp(loglik(a) - 0.5 * (a / 2.0) ** 2)

    z = integrate.quad(post, -8, 8)[0]
    mean = integrate.quad(lambda a: a * post(a), -8, 8)[0] / z
    sd = np.sqrt(integrate.quad(lambda a: (a - mean) ** 2 * post(a), -8, 8)[0] / z)
    return mean, sd


B = np.array([-1.0, -0.3, 0.2, 0.8, 1.5])
K, N = np.array([3, 2, 2, 1, 0]), np.full(5, 3)


def test_a_new_systems_ability_is_the_gaussian_at_its_posterior_mode():
    """One draw of the items' difficulties repeated: the abilities drawn are the Laplace
    approximation of the exact posterior (normal prior times the binomial likelihood).
    Against quadrature on these 15 outcomes the approximation is off by 0.007 posterior
    sds in the mean and 2.4% in the sd; the bars are 0.05 sds (the mean's Monte-Carlo sd
    at 20,000 draws is 0.007) and 5%."""
    draws = {"difficulty": np.tile(B, (20000, 1))}
    ability, rate = new_system.new_system(K, N, np.arange(5), draws, 2.0, np.random.default_rng(3))

    def loglik(a):
        p = 1 / (1 + np.exp(-(a - B)))
        return np.sum(K * np.log(p) + (N - K) * np.log1p(-p))

    mean, sd = _exact(B, K, N, loglik)
    assert abs(ability.mean() - mean) < 0.05 * sd
    assert ability.std() == pytest.approx(sd, rel=0.05)
    p = 1 / (1 + np.exp(-(ability[:, None] - B[None, :])))
    np.testing.assert_allclose(rate, p.mean(axis=1), atol=1e-12)


def test_with_a_concentration_the_ability_is_the_gaussian_at_its_mode_too():
    # beta-binomial cells (concentration 5): the Laplace draws against quadrature, with the
    # bars of the binomial case's test
    draws = {"difficulty": np.tile(B, (20000, 1)), "concentration": np.full(20000, 5.0)}
    ability, rate = new_system.new_system(K, N, np.arange(5), draws, 2.0, np.random.default_rng(4))

    def loglik(a):
        p = 1 / (1 + np.exp(-(a - B)))
        return np.sum(
            special.betaln(K + 5 * p, N - K + 5 * (1 - p)) - special.betaln(5 * p, 5 * (1 - p))
        )

    mean, sd = _exact(B, K, N, loglik)
    assert abs(ability.mean() - mean) < 0.05 * sd
    assert ability.std() == pytest.approx(sd, rel=0.05)
    assert np.all((rate > 0) & (rate < 1))


def test_planned_items_are_informative_and_spread():
    rng = np.random.default_rng(4)
    b = rng.normal(0, 2, 200)
    ability = np.array([-0.5, 0.0, 0.5])
    chosen = new_system.informative_items(ability, b, None, 25)
    assert len(set(chosen)) == 25
    # every fifth of the difficulties gives some items
    edges = np.quantile(b, [0.2, 0.4, 0.6, 0.8])
    assert len(set(np.searchsorted(edges, b[chosen]))) == 5
    # and within its fifth each item chosen is among the most informative
    p = 1 / (1 + np.exp(-(ability[:, None] - b[None, :])))
    info = (p * (1 - p)).sum(axis=0)
    middle = np.searchsorted(edges, b) == 2
    picked = [c for c in chosen if middle[c]]
    assert info[picked].min() >= np.sort(info[middle])[-len(picked)]
