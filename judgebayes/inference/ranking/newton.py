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

Ties (Davidson 1970).  With ``ties="davidson"`` a comparison has three outcomes,

.. math::
    \Pr(\text{first wins}) = \frac{e^{\eta/2}}{D},\quad
    \Pr(\text{second wins}) = \frac{e^{-\eta/2}}{D},\quad
    \Pr(\text{tie}) = \frac{\nu}{D},\qquad D = e^{\eta/2} + e^{-\eta/2} + \nu,

(Davidson's :math:`\pi_a / (\pi_a + \pi_b + \nu\sqrt{\pi_a\pi_b})` divided through by
:math:`\sqrt{\pi_a\pi_b}`).  The tie parameter enters as :math:`s = \log\nu`, the last
entry of :math:`\beta`, with prior :math:`N(0, 1/\lambda_\nu)`.  The three log-odds
:math:`(\eta/2, -\eta/2, s)` are linear in :math:`\beta`, so the negative
log-likelihood (a log-sum-exp minus a linear term) stays convex and Newton's method
applies unchanged; gradient and Hessian are those of a multinomial logit with the
3 x p Jacobian :math:`G = [(z/2, 0); (-z/2, 0); (0, 1)]`.  It reduces to Bradley-Terry
as :math:`\nu \to 0`.

The hierarchical variant learns :math:`\tau^2` by empirical Bayes, alternating the
Laplace fit with the EM update
:math:`\tau^2 \leftarrow \operatorname{mean}_m(\hat b_m^2 + \operatorname{Var}\hat b_m)`.

The design (:class:`BTDesign`: comparisons, or their counts, as the rows of a logistic
regression on the strengths and the bias covariates) comes first, then the MAP fit by
Newton's method, its empirical-Bayes prior scale and Laplace draws around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import sparse
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.special import expit

from judgebayes.data.ranking import POSITION, PairwiseData, difference_matrix
from judgebayes.errors import InputError, MapError

__all__ = [
    "BTDesign",
    "MapResult",
    "bt_counts_design",
    "bt_design",
    "bt_design_from_counts",
    "collapse_pairs",
    "fit_map",
    "fit_map_empirical_bayes",
    "laplace_draws",
    "log_likelihood",
]

# ------------------------------------------------------------------ the design
#: Name of the Davidson tie parameter (log nu) in the design's bias columns.
TIE_PARAM = "log_nu"


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

    Z: Any  # a scipy.sparse matrix
    y: np.ndarray
    prec: np.ndarray
    n_items: int
    bias_names: list[str]
    bias_level: np.ndarray = field(default_factory=lambda: np.array([]))
    davidson: bool = False
    #: frequency weight of each row (``None``: 1): a row of collapsed counts stands for
    #: ``w`` comparisons with win share ``y`` (the binomial likelihood up to a constant)
    w: np.ndarray | None = None
    #: the rows' (first, second) items and dense bias features, when every row is one
    #: item difference plus ``F``'s columns (one judge): the Hessian is then assembled by
    #: ``bincount`` in O(n) instead of a sparse ``Z^T W Z`` (faster on large logs)
    pairs: tuple[np.ndarray, np.ndarray] | None = None
    F: np.ndarray | None = None

    @property
    def n_params(self) -> int:
        r"""Length of beta (the Davidson model's :math:`\log\nu` last)."""
        return int(self.prec.size)


def bt_design(
    data: PairwiseData,
    *,
    bias: bool = True,
    position: bool = True,
    lam: float = 1.0,
    lam_b: float = 0.1,
    lam_judge: float = 4.0,
    lam_nu: float = 0.25,
) -> BTDesign:
    r"""The design of the naive (``bias=False``) or bias-aware model for ``data``.

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
    lam_nu : float
        Prior precision of :math:`\log\nu` under the Davidson tie model (used when
        ``data.ties == "davidson"`` and some verdict is a tie; 0.25 means sd 2).
    """
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
    davidson = data.ties == "davidson" and data.has_ties
    if davidson:
        prec.append(np.array([float(lam_nu)]))
        names.append(TIE_PARAM)
        level.append("tie")
    Z = sparse.hstack(blocks, format="csr")
    simple = "judge" not in level
    F_dense = F if bias else np.zeros((n, 0))  # (n, P): covariates, then position
    return BTDesign(
        Z,
        data.y.astype(float),
        np.concatenate(prec),
        N,
        names,
        np.array(level),
        davidson,
        pairs=(data.first, data.second) if simple else None,
        F=np.ascontiguousarray(F_dense, dtype=float) if simple else None,
    )


