"""The leaderboard table (judgebayes/inference/leaderboard/table.py): posterior ranks that
tie within Monte Carlo error, and the posterior table's columns against numpy on the draws.
"""

import numpy as np

from judgebayes.inference.leaderboard.table import posterior_ranks, posterior_table


def _draws():
    rng = np.random.default_rng(0)
    # a clear leader, then two systems with identical draws, then a clear last
    same = rng.normal(0.5, 0.05, 4000)
    return np.column_stack([rng.normal(0.8, 0.05, 4000), same, same, rng.normal(0.2, 0.05, 4000)])


def test_systems_within_monte_carlo_error_share_a_rank():
    assert posterior_ranks(_draws()).tolist() == [1, 2, 2, 4]


def test_the_posterior_table_against_numpy():
    x = _draws()
    t = posterior_table(["a", "b", "c", "d"], x, alpha=0.1, top_k=1)
    np.testing.assert_allclose(t["estimate"], x.mean(0))
    np.testing.assert_allclose(t["lower"], np.quantile(x, 0.05, axis=0))
    np.testing.assert_allclose(t["upper"], np.quantile(x, 0.95, axis=0))
    np.testing.assert_allclose(t["difference"], x.mean(0) - x.mean(0)[0])  # the leader
    np.testing.assert_allclose(t["p_below"][1:], (x[:, 1:] < x[:, [0]]).mean(0))
    assert np.isnan(t["p_below"][0]) and t.attrs["reference"] == "a"
    assert t["p_top_k"].sum() == 1.0 and "joint posterior" in t.header
