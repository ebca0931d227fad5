"""A judge's pull towards a covariate taken out with one slope, against least squares with
dummies and its item-clustered sandwich, on boards of ``tests.simulators.verbose_board``."""

import numpy as np
import pytest

from judgebayes.inference.leaderboard.adjusted import covariate_adjusted
from tests.simulators import verbose_board


def test_the_slope_and_means_equal_least_squares_with_dummies():
    frame, _ = verbose_board(np.random.default_rng(1), n_items=60)
    x = frame.pivot(index="system", columns="item", values="score").to_numpy()
    c = frame.pivot(index="system", columns="item", values="length").to_numpy()
    s_codes, i_codes = np.indices(x.shape)
    design = np.column_stack(
        [
            c.ravel(),
            np.eye(x.shape[0])[s_codes.ravel()],
            np.eye(x.shape[1])[i_codes.ravel()][:, 1:],
        ]
    )
    beta = np.linalg.lstsq(design, x.ravel(), rcond=None)[0][0]
    phi, b, se, _ = covariate_adjusted(x, c)
    assert b[0] == pytest.approx(beta, abs=1e-10)
    # the pseudo-scores' item means are the means at length 0
    assert phi.mean(axis=1) == pytest.approx(x.mean(axis=1) - beta * c.mean(axis=1), abs=1e-10)
    # the slope's standard error is the item-clustered sandwich of the demeaned regression
    xt = x - x.mean(0) - x.mean(1)[:, None] + x.mean()
    ct = c - c.mean(0) - c.mean(1)[:, None] + c.mean()
    e = xt - beta * ct
    sandwich = np.sqrt(((ct * e).sum(axis=0) ** 2).sum()) / (ct**2).sum()
    assert se[0] == pytest.approx(sandwich, rel=1e-10)
