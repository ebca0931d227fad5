r"""The leaderboard's items integrated out one by one (the inner step of
:mod:`judgebayes.inference.leaderboard.laplace` on every board with item effects).

The Gaussian at the joint mode of the systems' block :math:`x_s` (the abilities and, with
a judge, its logit sensitivities and specificities and their means) and the difficulties
:math:`b` is biased: each difficulty is learnt from a few outcomes or noisy verdicts, and
maximising over hundreds of them moves the judge's rates by several posterior sds and the
extreme systems' rates toward the middle (the incidental-parameter problem).  Here each
item is integrated out instead, by adaptive Gauss-Hermite quadrature (given :math:`x_s`
an item's posterior is one-dimensional):

.. math::
    F(x_s) = \log p(x_s \mid \psi) + \sum_i \log \int \prod_s p(y_{si} \mid x_s, b)\,
        N(b; 0, \sigma_b^2)\, db .

Its gradient is each item's score averaged over the item's posterior (Fisher's
identity), its curvature the average of the item's Hessian plus the variance of its
score (Louis's).  Newton's method finds the mode :math:`\hat x_s` and stops when the
Newton decrement says the log density is within :data:`DECREMENT` of its top; the
Gaussian :math:`N(\hat x_s, (-\nabla^2 F)^{-1})` is the systems' block's posterior given
:math:`\psi`, and :math:`\log p(\psi \mid y) \approx F(\hat x_s) - \frac12
\log\det(-\nabla^2 F)`.  Given a draw of :math:`x_s`, each difficulty is drawn from its
Gaussian conditional, centred at its mode moved linearly with :math:`x_s`.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from judgebayes.errors import MethodRefused
from judgebayes.inference.leaderboard.field import (
    BoardCells,
    Factor,
    cell_terms,
    psi_prior,
    spreads,
    system_terms,
)
from judgebayes.models.leaderboard import BoardPriors

__all__ = ["DECREMENT", "GH_NODES", "nested_mode"]

#: Gauss-Hermite nodes per item
GH_NODES = 9
#: Newton stops when half the squared Newton decrement (the log density it would still
#: gain) is below this
DECREMENT = 1e-5
_X, _W = np.polynomial.hermite.hermgauss(GH_NODES)


def _cells(xs, b, psi, c: BoardCells, derivatives: bool = True):
    S = c.shape[0]
    a, cc = (xs[S : 2 * S], xs[2 * S : 3 * S]) if c.judged else (None, None)
    phi = spreads(psi, c)["concentration"]
    return cell_terms(xs[:S], b, a, cc, c, False, phi, derivatives)


def _item_modes(xs, b, psi, c: BoardCells, steps: int = 50):
    """Each item's conditional mode and curvature given the systems' block (Newton in one
    dimension per item, all items at once; where the observed curvature is not negative,
    the prior's).
    """
    prior = 1 / spreads(psi, c)["sigma_item"] ** 2
    for _ in range(steps):
        _, le, lee, _ = _cells(xs, b, psi, c)
        g1, g2 = -le.sum(0) - b * prior, lee.sum(0) - prior
        step = -g1 / np.where(g2 < 0, g2, -prior)
        b = b + np.clip(step, -2, 2)
        if np.abs(step).max() < 1e-7:
            break
    _, _, lee, _ = _cells(xs, b, psi, c)
    return b, np.maximum(prior - lee.sum(0), prior * 1e-3)


def _nodes(xs, b, psi, c: BoardCells):
    """The items' integrals (summed), their modes, nodes' offsets and normalised weights."""
    n_i = c.shape[1]
    sigma2 = spreads(psi, c)["sigma_item"] ** 2
    b, prec = _item_modes(xs, b, psi, c)
    scale = np.sqrt(2 / prec)
    logw = np.empty((GH_NODES, n_i))
    for k in range(GH_NODES):
        bk = b + scale * _X[k]
        logw[k] = np.log(_W[k]) + _X[k] ** 2 + _cells(xs, bk, psi, c, False)[0].sum(0)
        logw[k] -= bk**2 / (2 * sigma2)
    top = logw.max(0)
    F = float(np.sum(top + np.log(np.exp(logw - top).sum(0)) + np.log(scale)))
    F -= n_i * 0.5 * np.log(2 * np.pi * sigma2)
    W = np.exp(logw - top)
    return F, b, scale, W / W.sum(0)


def _value(xs, b, psi, c: BoardCells, pr: BoardPriors):
    """:math:`F` at ``xs`` and the items' modes there."""
    F, b, _, _ = _nodes(xs, b, psi, c)
    g, P = np.zeros(c.n_sys), np.zeros((c.n_sys, c.n_sys))
    return _prior(xs, psi, c, pr, F, g, P)[0], b


def _integrate(xs, b, psi, c: BoardCells, pr: BoardPriors):
    """:math:`F`, its gradient and precision at ``xs``; the items' modes and the blocks of
    their Gaussian conditionals (the cross precision B and the diagonal D).
    """
    F, b, scale, W = _nodes(xs, b, psi, c)
    m, n_i = c.n_sys, c.shape[1]
    E, C, mean = np.zeros((m, m)), np.zeros((m, m)), np.zeros((m, n_i))
    for k in range(GH_NODES):
        _, le, lee, d = _cells(xs, b + scale * _X[k], psi, c)
        v = _scores(le, d, c.judged)
        mean += W[k] * v
        C += (v * W[k]) @ v.T
        for rows, cols, h in _hessian_blocks(lee, d, c.judged):
            E[rows, cols] += (W[k] * h).sum(1)
    C -= mean @ mean.T
    E = E + np.triu(E, 1).T  # the off-diagonal blocks were written above the diagonal
    F, g, P = _prior(xs, psi, c, pr, F, mean.sum(1), -(E + C))
    _, _, lee, d = _cells(xs, b, psi, c)
    B = _scores(lee, {"a": d.get("ea"), "c": d.get("ec")}, c.judged)
    return F, g, P, b, B, 1 / spreads(psi, c)["sigma_item"] ** 2 - lee.sum(0)


def _scores(le, d, judged: bool) -> np.ndarray:
    """Per-item rows of the systems' block (systems' block, items): the abilities', then
    the judge's two logits' and zeros for their means.
    """
    if not judged:
        return le
    return np.vstack([le, d["a"], d["c"], np.zeros((2, le.shape[1]))])


def _hessian_blocks(lee, d, judged: bool) -> list:
    """Each cell's second derivatives with the rows and columns of the systems' block
    they sit at, on and above the diagonal: (rows, columns, values (systems, items)).
    """
    S = lee.shape[0]
    ia = np.arange(S)
    out = [(ia, ia, lee)]
    if judged:
        for r, col, key in ((0, 1, "ea"), (0, 2, "ec"), (1, 1, "aa"), (2, 2, "cc"), (1, 2, "ac")):
            out.append((r * S + ia, col * S + ia, d[key]))
    return out


def _prior(xs, psi, c: BoardCells, pr: BoardPriors, F, g, P):
    """The systems' block's terms beside the cells
    (:func:`~judgebayes.inference.leaderboard.field.system_terms`) added to :math:`F`, its
    gradient and precision; the spreads' prior to :math:`F`.
    """
    g = g.copy()
    F += system_terms(xs, psi, c, pr, g, P)
    return F + psi_prior(psi, c, pr), g, P


def nested_mode(psi, start, c: BoardCells, pr: BoardPriors, max_iter: int = 60):
    r"""Newton's method on :math:`F` for the systems' block given ``psi``.

    Returns
    -------
    tuple
        The mode (systems' block, the items' modes), :math:`F` there, and the
        :class:`~judgebayes.inference.leaderboard.field.Factor` whose Cholesky factor is that
        of :math:`-\nabla^2 F` and whose item blocks are the items' conditionals.
    """
    xs, b = (v.copy() for v in start)
    F, g, P, b, B, D = _integrate(xs, b, psi, c, pr)
    for _ in range(max_iter):
        step = _damped_step(P, g)
        if g @ step / 2 < DECREMENT:
            break
        t = 1.0
        while t >= 1e-4:
            F_t, b_t = _value(xs + t * step, b, psi, c, pr)
            if F_t >= F - DECREMENT:  # within the quadrature's own error of F
                break
            t /= 2
        else:  # no step gains: the mode to the precision F is known to
            break
        xs = xs + t * step
        F, g, P, b, B, D = _integrate(xs, b_t, psi, c, pr)
    try:
        chol = linalg.cholesky(P, lower=True)
    except linalg.LinAlgError:
        raise MethodRefused(
            "the judged board's integrated density has no peaked mode in the systems' "
            "block; use method='nuts'",
            method="laplace",
        ) from None
    return (xs, b), F, Factor(chol, B, B / D, D)


def _damped_step(P, g) -> np.ndarray:
    """The Newton step, damped (Levenberg-Marquardt) until the precision is positive
    definite: far from the mode the integrated density need not be concave.
    """
    lam = 0.0
    scale = float(np.abs(np.diag(P)).max())
    for _ in range(30):
        try:
            chol = linalg.cholesky(P + lam * np.eye(P.shape[0]), lower=True)
            return linalg.cho_solve((chol, True), g)
        except linalg.LinAlgError:
            lam = max(1e-6 * scale, 10 * lam)
    raise MethodRefused(
        "the judged board's integrated density has no usable curvature; use method='nuts'",
        method="laplace",
    )
