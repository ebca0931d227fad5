"""The leaderboard model's draws in numpy, against closed forms: the cells' rates, the
estimands, the simultaneous rank intervals."""

import numpy as np
import pytest
from scipy import stats

from judgebayes.inference.leaderboard import posterior
from judgebayes.inference.ranking.topk import rank_draws


def test_cell_rates_are_the_beta_posterior():
    rng = np.random.default_rng(0)
    p = np.full((20000, 1, 1), 0.3)
    r = posterior.cell_rates(p, np.full(20000, 5.0), 7, 10, rng)
    # Beta(0.3 * 5 + 7, 0.7 * 5 + 3): mean 8.5 / 15, to 4 Monte-Carlo sds
    mean, sd = 8.5 / 15, stats.beta(8.5, 6.5).std()
    assert abs(r.mean() - mean) < 4 * sd / np.sqrt(20000)
    assert posterior.cell_rates(p, None, 7, 10, rng) is p


def test_without_a_concentration_theta_is_the_items_mean_of_p():
    rng = np.random.default_rng(1)
    draws = {"ability": rng.normal(0, 1, (50, 3)), "difficulty": rng.normal(0, 1, (50, 8))}
    theta, process = posterior.estimands(draws, np.zeros((3, 8)), np.ones((3, 8)), rng, chunk=7)
    p = 1 / (1 + np.exp(-(draws["ability"][:, :, None] - draws["difficulty"][:, None, :])))
    np.testing.assert_allclose(theta, p.mean(axis=2), atol=1e-12)
    # Bayesian-bootstrap weights: each draw's process value lies within its items' range
    assert np.all(process >= p.min(axis=2) - 1e-12) and np.all(process <= p.max(axis=2) + 1e-12)


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_rank_intervals_hold_every_rank_at_once(alpha):
    rng = np.random.default_rng(2)
    x = np.array([0.5, 0.45, 0.3, 0.29, 0.1]) + rng.normal(0, 0.03, (4000, 5))
    lo, hi = posterior.simultaneous_rank_intervals(x, alpha)
    r = rank_draws(x)
    assert np.mean(np.all((r >= lo) & (r <= hi), axis=1)) >= 1 - alpha
    assert np.all(lo <= hi) and lo.min() >= 1 and hi.max() <= 5
    # per-system equal-tailed intervals at the same alpha hold jointly less often
    each_lo = np.floor(np.quantile(r, alpha / 2, axis=0))
    each_hi = np.ceil(np.quantile(r, 1 - alpha / 2, axis=0))
    assert np.all(lo <= each_lo) and np.all(hi >= each_hi)
