"""The leaderboard Laplace fit's latent field given the spreads
(judgebayes/inference/leaderboard/field.py): its mode and precision against a generic
optimiser and finite differences of a log posterior written from the model's definition.
"""

import numpy as np
import pytest
from scipy import optimize, special

from judgebayes.inference.leaderboard.field import BoardCells, field_mode
from judgebayes.inference.leaderboard.laplace import _Marginal
from judgebayes.models.leaderboard import BoardPriors
from tests.simulators import board_cells

PR = BoardPriors()


def _board(rng, S, n_items, judged, labelled=0.3):
    """The simulators' board (a judge reads it when ``judged``) as the engine's cells."""
    cells = board_cells(rng, S, n_items, judged, labelled)
    return BoardCells(*cells, judged=judged, items=True)


def _neg_log_post(x, c: BoardCells, psi):
    """Minus the log density of the field given the spreads, from the model's definition:
    abilities N(0, 2^2), difficulties N(0, sigma^2), the judge's logits N(mu, tau^2) with
    mu ~ N(1.4, 1); binomial cells."""
    S = c.shape[0]
    sig, ta, tc = np.exp(psi) if c.judged else (np.exp(psi[0]), 1, 1)
    alpha, rest = x[:S], x[S:]
    if c.judged:
        a, cc, mua, muc, b = (
            rest[:S],
            rest[S : 2 * S],
            rest[2 * S],
            rest[2 * S + 1],
            rest[2 * S + 2 :],
        )
    else:
        b = rest
    p = special.expit(alpha[:, None] - b[None, :])
    lp = np.sum(c.h1 * np.log(p) + (c.nl - c.h1) * np.log1p(-p))
    lp -= alpha @ alpha / 8 + b @ b / (2 * sig**2)
    if not c.judged:
        return -(lp + np.sum(c.k * np.log(p) + (c.n - c.k) * np.log1p(-p)))
    se, sp = special.expit(a), special.expit(cc)
    q = p * se[:, None] + (1 - p) * (1 - sp[:, None])
    lp += np.sum(c.k * np.log(q) + (c.n - c.k) * np.log1p(-q))
    tp, fn, tn, fp = c.confusion.T
    lp += np.sum(tp * np.log(se) + fn * np.log1p(-se) + tn * np.log(sp) + fp * np.log1p(-sp))
    lp -= np.sum((a - mua) ** 2) / (2 * ta**2) + np.sum((cc - muc) ** 2) / (2 * tc**2)
    return -(lp - (mua - 1.4) ** 2 / 2 - (muc - 1.4) ** 2 / 2)


@pytest.mark.parametrize("judged", [False, True])
def test_the_fields_mode_and_precision_are_the_log_posteriors(judged):
    c = _board(np.random.default_rng(1), 5, 30, judged)
    psi = np.log([1.2, 0.4, 0.5][: 1 + 2 * judged])
    marg = _Marginal(c, PR)
    (xs, b), _, fac = field_mode(psi, marg.start, c, PR)
    x = np.r_[xs, b]
    ref = optimize.minimize(_neg_log_post, np.zeros(x.size), args=(c, psi), method="BFGS",
                            options={"gtol": 1e-8})  # fmt: skip
    # BFGS stops where the gradient is below 1e-8: its point agrees to about 1e-6
    np.testing.assert_allclose(x, ref.x, atol=1e-5)
    assert _neg_log_post(x, c, psi) <= ref.fun + 1e-9

    def grad(v):
        return optimize.approx_fprime(v, _neg_log_post, 1e-6, c, psi)

    h = 1e-4
    hess = np.array([(grad(x + h * e) - grad(x - h * e)) / (2 * h) for e in np.eye(x.size)])
    # central differences of forward-difference gradients: about 1e-5 relative per entry
    sign, logdet = np.linalg.slogdet((hess + hess.T) / 2)
    assert sign > 0 and logdet == pytest.approx(fac.logdet(), rel=1e-4)
