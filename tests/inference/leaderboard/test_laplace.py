"""The leaderboard's Laplace fit (judgebayes/inference/leaderboard/laplace.py): the
exchangeable board's Gaussian against its one-dimensional closed form, and the CPU budget
that refuses a fit too large for it.
"""

import numpy as np
import pytest
from scipy import optimize, special

from judgebayes.errors import MethodRefused
from judgebayes.inference.leaderboard.field import BoardCells
from judgebayes.inference.leaderboard.laplace import fit_board_laplace
from judgebayes.models.leaderboard import BoardPriors
from tests.simulators import board_cells

PR = BoardPriors()


def test_the_exchangeable_boards_draws_are_each_systems_gaussian():
    # no items, no judge: no spreads, and each ability's Laplace Gaussian is closed form,
    # N(mode, 1 / (n p (1 - p) + 1 / 4)) at the root of k - n p - alpha / 4 = 0
    k, n = np.array([[30.0], [55.0], [2.0]]), np.array([[100.0], [80.0], [40.0]])
    z = np.zeros_like(k)
    c = BoardCells(k, n, z, z, np.zeros((3, 4)), judged=False, items=False)
    out, info = fit_board_laplace(c, PR, draws=20000, points=16, rng=np.random.default_rng(2))
    assert info["points"] == 1 and "difficulty" not in out
    for s in range(3):
        ks, ns = k[s, 0], n[s, 0]
        mode = optimize.brentq(lambda a, ks=ks, ns=ns: ks - ns * special.expit(a) - a / 4, -9, 9)
        p = special.expit(mode)
        sd = 1 / np.sqrt(ns * p * (1 - p) + 1 / 4)
        draws = out["ability"][:, s]
        # 20,000 draws: the mean's Monte-Carlo sd is sd / 141, the sd's sd / 200; 4 of each
        assert abs(draws.mean() - mode) < 4 * sd / np.sqrt(20000)
        assert abs(draws.std() / sd - 1) < 4 / np.sqrt(2 * 20000)


def test_a_fit_past_its_cpu_budget_is_refused_as_soon_as_it_is_forecast():
    import time

    rng = np.random.default_rng(3)
    c = BoardCells(*board_cells(rng, 8, 120, True, 0.2), judged=True, items=True)
    t0 = time.process_time()
    with pytest.raises(MethodRefused, match="budget"):
        fit_board_laplace(c, PR, draws=200, points=16, rng=rng, budget=1e-3)
    # refused after its first solves, not after the fit: well under the fit's own time
    assert time.process_time() - t0 < 5
