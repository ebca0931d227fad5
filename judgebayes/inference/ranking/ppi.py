r"""Prediction-powered Bradley-Terry: the frequentist comparator of the judge-error ranking.

Bradley-Terry (with Davidson ties when there are three outcomes) is an M-estimator: with
the outcome written as a target distribution :math:`t` over (first, second[, tie]) and
:math:`u = (\eta/2, -\eta/2[, \log\nu])`, :math:`\eta = \theta_a - \theta_b`,

.. math::
    \ell(\phi; t) = -\sum_k t_k \log\operatorname{softmax}_k(u), \qquad
    \nabla_u \ell = p - t, \qquad \nabla^2_u \ell = \operatorname{diag}(p) - pp^\top,

so the Hessian does not depend on the target.  PPI++ (Angelopoulos, Duchi & Zrnic 2023)
minimises

.. math::
    L_\lambda(\phi) = \frac1n\sum_{i \le n}\ell(\phi; t_i)
      + \lambda\Big[\frac1N\sum_{i \le N}\ell(\phi; \hat t_i)
      - \frac1n\sum_{i \le n}\ell(\phi; \hat t_i)\Big]

over the :math:`n` comparisons with a human outcome :math:`t_i` and the :math:`N` without,
where :math:`\hat t` is the judges' verdict (the mean of the judges' one-hot verdicts when
several judged the instance).  Its Hessian :math:`(1-\lambda)\bar H_n + \lambda \bar H_N`
is positive semi-definite for :math:`\lambda \in [0, 1]`, so Newton's method finds the
minimum.  The covariance is the sandwich

.. math::
    \hat\Sigma = \frac1n H^{-1}\Big(\frac nN \operatorname{Cov}(\lambda\nabla\ell(\hat t))
      + \operatorname{Cov}(\nabla\ell(t) - \lambda\nabla\ell(\hat t))\Big) H^{-1},

with :math:`H` the Hessian averaged over all :math:`n + N` comparisons and the power
:math:`\lambda` chosen to minimise :math:`\operatorname{tr}\hat\Sigma` (clipped to [0, 1]),
as in ``ppi_py.ppi_logistic_ci``; with two outcomes the estimator *is* PPI++ logistic
regression on the design :math:`e_a - e_b` without the reference item's column, and the
tests check it against ppi_py on the same inputs.  Identification: the reference item's
quality is 0 (any other identification is a linear map of the estimate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.errors import InputError

__all__ = ["PPIRankingResult", "ppi_bradley_terry"]


@dataclass(frozen=True)
class PPIRankingResult:
    """Estimate and covariance of prediction-powered Bradley-Terry.

    Attributes
    ----------
    theta : ndarray, shape (n_items,)
        Qualities, the reference item's fixed at 0.
    log_nu : float or None
        Davidson's tie parameter (three outcomes only).
    cov : ndarray
        Covariance of ``(theta without the reference, [log_nu])``.
    free : ndarray of int
        The items whose qualities are free (all but the reference), in ``cov``'s order.
    lam : float
        The power-tuning weight used (1: plain PPI; 0: the labelled comparisons alone).
    n, N : int
        Labelled and unlabelled comparisons.
    iterations : int
        Newton iterations of the final fit.
    """

    theta: np.ndarray
    log_nu: float | None
    cov: np.ndarray
    free: np.ndarray
    lam: float
    n: int
    N: int
    iterations: int

    def draws(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
        """Gaussian draws of (theta (size, n_items), log_nu (size,) or None)."""
        mean = np.concatenate([self.theta[self.free], [] if self.log_nu is None else [self.log_nu]])
        z = rng.multivariate_normal(mean, self.cov, size=size, method="eigh")
        th = np.zeros((size, self.theta.size))
        th[:, self.free] = z[:, : self.free.size]
        return th, (z[:, -1] if self.log_nu is not None else None)


class _Design:
    """Per-comparison pieces of the Bradley-Terry/Davidson loss in the free parameters."""

    def __init__(self, first, second, n_items: int, ref: int, K: int):
        self.a, self.b = np.asarray(first, int), np.asarray(second, int)
        self.K = K
        col = np.full(n_items, -1)
        free = np.array([i for i in range(n_items) if i != ref])
        col[free] = np.arange(free.size)
        self.ca, self.cb = col[self.a], col[self.b]
        self.free = free
        self.d = free.size + (1 if K == 3 else 0)

    def probs(self, phi):
        th_free = phi[: self.free.size]
        eta = np.where(self.ca >= 0, th_free[np.maximum(self.ca, 0)], 0.0) - np.where(
            self.cb >= 0, th_free[np.maximum(self.cb, 0)], 0.0
        )
        u = [eta / 2, -eta / 2]
        if self.K == 3:
            u.append(np.full_like(eta, phi[-1]))
        u = np.column_stack(u)
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u)
        return p / p.sum(axis=1, keepdims=True)

    def grads(self, p, t):
        """(n, d) per-comparison gradients of the loss."""
        r = p - t
        g = np.zeros((p.shape[0], self.d))
        s = (r[:, 0] - r[:, 1]) / 2
        rows = np.arange(p.shape[0])
        ma, mb = self.ca >= 0, self.cb >= 0
        np.add.at(g, (rows[ma], self.ca[ma]), s[ma])
        np.add.at(g, (rows[mb], self.cb[mb]), -s[mb])
        if self.K == 3:
            g[:, -1] = r[:, 2]
        return g

    def hessian(self, p, w):
        """Weighted sum of per-comparison Hessians, sum_i w_i J_i' (diag p_i - p_i p_i') J_i."""
        F = self.free.size
        # coefficient of x x' (x = e_a - e_b): s'Ms with s = (1/2, -1/2, 0)
        sMs = (p[:, 0] * (1 - p[:, 0]) + p[:, 1] * (1 - p[:, 1]) + 2 * p[:, 0] * p[:, 1]) / 4
        H = np.zeros((self.d, self.d))
        wx = w * sMs
        for ci, cj, sign in ((self.ca, self.ca, 1), (self.cb, self.cb, 1), (self.ca, self.cb, -1)):
            m = (ci >= 0) & (cj >= 0)
            np.add.at(H, (ci[m], cj[m]), sign * wx[m])
            if sign < 0:
                np.add.at(H, (cj[m], ci[m]), sign * wx[m])
        if self.K == 3:
            # s'Me = (-p0 p2 + p1 p2) / 2 ; e'Me = p2 (1 - p2)
            sMe = (-p[:, 0] * p[:, 2] + p[:, 1] * p[:, 2]) / 2 * w
            hx = np.zeros(F)
            for c, sign in ((self.ca, 1), (self.cb, -1)):
                m = c >= 0
                np.add.at(hx, c[m], sign * sMe[m])
            H[:F, -1] = H[-1, :F] = hx
            H[-1, -1] = np.sum(w * p[:, 2] * (1 - p[:, 2]))
        return H


def _loss(p, t):
    return -np.sum(t * np.log(np.clip(p, 1e-300, None)))


def _fit(dl, du, t, th_l, th_u, lam, phi0, max_iter=100, tol=1e-12):
    n, N = t.shape[0], th_u.shape[0]

    def objective(phi):
        pl, pu = dl.probs(phi), du.probs(phi)
        return _loss(pl, t) / n + lam * (_loss(pu, th_u) / N - _loss(pl, th_l) / n)

    phi = phi0.copy()
    f = objective(phi)
    for it in range(1, max_iter + 1):
        pl, pu = dl.probs(phi), du.probs(phi)
        g = dl.grads(pl, t).sum(0) / n + lam * (
            du.grads(pu, th_u).sum(0) / N - dl.grads(pl, th_l).sum(0) / n
        )
        H = (1 - lam) * dl.hessian(pl, np.ones(n)) / n + lam * du.hessian(pu, np.ones(N)) / N
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError as e:
            raise InputError(
                "prediction-powered Bradley-Terry has a singular Hessian: some item is not "
                "connected to the reference through the compared pairs",
                field="comparisons",
                value=None,
            ) from e
        s = 1.0
        while True:
            new = phi - s * step
            f_new = objective(new)
            if f_new <= f + 1e-14 or s < 1e-8:
                break
            s /= 2
        phi, f_old, f = new, f, f_new
        if np.max(np.abs(s * step)) < tol or abs(f_old - f) < 1e-16:
            return phi, it
    return phi, max_iter


def _stats(dl, du, t, th_l, th_u, phi):
    n, N = t.shape[0], th_u.shape[0]
    pl, pu = dl.probs(phi), du.probs(phi)
    H = (dl.hessian(pl, np.ones(n)) + du.hessian(pu, np.ones(N))) / (n + N)
    return dl.grads(pl, t), dl.grads(pl, th_l), du.grads(pu, th_u), np.linalg.inv(H)


def _power(g, gh, ghu, V):
    """PPI++'s variance-minimising lambda, clipped to [0, 1] (ppi_py's _calc_lam_glm)."""
    n, N = g.shape[0], ghu.shape[0]
    gc, ghc = g - g.mean(0), gh - gh.mean(0)
    C = (gc.T @ ghc + ghc.T @ gc) / n
    S = np.atleast_2d(np.cov(np.concatenate([gh, ghu]).T))
    lam = np.trace(V @ C @ V) / (2 * (1 + n / N) * np.trace(V @ S @ V))
    return float(np.clip(lam, 0.0, 1.0))


def ppi_bradley_terry(
    first_l,
    second_l,
    target,
    pred_l,
    first_u,
    second_u,
    pred_u,
    n_items: int,
    *,
    reference: int = 0,
    lam: float | None = None,
) -> PPIRankingResult:
    """Prediction-powered (PPI++) Bradley-Terry estimate and sandwich covariance.

    Parameters
    ----------
    first_l, second_l : array of int, shape (n,)
        Items of the comparisons with a human outcome.
    target : array, shape (n, K)
        Human outcome as a distribution over (first, second[, tie]) (one-hot).
    pred_l : array, shape (n, K)
        The judges' verdict on the same comparisons (a distribution: one-hot, or the
        share of judges per outcome).
    first_u, second_u, pred_u : arrays, shapes (N,), (N,), (N, K)
        The comparisons without a human outcome, and their judge verdicts.
    n_items : int
        Number of items.
    reference : int
        Item whose quality is fixed at 0.
    lam : float, optional
        Power-tuning weight; ``None`` (default) chooses it (PPI++), 1 is plain PPI, 0 uses
        the labelled comparisons only.
    """
    t = np.asarray(target, float)
    th_l, th_u = np.asarray(pred_l, float), np.asarray(pred_u, float)
    K = t.shape[1]
    if K not in (2, 3) or th_l.shape != t.shape or th_u.shape[1:] != (K,):
        raise InputError(
            f"targets must be (n, K) and (N, K) with K in (2, 3); got {t.shape}, "
            f"{th_l.shape}, {th_u.shape}",
            field="target",
            value=t.shape,
        )
    n, N = t.shape[0], th_u.shape[0]
    if n < 2 or N < 2:
        raise InputError(
            f"prediction-powered inference needs at least 2 labelled and 2 unlabelled "
            f"comparisons; got {n} and {N}",
            field="human",
            value=n,
        )
    dl = _Design(first_l, second_l, n_items, reference, K)
    du = _Design(first_u, second_u, n_items, reference, K)
    phi0 = np.zeros(dl.d)
    if lam is None:
        phi, _ = _fit(dl, du, t, th_l, th_u, 1.0, phi0)
        lam1 = _power(*_stats(dl, du, t, th_l, th_u, phi))
        phi, _ = _fit(dl, du, t, th_l, th_u, lam1, phi)
        lam_used = _power(*_stats(dl, du, t, th_l, th_u, phi))
    else:
        lam_used = float(lam)
    phi, it = _fit(dl, du, t, th_l, th_u, lam_used, phi0)
    g, gh, ghu, V = _stats(dl, du, t, th_l, th_u, phi)
    d = dl.d
    var_u = np.atleast_2d(np.cov((lam_used * ghu).T)).reshape(d, d)
    var_l = np.atleast_2d(np.cov((g - lam_used * gh).T)).reshape(d, d)
    cov = V @ (n / N * var_u + var_l) @ V / n
    theta = np.zeros(n_items)
    theta[dl.free] = phi[: dl.free.size]
    return PPIRankingResult(
        theta=theta,
        log_nu=float(phi[-1]) if K == 3 else None,
        cov=(cov + cov.T) / 2,
        free=dl.free,
        lam=lam_used,
        n=n,
        N=N,
        iterations=it,
    )
