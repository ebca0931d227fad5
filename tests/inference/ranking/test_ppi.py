"""Prediction-powered Bradley-Terry (judgebayes/inference/ranking/ppi.py): ppi_py's logistic
estimator on two outcomes, and with ties Davidson's likelihood written here.
"""

import numpy as np
import pytest
from scipy.optimize import minimize

import judgebayes as jb
from judgebayes.inference.ranking.ppi import ppi_bradley_terry


def _sim_binary(seed, n_lab=300, n_unl=3000, items=6):
    rng = np.random.default_rng(seed)
    th = rng.normal(0, 1, items)

    def draw(m):
        a = rng.integers(0, items, m)
        b = (a + rng.integers(1, items, m)) % items
        y = (rng.random(m) < 1 / (1 + np.exp(-(th[a] - th[b])))).astype(float)
        flip = rng.random(m) < np.where(y == 1, 0.1, 0.25)  # a first-favouring judge
        return a, b, y, np.where(flip, 1 - y, y)

    return draw(n_lab), draw(n_unl), items


@pytest.mark.parametrize("lam", [None, 1.0, 0.3])
def test_ppi_bradley_terry_is_ppi_py_logistic_on_two_outcomes(lam):
    from ppi_py import ppi_logistic_ci

    (al, bl, yl, hl), (au, bu, _, hu), items = _sim_binary(3)

    def onehot(v):
        return np.column_stack([v, 1 - v])

    res = ppi_bradley_terry(al, bl, onehot(yl), onehot(hl), au, bu, onehot(hu), items, lam=lam)

    def X(a, b):  # BT as logistic regression without the reference item's column
        return (np.eye(items)[a] - np.eye(items)[b])[:, 1:]

    lo, hi = ppi_logistic_ci(X(al, bl), yl, hl, X(au, bu), hu, alpha=0.05, lam=lam)
    # ppi_py optimises by L-BFGS to ftol 1e-15, we by Newton to 1e-12: agreement to 1e-6
    np.testing.assert_allclose(res.theta[1:], (lo + hi) / 2, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(res.cov)), (hi - lo) / 2 / 1.959963984540054,
                               atol=1e-6)  # fmt: skip
    if lam is not None:
        assert res.lam == lam
    else:
        assert 0 < res.lam < 1


def _davidson_nll(phi, a, b, t, items):
    """Mean cross-entropy of Davidson's model (written from Davidson 1970), theta_0 = 0."""
    th = np.concatenate([[0.0], phi[: items - 1]])
    eta = th[a] - th[b]
    u = np.column_stack([eta / 2, -eta / 2, np.full_like(eta, phi[-1])])
    logp = u - np.log(np.exp(u).sum(1, keepdims=True))
    return -(t * logp).sum(1).mean()


def test_ppi_with_ties_is_the_davidson_estimator():
    sim = jb.simulate.simulate_judged_pairs(5, 2000, labelled=0.3, nu=0.6, seed=4)
    ch = sim.ranking().channel
    eye = np.eye(3)
    lab, unl = ch.human >= 0, ch.human < 0
    pred = np.stack([(ch.verdicts == k).mean(1) for k in range(3)], 1)
    args = (ch.first[lab], ch.second[lab], eye[ch.human[lab]], pred[lab])
    uargs = (ch.first[unl], ch.second[unl], pred[unl])
    # lambda = 0: the human-only maximum-likelihood estimate
    r0 = ppi_bradley_terry(*args, *uargs, 5, lam=0.0)
    ref = minimize(_davidson_nll, np.zeros(5), args=(args[0], args[1], args[2], 5), tol=1e-12)
    np.testing.assert_allclose(r0.theta[1:], ref.x[:4], atol=1e-5)
    assert r0.log_nu == pytest.approx(ref.x[4], abs=1e-5)

    # lambda = 1: the minimiser of the rectified objective written here (gradient ~ 0)
    def objective(phi):
        return (
            _davidson_nll(phi, args[0], args[1], args[2], 5)
            + _davidson_nll(phi, uargs[0], uargs[1], uargs[2], 5)
            - _davidson_nll(phi, args[0], args[1], args[3], 5)
        )

    r1 = ppi_bradley_terry(*args, *uargs, 5, lam=1.0)
    phi = np.concatenate([r1.theta[1:], [r1.log_nu]])
    h = 1e-6
    grad = [(objective(phi + h * e) - objective(phi - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(grad, 0, atol=1e-7)