def collapse_pairs(
    first: np.ndarray,
    second: np.ndarray,
    y: np.ndarray,
    n_items: int,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Win counts per ordered pair: ``(first, second, wins, total)`` over the distinct
    (first, second) pairs; a tie (y = 0.5 or NaN) counts half a win, as in the naive model.
    ``weights``: how many comparisons each row stands for (default one each).
    """
    key = first.astype(np.int64) * n_items + second
    uniq, inv = np.unique(key, return_inverse=True)
    w = np.ones(key.size) if weights is None else np.asarray(weights, dtype=float)
    total = np.bincount(inv, weights=w)
    wins = np.bincount(inv, weights=w * np.where(np.isnan(y), 0.5, y))
    return uniq // n_items, uniq % n_items, wins, total


def bt_design_from_counts(
    counts,
    *,
    first: str = "first",
    second: str = "second",
    ties: str = "half",
    items=None,
    lam: float = 1.0,
) -> tuple[BTDesign, tuple[str, ...]]:
    r"""Naive Bradley-Terry on a win-count frame (:func:`judgebayes.data.large.reduce_pairs`).

    Rows of several judges are pooled (naive BT has no judge term).  ``ties="half"``
    counts a tie as half a win, as :func:`bt_design` does for ``ties="half"`` data;
    ``"drop"`` leaves ties out.  The design has one weighted row per ordered pair, so
    :func:`fit_map` gives the mode and Hessian of the model on every row of the log.

    Parameters
    ----------
    counts : DataFrame
        ``first``, ``second``, ``n_first``, ``n_second``, ``n_tie`` columns.
    first, second : str
        Item columns.
    ties : {"half", "drop"}
        Tie handling.
    items : sequence of str, optional
        Item order (default: sorted ids that appear).
    lam : float
        Prior precision of theta.

    Returns
    -------
    (BTDesign, tuple of str)
        The design and the item ids its columns follow.
    """
    if ties not in ("half", "drop"):
        raise InputError(
            f"ties must be 'half' or 'drop' for naive BT on counts; got {ties!r}",
            field="ties",
            value=ties,
        )
    for col in (first, second, "n_first", "n_second", "n_tie"):
        if col not in counts.columns:
            raise InputError(
                f"the counts frame has no column {col!r} (reduce_pairs writes it)",
                field=col,
                value=None,
            )
    a = counts[first].astype(str).to_numpy()
    b = counts[second].astype(str).to_numpy()
    ids = tuple(sorted(set(a) | set(b))) if items is None else tuple(map(str, items))
    index = {v: i for i, v in enumerate(ids)}
    unknown = sorted((set(a) | set(b)) - set(index))
    if unknown:
        raise InputError(
            f"item {unknown[0]!r} of the counts is not in items", field="items", value=unknown[0]
        )
    fi = np.array([index[v] for v in a], dtype=np.int64)
    si = np.array([index[v] for v in b], dtype=np.int64)
    nf, ns, nt = (counts[c].to_numpy(dtype=float) for c in ("n_first", "n_second", "n_tie"))
    if ties == "drop":
        nt = np.zeros_like(nt)
    total = nf + ns + nt
    share = np.divide(nf + 0.5 * nt, total, out=np.zeros_like(total), where=total > 0)
    # judges pooled: one row per ordered pair
    f, s, wins, total = collapse_pairs(fi, si, share, len(ids), weights=total)
    keep = total > 0  # a pair seen only in ties, with ties dropped
    return bt_counts_design(f[keep], s[keep], wins[keep], total[keep], len(ids), lam=lam), ids


def bt_counts_design(
    first: np.ndarray,
    second: np.ndarray,
    wins: np.ndarray,
    total: np.ndarray,
    n_items: int,
    *,
    lam: float = 1.0,
) -> BTDesign:
    r"""Naive Bradley-Terry on collapsed win counts: one weighted row per ordered pair.

    The likelihood of :math:`w` comparisons of one pair with win share :math:`\bar y` is
    :math:`w[\operatorname{softplus}(\eta) - \bar y\eta]` up to a constant, so the mode,
    Hessian and Laplace posterior equal those of the model on every row, at the cost of
    the distinct pairs (at most :math:`n^2`) instead of the comparisons.
    """
    if not lam > 0:
        raise InputError(f"lam must be > 0, got {lam!r}", field="lam", value=lam)
    m = first.size
    rows = np.repeat(np.arange(m), 2)
    cols = np.column_stack([first, second]).ravel()
    vals = np.tile([1.0, -1.0], m)
    Z = sparse.csr_matrix((vals, (rows, cols)), shape=(m, n_items))
    share = np.divide(wins, total, out=np.zeros_like(wins, dtype=float), where=total > 0)
    return BTDesign(
        Z,
        share,
        np.full(n_items, float(lam)),
        n_items,
        [],
        np.array([]),
        False,
        w=total,
        pairs=(np.asarray(first, np.int64), np.asarray(second, np.int64)),
        F=np.zeros((m, 0)),
    )


# ------------------------------------------------------------------ the MAP fit and Laplace
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
