"""The leaderboard model's draws in numpy (judgebayes/inference/board_irt.py), against
closed forms and quadrature: the cells' rates, the estimands, the simultaneous rank
intervals, a new system's ability and the items planned for it.
"""

import numpy as np
import pytest
from scipy import integrate, stats

from judgebayes.inference import board_irt


def test_cell_rates_are_the_beta_posterior():
    rng = np.random.default_rng(0)
    p = np.full((20000, 1, 1), 0.3)
    r = board_irt.cell_rates(p, np.full(20000, 5.0), 7, 10, rng)
    # Beta(0.3 * 5 + 7, 0.7 * 5 + 3): mean 8.5 / 15, to 4 Monte-Carlo sds
    mean, sd = 8.5 / 15, stats.beta(8.5, 6.5).std()
    assert abs(r.mean() - mean) < 4 * sd / np.sqrt(20000)
    assert board_irt.cell_rates(p, None, 7, 10, rng) is p


def test_without_a_concentration_theta_is_the_items_mean_of_p():
    rng = np.random.default_rng(1)
    draws = {"ability": rng.normal(0, 1, (50, 3)), "difficulty": rng.normal(0, 1, (50, 8))}
    theta, process = board_irt.estimands(draws, np.zeros((3, 8)), np.ones((3, 8)), rng, chunk=7)
    p = 1 / (1 + np.exp(-(draws["ability"][:, :, None] - draws["difficulty"][:, None, :])))
    np.testing.assert_allclose(theta, p.mean(axis=2), atol=1e-12)
    # Bayesian-bootstrap weights: each draw's process value lies within its items' range
    assert np.all(process >= p.min(axis=2) - 1e-12) and np.all(process <= p.max(axis=2) + 1e-12)


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_rank_intervals_hold_every_rank_at_once(alpha):
    rng = np.random.default_rng(2)
    x = np.array([0.5, 0.45, 0.3, 0.29, 0.1]) + rng.normal(0, 0.03, (4000, 5))
    lo, hi = board_irt.simultaneous_rank_intervals(x, alpha)
    r = board_irt.rank_draws(x)
    assert np.mean(np.all((r >= lo) & (r <= hi), axis=1)) >= 1 - alpha
    assert np.all(lo <= hi) and lo.min() >= 1 and hi.max() <= 5
    # per-system equal-tailed intervals at the same alpha hold jointly less often
    each_lo = np.floor(np.quantile(r, alpha / 2, axis=0))
    each_hi = np.ceil(np.quantile(r, 1 - alpha / 2, axis=0))
    assert np.all(lo <= each_lo) and np.all(hi >= each_hi)


def test_a_new_systems_ability_is_its_posterior():
    """One draw of the items' difficulties: the ability drawn per draw follows its exact
    posterior (normal prior times the binomial likelihood), by quadrature."""
    b = np.array([-1.0, -0.3, 0.2, 0.8, 1.5])
    k, n = np.array([3, 2, 2, 1, 0]), np.full(5, 3)
    items = np.arange(5)
    draws = {"difficulty": np.tile(b, (20000, 1))}
    ability, acc = board_irt.new_system(k, n, items, draws, 2.0, np.random.default_rng(3))

    def post(a):
        p = 1 / (1 + np.exp(-(a - b)))
        return np.exp(np.sum(k * np.log(p) + (n - k) * np.log1p(-p)) - 0.5 * (a / 2.0) ** 2)

    z = integrate.quad(post, -8, 8)[0]
    mean = integrate.quad(lambda a: a * post(a), -8, 8)[0] / z
    sd = np.sqrt(integrate.quad(lambda a: (a - mean) ** 2 * post(a), -8, 8)[0] / z)
    # 20,000 draws from a grid of step 0.05: within 4 Monte-Carlo sds plus the grid's step
    assert abs(ability.mean() - mean) < 4 * sd / np.sqrt(20000) + 0.01
    assert ability.std() == pytest.approx(sd, rel=0.03)
    p = 1 / (1 + np.exp(-(ability[:, None] - b[None, :])))
    np.testing.assert_allclose(acc, p.mean(axis=1), atol=1e-12)


def test_planned_items_are_informative_and_spread():
    rng = np.random.default_rng(4)
    b = rng.normal(0, 2, 200)
    ability = np.array([-0.5, 0.0, 0.5])
    chosen = board_irt.informative_items(ability, b, None, 25)
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
