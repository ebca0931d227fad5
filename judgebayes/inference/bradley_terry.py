r"""MAP and Laplace for Gaussian-prior Bradley-Terry models, with analytic derivatives.

Parameters :math:`\beta = (\theta, b)`, one row of the design per comparison

.. math::
    z_{ab} = (e_a - e_b,\ f_{ab}),\qquad
    \Pr(y = 1) = \sigma(\beta^\top z_{ab}),

where :math:`f_{ab}` holds the bias features: the covariate differences
:math:`x_a - x_b` and a 1 for the position term :math:`\kappa`; with several judges
the features appear twice, once in the shared (population) block and once in the
judge's own deviation block, so that judge :math:`j`'s coefficients are
:math:`\mu + \delta_j` (partial pooling with Gaussian priors).  The negative
log-posterior

.. math::
    \mathcal L(\beta) = \sum_{\mathcal D} w\,[\operatorname{softplus}(\eta) - y\eta]
    + \tfrac12 \beta^\top \Lambda \beta,\qquad \eta = z^\top\beta,

is convex, with gradient :math:`Z^\top(\pi - y) + \Lambda\beta` and Hessian
:math:`H = Z^\top \operatorname{diag}(\pi(1-\pi)) Z + \Lambda`.  It is minimised by
Newton's method with a backtracking line search (quadratic convergence, warm starts);
the Laplace posterior is :math:`N(\hat\beta, H^{-1})`.  A tie counted as half a win
enters with :math:`y = 1/2`.  ``Λ`` is diagonal: :math:`\lambda` on :math:`\theta`
(the paper's prior precision, which also identifies the additive constant),
:math:`\lambda_b = 1/\tau^2` on the bias coefficients.

The hierarchical variant learns :math:`\tau^2` by empirical Bayes, alternating the
Laplace fit with the EM update
:math:`\tau^2 \leftarrow \operatorname{mean}_m(\hat b_m^2 + \operatorname{Var}\hat b_m)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from judgebayes.data.pairwise import POSITION, PairwiseData, difference_matrix
from judgebayes.errors import InputError, MapError

__all__ = [
    "BTDesign",
    "MapResult",
    "bt_design",
    "fit_map",
    "fit_map_empirical_bayes",
    "laplace_draws",
]


@dataclass(frozen=True)
class BTDesign:
    """Sparse design matrix and prior precisions of one Gaussian Bradley-Terry model.

    Attributes
    ----------
    Z : scipy.sparse.csr_matrix, shape (n, n_items + n_bias)
    y : ndarray
    prec : ndarray
        Diagonal prior precision (length ``n_items + n_bias``).
    n_items : int
    bias_names : list of str
        Names of the bias columns, e.g. ``"length"``, ``"position"``,
        ``"length|judgeA"`` (deviation of judge A from the shared coefficient).
    bias_level : ndarray of str
        ``"shared"`` or ``"judge"`` per bias column.
    """

    Z: object
    y: np.ndarray
    prec: np.ndarray
    n_items: int
    bias_names: list[str]
    bias_level: np.ndarray = field(default_factory=lambda: np.array([]))

    @property
    def n_params(self) -> int:
        """Length of beta."""
        return int(self.prec.size)


def bt_design(
    data: PairwiseData,
    *,
    bias: bool = True,
    position: bool = True,
    lam: float = 1.0,
    lam_b: float = 0.1,
    lam_judge: float = 4.0,
) -> BTDesign:
    """The design of the naive (``bias=False``) or bias-aware model for ``data``.

    Parameters
    ----------
    data : PairwiseData
        Verdicts and covariate differences.
    bias : bool
        Add the bias columns (covariates and position); ``False`` is naive BT.
    position : bool
        Include the position term kappa.
    lam : float
        Prior precision of theta (``theta ~ N(0, 1/lam)``); must be > 0.
    lam_b : float
        Prior precision of the shared bias coefficients (0.1 in the paper).
    lam_judge : float
        Prior precision of each judge's deviation from the shared coefficients (used
        only with several judges; 4 means deviations of about +-0.5 logit).
    """
    from scipy import sparse

    if not lam > 0:
        raise InputError(
            f"lam must be > 0 (it identifies theta), got {lam!r}", field="lam", value=lam
        )
    if bias and not lam_b > 0:
        raise InputError(f"lam_b must be > 0, got {lam_b!r}", field="lam_b", value=lam_b)
    n, N = data.n, data.n_items
    blocks = [difference_matrix(data)]
    prec = [np.full(N, float(lam))]
    names: list[str] = []
    level: list[str] = []
    if bias:
        F = data.X
        fnames = list(data.covariates)
        if position:
            F = np.column_stack([F, np.ones(n)])
            fnames.append(POSITION)
        P = F.shape[1]
        if P:
            blocks.append(sparse.csr_matrix(F))
            prec.append(np.full(P, float(lam_b)))
            names += fnames
            level += ["shared"] * P
            J = len(data.judges)
            if J > 1:
                # judge deviations: F placed in the judge's own block
                r = np.repeat(np.arange(n), P)
                c = (data.judge[:, None] * P + np.arange(P)[None, :]).ravel()
                Fj = sparse.csr_matrix((F.ravel(), (r, c)), shape=(n, J * P))
                blocks.append(Fj)
                prec.append(np.full(J * P, float(lam_judge)))
                names += [f"{f}|{j}" for j in data.judges for f in fnames]
                level += ["judge"] * (J * P)
    Z = sparse.hstack(blocks, format="csr")
    return BTDesign(Z, data.y.astype(float), np.concatenate(prec), N, names, np.array(level))


@dataclass
class MapResult:
    """Mode, Hessian and convergence facts of one MAP fit."""

    beta: np.ndarray
    hessian: np.ndarray
    objective: float
    iterations: int
    design: BTDesign
    lam_b: float | None = None
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
        from scipy.linalg import cho_solve

        return cho_solve((self.chol(), True), np.eye(self.beta.size))


def _objective(Z, y, prec, beta) -> float:
    eta = Z @ beta
    return float(np.sum(np.logaddexp(0.0, eta) - y * eta) + 0.5 * np.sum(prec * beta * beta))


def _hessian(Z, w, prec) -> np.ndarray:
    from scipy import sparse

    H = (Z.T @ sparse.diags(w) @ Z).toarray()
    H[np.diag_indices_from(H)] += prec
    return H


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
    from scipy.linalg import cho_factor, cho_solve
    from scipy.special import expit

    Z, y, prec = design.Z, design.y, design.prec
    beta = np.zeros(design.n_params) if beta0 is None else np.array(beta0, dtype=float)
    if beta.size != design.n_params:
        beta = np.zeros(design.n_params)
    f = _objective(Z, y, prec, beta)
    for it in range(1, max_iter + 1):
        pi = expit(Z @ beta)
        g = Z.T @ (pi - y) + prec * beta
        H = _hessian(Z, pi * (1 - pi), prec)
        cf = cho_factor(H, lower=True)
        step = cho_solve(cf, g)
        dec = float(g @ step)
        if dec / 2 < tol:
            return MapResult(beta, H, f, it, design, _chol=np.tril(cf[0]))
        t = 1.0
        while True:
            cand = beta - t * step
            fc = _objective(Z, y, prec, cand)
            if fc <= f - 0.25 * t * dec or t < 1e-10:
                break
            t *= 0.5
        beta, f = cand, fc
    raise MapError(f"Newton's method did not converge in {max_iter} iterations")


def fit_map_empirical_bayes(
    design: BTDesign,
    beta0: np.ndarray | None = None,
    *,
    tol: float = 1e-6,
    max_iter: int = 500,
    tau2_floor: float = 1e-4,
) -> MapResult:
    r"""The hierarchical variant: :math:`\tau^2` of the shared bias block by EM.

    Alternates :func:`fit_map` with
    :math:`\tau^2 \leftarrow \operatorname{mean}_m(\hat b_m^2 + [H^{-1}]_{mm})` over the
    shared bias coefficients (floored at ``tau2_floor``; EM can drive it to 0 for an
    unbiased judge, which is the intended "switch the correction off").
    """
    shared = np.flatnonzero(design.bias_level == "shared") + design.n_items
    if shared.size == 0:
        return fit_map(design, beta0)
    prec = design.prec.copy()
    res = fit_map(design, beta0)
    tau2 = 1.0 / prec[shared[0]]
    for _ in range(max_iter):
        cov_diag = np.diag(res.covariance())[shared]
        new = max(float(np.mean(res.beta[shared] ** 2 + cov_diag)), tau2_floor)
        prec[shared] = 1.0 / new
        design = BTDesign(
            design.Z, design.y, prec.copy(), design.n_items, design.bias_names, design.bias_level
        )
        res = fit_map(design, res.beta)
        if abs(new - tau2) <= tol * max(new, 1e-12):
            break
        tau2 = new
    res.lam_b = 1.0 / tau2
    return res


def laplace_draws(res: MapResult, draws: int, rng: np.random.Generator) -> np.ndarray:
    r"""``draws`` rows of :math:`N(\hat\beta, H^{-1})` (via the Cholesky factor of H)."""
    from scipy.linalg import solve_triangular

    z = rng.standard_normal((res.beta.size, draws))
    return (res.beta[:, None] + solve_triangular(res.chol().T, z, lower=False)).T
