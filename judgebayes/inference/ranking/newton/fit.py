"""The MAP fit by Newton's method (with Davidson ties), its empirical-Bayes prior scale,
and Laplace draws around it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import sparse
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.special import expit

from judgebayes.errors import MapError
from judgebayes.inference.ranking.newton.design import BTDesign


@dataclass
class MapResult:
    """Mode, Hessian and convergence facts of one MAP fit."""

    beta: np.ndarray
    hessian: np.ndarray
    objective: float
    iterations: int
    design: BTDesign
    lam_b: float | None = None
    lam_theta: float | None = None
    _chol: np.ndarray | None = None

    @property
    def theta(self) -> np.ndarray:
        """Quality block of the mode."""
        return self.beta[: self.design.n_items]

    @property
    def bias(self) -> np.ndarray:
        """Bias block of the mode."""
        return self.beta[self.design.n_items :]

    def chol(self) -> np.ndarray:
        """Lower Cholesky factor of the Hessian (cached)."""
        if self._chol is None:
            self._chol = np.linalg.cholesky(self.hessian)
        return self._chol

    def covariance(self) -> np.ndarray:
        """Laplace covariance :math:`H^{-1}`."""
        return cho_solve((self.chol(), True), np.eye(self.beta.size))


def _davidson_logits(design: BTDesign, beta: np.ndarray):
    eta = design.Z @ beta[:-1]
    u = np.column_stack([eta / 2, -eta / 2, np.full(eta.size, beta[-1])])
    lse = np.logaddexp.reduce(u, axis=1)
    return u, lse


def _outcome(y: np.ndarray) -> np.ndarray:
    """0 first won, 1 second won, 2 tie."""
    return np.where(y == 1, 0, np.where(y == 0, 1, 2))


def log_likelihood(design: BTDesign, beta: np.ndarray) -> np.ndarray:
    """Pointwise log-likelihood of each comparison at ``beta`` (rows of draws allowed)."""
    beta = np.atleast_2d(beta)
    out = np.empty((beta.shape[0], design.y.size))
    for s, bs in enumerate(beta):
        if design.davidson:
            u, lse = _davidson_logits(design, bs)
            out[s] = u[np.arange(u.shape[0]), _outcome(design.y)] - lse
        else:
            eta = design.Z @ bs
            out[s] = -design.y * np.logaddexp(0, -eta) - (1 - design.y) * np.logaddexp(0, eta)
    return out


def _objective(design: BTDesign, beta: np.ndarray) -> float:
    prior = 0.5 * np.sum(design.prec * beta * beta)
    if design.davidson:
        u, lse = _davidson_logits(design, beta)
        return float(np.sum(lse - u[np.arange(u.shape[0]), _outcome(design.y)]) + prior)
    eta = design.Z @ beta
    loss = np.logaddexp(0.0, eta) - design.y * eta
    return float((loss.sum() if design.w is None else loss @ design.w) + prior)


def _gradient_hessian(design: BTDesign, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:

    Z, y, prec = design.Z, design.y, design.prec
    if not design.davidson and design.pairs is not None:
        return _gradient_hessian_pairs(design, beta)
    if not design.davidson:
        pi = expit(Z @ beta)
        w = 1.0 if design.w is None else design.w
        g = Z.T @ (w * (pi - y)) + prec * beta
        H = (Z.T @ sparse.diags(w * pi * (1 - pi)) @ Z).toarray()
        H[np.diag_indices_from(H)] += prec
        return g, H
    u, lse = _davidson_logits(design, beta)
    p = np.exp(u - lse[:, None])
    o = _outcome(y)
    e = np.zeros_like(p)
    e[np.arange(o.size), o] = 1.0
    dpl = p[:, 0] - p[:, 1]
    g = np.empty(beta.size)
    g[:-1] = Z.T @ ((dpl - (e[:, 0] - e[:, 1])) / 2)
    g[-1] = np.sum(p[:, 2] - e[:, 2])
    w_bb = (p[:, 0] + p[:, 1]) / 4 - dpl**2 / 4
    w_bs = -dpl * p[:, 2] / 2
    H = np.empty((beta.size, beta.size))
    H[:-1, :-1] = (Z.T @ sparse.diags(w_bb) @ Z).toarray()
    H[:-1, -1] = H[-1, :-1] = Z.T @ w_bs
    H[-1, -1] = np.sum(p[:, 2] * (1 - p[:, 2]))
    g += prec * beta
    H[np.diag_indices_from(H)] += prec
    return g, H


def _gradient_hessian_pairs(design: BTDesign, beta: np.ndarray):
    """:func:`_gradient_hessian` for designs with ``pairs`` and ``F``, by ``bincount``."""
    assert design.pairs is not None and design.F is not None  # the caller's condition
    a, b = design.pairs
    F, N = design.F, design.n_items
    pi = expit(design.Z @ beta)
    w = 1.0 if design.w is None else design.w
    r = w * (pi - design.y)  # per-row gradient of the loss w.r.t. eta
    h = w * pi * (1 - pi)  # per-row curvature
    g = np.empty(beta.size)
    g[:N] = np.bincount(a, weights=r, minlength=N) - np.bincount(b, weights=r, minlength=N)
    g[N:] = F.T @ r
    H = np.zeros((beta.size, beta.size))
    # item block: the weighted Laplacian of the comparison graph
    off = np.bincount(a * N + b, weights=h, minlength=N * N).reshape(N, N)
    off += off.T
    H[:N, :N] = -off
    H[np.arange(N), np.arange(N)] += np.bincount(a, weights=h, minlength=N) + np.bincount(
        b, weights=h, minlength=N
    )
    for k in range(F.shape[1]):  # item x bias block
        hf = h * F[:, k]
        col = np.bincount(a, weights=hf, minlength=N) - np.bincount(b, weights=hf, minlength=N)
        H[:N, N + k] = H[N + k, :N] = col
    H[N:, N:] = F.T @ (h[:, None] * F)
    g += design.prec * beta
    H[np.diag_indices_from(H)] += design.prec
    return g, H


def fit_map(
    design: BTDesign,
    beta0: np.ndarray | None = None,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> MapResult:
    r"""Newton's method with backtracking on the convex negative log-posterior.

    Stops when half the Newton decrement :math:`g^\top H^{-1} g / 2` is below ``tol``
    (the objective is then within about ``tol`` of its minimum).
    """
    beta = np.zeros(design.n_params) if beta0 is None else np.array(beta0, dtype=float)
    if beta.size != design.n_params:
        beta = np.zeros(design.n_params)
    f = _objective(design, beta)
    for it in range(1, max_iter + 1):
        g, H = _gradient_hessian(design, beta)
        cf = cho_factor(H, lower=True)
        step = cho_solve(cf, g)
        dec = float(g @ step)
        if dec / 2 < tol:
            return MapResult(beta, H, f, it, design, _chol=np.tril(cf[0]))
        t = 1.0
        while True:
            cand = beta - t * step
            fc = _objective(design, cand)
            if fc <= f - 0.25 * t * dec or t < 1e-10:
                break
            t *= 0.5
        beta, f = cand, fc
    raise MapError(f"Newton's method did not converge in {max_iter} iterations")


def fit_map_empirical_bayes(
    design: BTDesign,
    beta0: np.ndarray | None = None,
    *,
    learn_bias: bool = True,
    learn_theta: bool = False,
    tol: float = 1e-6,
    max_iter: int = 500,
    tau2_floor: float = 1e-4,
) -> MapResult:
    r"""Learned prior scales by EM: the shared bias block's and/or the qualities'.

    Alternates :func:`fit_map` with, for each learned block :math:`B`,
    :math:`\tau_B^2 \leftarrow \operatorname{mean}_{m\in B}(\hat\beta_m^2 + [H^{-1}]_{mm})`
    (floored at ``tau2_floor``).  ``learn_bias`` is the hierarchical bias prior (EM can
    drive :math:`\tau^2` to 0 for an unbiased judge, the intended "switch the correction
    off"); ``learn_theta`` learns the spread of the qualities,
    :math:`\theta_i \sim N(0, \tau_\theta^2)`, which an item-level covariate's
    coefficient needs: the likelihood sees only :math:`\theta_i + c\,x_i`, so :math:`c` is
    the regression of those sums on :math:`x` and its uncertainty scales with
    :math:`\tau_\theta`.  The result's ``lam_b`` and ``lam_theta`` are the learned
    precisions (None when not learned).
    """
    blocks = {}
    shared = np.flatnonzero(design.bias_level == "shared") + design.n_items
    if learn_bias and shared.size:
        blocks["bias"] = shared
    if learn_theta:
        blocks["theta"] = np.arange(design.n_items)
    if not blocks:
        return fit_map(design, beta0)
    prec = design.prec.copy()
    res = fit_map(design, beta0)
    tau2 = {k: 1.0 / prec[idx[0]] for k, idx in blocks.items()}
    for _ in range(max_iter):
        cov_diag = np.diag(res.covariance())
        new = {
            k: max(float(np.mean(res.beta[idx] ** 2 + cov_diag[idx])), tau2_floor)
            for k, idx in blocks.items()
        }
        for k, idx in blocks.items():
            prec[idx] = 1.0 / new[k]
        design = replace(design, prec=prec.copy())
        res = fit_map(design, res.beta)
        done = all(abs(new[k] - tau2[k]) <= tol * max(new[k], 1e-12) for k in blocks)
        tau2 = new
        if done:
            break
    res.lam_b = 1.0 / tau2["bias"] if "bias" in tau2 else None
    res.lam_theta = 1.0 / tau2["theta"] if "theta" in tau2 else None
    return res


def laplace_draws(res: MapResult, draws: int, rng: np.random.Generator) -> np.ndarray:
    r"""``draws`` rows of :math:`N(\hat\beta, H^{-1})` (via the Cholesky factor of H)."""
    z = rng.standard_normal((res.beta.size, draws))
    return (res.beta[:, None] + solve_triangular(res.chol().T, z, lower=False)).T
