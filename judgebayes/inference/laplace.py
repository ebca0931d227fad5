r"""Laplace approximation of any judgebayes model, returned as InferenceData.

Written once, generically, for every ``pm.Model`` that a
:class:`~judgebayes.inference.nuts.ModelSpec` builds.
In the unconstrained space :math:`u` (PyMC's value variables, Jacobian included)

.. math::
    \hat u = \arg\max_u \log p(u \mid y),\qquad
    u \sim N\big(\hat u,\ [-\nabla^2 \log p(\hat u \mid y)]^{-1}\big),

and draws are mapped back through the model's transforms, so that :math:`\theta` stays in
(0, 1) but its distribution is a logit-normal, not a normal: near a boundary the Laplace
interval is asymmetric and never reaches the boundary.  The mode uses L-BFGS-B with
PyTensor's gradient; the Hessian is the central finite difference of that exact gradient
(step :math:`\epsilon^{1/3}\max(1, |u_i|)`, error ~1e-10 relative), because compiling
PyTensor's symbolic Hessian costs far more than the gradient's.  For ``block_size``
independent problems one coordinate of every block is stepped at once (the cross-block
terms are zero), so the cost is that of one block.

The Gaussian is then checked against the model it approximates: with
:math:`\log w_s = \log p(u_s \mid y) - \log q(u_s)` over the draws, Pareto-smoothed
importance sampling (PSIS, Vehtari et al. 2024) gives the shape :math:`\hat k` of the
weights' tail.  :math:`\hat k \le 0.7` means the weights are reliable, and the draws are
resampled by them, so the reported interval is that of the model, not of its Gaussian;
:math:`\hat k > 0.7` means the Gaussian misses mass the posterior has, and the fit is
refused with a :class:`~judgebayes.errors.LaplaceError` naming NUTS, as it is when the
weights leave fewer than :data:`MIN_IMPORTANCE_ESS` effective draws (``importance=False``
gives the plain Gaussian).  This is what keeps Laplace honest on a skewed binary posterior
with a handful of calibration labels, and on non-centred hierarchical models whose
population scales the Gaussian cannot represent.

Compiled functions are cached per model structure and reused by swapping the
``pm.Data`` values, like the NUTS engine.  A :class:`~judgebayes.inference.nuts.ModelSpec`
that carries its model's log density in numpy (``density``) is fitted from it without
compiling (same mode, Hessian and importance check; the draws are mapped vectorised).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize

from judgebayes.errors import LaplaceError
from judgebayes.inference.nuts import ModelSpec, batched_function, interpreted
from judgebayes.inference.nuts.compile import data_values
from judgebayes.results import tree

__all__ = ["K_HAT_MAX", "MIN_IMPORTANCE_ESS", "LaplaceError", "fit_laplace", "hessian"]

MIN_IMPORTANCE_ESS = 200
"""Fewest effective draws the importance weights may leave (or a quarter of the draws, when
fewer than 800 were asked for): below it the resampled interval's Monte-Carlo error (a 2.5%
quantile from < 200 effective draws) is too large to report, however reliable k-hat says
the weights are."""

PROPOSAL_DF = 4
"""Degrees of freedom of the Student-t importance proposal around the Laplace Gaussian."""

PROPOSAL_SCALE = 1.5
"""Scale of that proposal relative to the Laplace covariance's square root: wider than the
Gaussian, so that a skewed posterior's long side is still drawn."""

K_HAT_MAX = 0.7
r"""Largest Pareto :math:`\hat k` of the importance weights at which Laplace is reported."""


@dataclass
class _LaplaceFns:
    model: Any
    logp_dlogp: Any  # (log density, gradient) at one point
    logp_rows: Any  # the log density of each row of raveled vectors, in one call
    expand: Any  # the named variables of each row, in one call
    out_names: list[str]
    info: Any
    block_logp: Any = None  # per-block log density of each row (block mode), on first use


_CACHE: dict[tuple, _LaplaceFns] = {}


def _by_rows(model, info, outputs):
    """``outputs`` (graphs of the model's value variables) as one function of an (n, d)
    array of raveled unconstrained vectors (:func:`~judgebayes.inference.nuts.
    batched_function`): a fit calls it once for all its draws and compiles nothing.
    """
    values = {v.name: v for v in model.value_vars}
    single = not isinstance(outputs, list | tuple)
    fn = batched_function([values[nm] for nm, *_ in info], [outputs] if single else list(outputs))
    ends = np.cumsum([0] + [int(np.prod(shape)) for _, shape, *_ in info])

    def call(u):
        u = np.asarray(u, dtype=float)
        out = fn(
            *(
                u[:, a:b].reshape(len(u), *shape).astype(dtype)
                for (_, shape, *_, dtype), a, b in zip(info, ends[:-1], ends[1:], strict=True)
            )
        )
        return out[0] if single else out

    return call


def _functions(spec: ModelSpec) -> tuple[_LaplaceFns, bool]:
    """The model's log density with its gradient (called per optimiser step), and its log
    density and named variables by rows of draws, all interpreted: compiling them with the
    default linker costs more than the whole fit otherwise.
    """
    import pymc as pm
    from pymc.blocking import DictToArrayBijection

    key = spec.key()
    fresh = spec.build()
    if key in _CACHE:
        fns = _CACHE[key]
        pm.set_data(data_values(fresh), model=fns.model)
        return fns, True
    model = fresh

    with warnings.catch_warnings(), interpreted() as kw:
        warnings.simplefilter("ignore", FutureWarning)
        # one pass gives both: the optimiser asks for them together at every step
        logp_dlogp = model.compile_fn([model.logp(jacobian=True), model.dlogp(jacobian=True)], **kw)
    keep = {v.name for v in model.free_RVs} | {v.name for v in model.deterministics}
    outs = [v for v in model.unobserved_value_vars if v.name in keep]
    info = DictToArrayBijection.map(model.initial_point()).point_map_info
    fns = _LaplaceFns(
        model,
        logp_dlogp,
        _by_rows(model, info, model.logp(jacobian=True)),
        _by_rows(model, info, outs),
        [v.name for v in outs],
        info,
    )
    _CACHE[key] = fns
    return fns, False


def _blocks(info, size: int) -> list[np.ndarray]:
    """Indices of the raveled vector that share position ``r`` of a trailing axis."""
    offsets, start = [], 0
    for entry in info:
        shape = entry[1]
        count = int(np.prod(shape))
        if not shape or shape[-1] != size:
            raise LaplaceError(f"block_size={size}: a variable has shape {shape}")
        offsets.append(start + np.arange(count).reshape(-1, size))
        start += count
    return [np.concatenate([o[:, r] for o in offsets]) for r in range(size)]


def hessian(grad, x: np.ndarray, blocks: list[np.ndarray] | None = None) -> np.ndarray:
    """Symmetrised central-difference Hessian of a scalar function from its gradient.

    ``blocks`` (optional): index sets of independent sub-problems of equal size, whose
    cross-block Hessian terms are zero; then coordinate ``j`` of every block is stepped in
    one pair of gradient calls, and the entries outside the blocks stay zero.
    """
    x = np.asarray(x, dtype=float)
    d = x.size
    hess = np.zeros((d, d))
    step = np.finfo(float).eps ** (1 / 3) * np.maximum(1.0, np.abs(x))
    groups = [np.arange(d)] if blocks is None else [np.asarray(b) for b in blocks]
    for j in range(len(groups[0])):
        cols = np.array([g[j] for g in groups])
        e = np.zeros(d)
        e[cols] = step[cols]
        diff = (np.asarray(grad(x + e), float) - np.asarray(grad(x - e), float)) / 2
        for g, c in zip(groups, cols, strict=True):
            hess[g, c] = diff[g] / step[c]
    return (hess + hess.T) / 2


def fit_laplace(
    spec: ModelSpec,
    *,
    draws: int = 4000,
    random_seed: int | None = None,
    block_size: int | None = None,
    importance: bool = True,
) -> tuple[Any, dict[str, Any]]:
    r"""MAP + Laplace posterior of ``spec``'s model as ``arviz.InferenceData``.

    With ``block_size=B`` the model is taken to be ``B`` independent problems along the
    trailing axis of every variable (e.g. the split protocol's batched model): the
    Hessian is used block by block, and a block whose Hessian is not negative definite
    gets NaN draws (listed in ``info["failed_blocks"]``) instead of failing the fit.
    The importance check runs block by block (``info["k_hat"]`` and ``info["ess_is"]``
    are then arrays); a block whose :math:`\hat k` exceeds :data:`K_HAT_MAX` gets NaN
    draws and is listed in ``info["refused_blocks"]``.

    ``importance=True`` (default) checks the Gaussian by PSIS and resamples its draws by
    the smoothed weights (module docstring); ``info["k_hat"]`` and ``info["ess_is"]``
    (the weights' effective sample size) say how well it fitted.

    Returns
    -------
    (idata, info)
        ``idata.posterior`` has one chain of ``draws`` draws of every named variable;
        ``info`` has ``seconds``, ``cache_hit``, ``mode`` (unconstrained), ``optimizer``.

    Raises
    ------
    LaplaceError
        If the optimiser fails, the Hessian at the mode is not negative definite, or
        (``importance=True``) the Pareto :math:`\hat k` exceeds :data:`K_HAT_MAX`.
    """
    t0 = time.perf_counter()
    target: _NumpyTarget | _PymcTarget
    if spec.density is not None and block_size is None:
        target, hit = _NumpyTarget(spec.density()), True
    else:
        fns, hit = _functions(spec)
        target = _PymcTarget(fns)

    def negf(x):
        f, g = target.value_and_grad(x)
        return -f, -g

    res = optimize.minimize(negf, target.x0, jac=True, method="L-BFGS-B", options={"maxiter": 5000})
    if not np.all(np.isfinite(res.x)) or not np.isfinite(res.fun):
        raise LaplaceError(f"MAP search failed: {res.message}")
    blocks = None if block_size is None else _blocks(fns.info, block_size)
    prec = -hessian(target.grad, res.x, blocks)
    rng = np.random.default_rng(random_seed)
    z = rng.standard_normal((draws, res.x.size))
    if importance and block_size is None:
        # multivariate Student-t proposal (same centre and scale): heavier tails than the
        # posterior's in every direction we have met, so the weights stay bounded
        z = PROPOSAL_SCALE * z / np.sqrt(rng.chisquare(PROPOSAL_DF, size=(draws, 1)) / PROPOSAL_DF)
    failed: list[int] = []
    refused: list[int] = []
    k_hat = ess_is = float("nan")
    if block_size is None:
        try:
            chol = np.linalg.cholesky(prec)
        except np.linalg.LinAlgError:
            raise LaplaceError(
                "the Hessian at the mode is not negative definite: the posterior is flat or "
                "the mode lies on a boundary of the unconstrained space; use method='nuts'"
            ) from None
        # u = mode + L^{-T} z has covariance (L L^T)^{-1} = prec^{-1}
        u = res.x + np.linalg.solve(chol.T, z.T).T
        if importance:
            u, k_hat, ess_is = _importance_resample(target, u, z, rng)
    else:
        assert blocks is not None  # block_size was given
        u = np.empty_like(z)
        if importance:
            # an independent Student-t proposal per block
            z = _block_t(z, blocks, rng)
        for r, idx in enumerate(blocks):
            try:
                chol = np.linalg.cholesky(prec[np.ix_(idx, idx)])
                u[:, idx] = res.x[idx] + np.linalg.solve(chol.T, z[:, idx].T).T
            except np.linalg.LinAlgError:
                u[:, idx] = np.nan
                failed.append(r)
        if importance:
            u, k_hat, ess_is, refused = _block_importance(fns, u, z, blocks, failed, rng)
    post = {nm: np.asarray(v)[None, ...] for nm, v in target.expand(u).items()}
    dims = {nm: target.dims.get(nm, []) for nm in post}
    idata = tree({"posterior": post}, coords=target.coords, dims=dims)
    return idata, {
        "seconds": time.perf_counter() - t0,
        "cache_hit": hit,
        "mode": res.x,
        "optimizer": {
            "success": bool(res.success),
            "nit": int(res.nit),
            "message": str(res.message),
        },
        "draws": draws,
        "failed_blocks": failed,
        "refused_blocks": refused,
        "k_hat": k_hat,
        "ess_is": ess_is,
        "engine": "numpy" if spec.density is not None and block_size is None else "pytensor",
    }


class _PymcTarget:
    """The engine's view of a compiled ``pm.Model`` (raveled unconstrained vectors)."""

    def __init__(self, fns: _LaplaceFns):
        from pymc.blocking import DictToArrayBijection

        self.fns = fns
        self.x0 = DictToArrayBijection.map(fns.model.initial_point()).data
        model = fns.model
        self.dims = {nm: list(model.named_vars_to_dims.get(nm, ())) for nm in fns.out_names}
        self.coords = {k: list(v) for k, v in model.coords.items()}

    def point(self, x):
        from pymc.blocking import DictToArrayBijection, RaveledVars

        return DictToArrayBijection.rmap(RaveledVars(x, self.fns.info))

    def value_and_grad(self, x):
        pt_ = self.point(x)
        lp, g = self.fns.logp_dlogp(pt_)
        return float(lp), np.asarray(g, dtype=float)

    def grad(self, x):
        return np.asarray(self.fns.logp_dlogp(self.point(x))[1], dtype=float)

    def logp_rows(self, u):
        return np.asarray(self.fns.logp_rows(u), dtype=float)

    def expand(self, u) -> dict[str, np.ndarray]:
        vals = self.fns.expand(u)
        return {nm: np.asarray(v) for nm, v in zip(self.fns.out_names, vals, strict=True)}


class _NumpyTarget:
    """The engine's view of a model's numpy log density (``ModelSpec.density``): ``x0``,
    ``logp`` (vectorised over rows), ``grad``, ``expand``, ``dims`` and ``coords``.
    """

    def __init__(self, density):
        self.d = density
        self.x0 = np.asarray(density.x0, dtype=float)
        self.dims, self.coords = density.dims, density.coords

    def value_and_grad(self, x):
        return float(self.d.logp(x)), self.d.grad(x)

    def grad(self, x):
        return self.d.grad(x)

    def logp_rows(self, u):
        return np.asarray(self.d.logp(u), dtype=float)

    def expand(self, u) -> dict[str, np.ndarray]:
        return self.d.expand(u)


def _psis(logp, z):
    r"""Normalised PSIS weights of the Student-t draws (standardised ``z``) against ``logp``.

    For the Student-t proposal with :math:`\nu` degrees of freedom and scale :math:`c` in
    :math:`d` dimensions
    :math:`\log q(u) = -\tfrac{\nu+d}{2}\log(1 + \lVert z/c\rVert^2/\nu) + \text{const}`;
    constants cancel in the normalised weights.

    Returns
    -------
    (weights, k_hat, ess, refusal)
        ``refusal`` is None, or why the weights are not to be used (then ``weights`` is
        None): k-hat above :data:`K_HAT_MAX`, or fewer effective draws than
        :data:`MIN_IMPORTANCE_ESS` (a quarter of the draws when fewer than 800).
    """
    from arviz_stats.base import array_stats

    n, d = z.shape
    r2 = np.sum((z / PROPOSAL_SCALE) ** 2, axis=1)
    log_w = logp + 0.5 * (PROPOSAL_DF + d) * np.log1p(r2 / PROPOSAL_DF)
    finite = np.isfinite(log_w)
    lw = np.full(n, -np.inf)
    k_hat = np.nan
    if finite.sum() > 1:
        # a draw outside the support (log density -inf) has weight 0; PSIS smooths the
        # others (arviz-stats returns NaN for the whole vector when one entry is -inf).
        # arviz-stats' psislw takes the negated log ratios (LOO's log-likelihoods)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lw[finite], k_hat = array_stats.psislw(np.max(log_w[finite]) - log_w[finite])
    k_hat = float(k_hat)
    if not k_hat <= K_HAT_MAX:
        return (
            None,
            k_hat,
            float("nan"),
            (
                f"the Laplace approximation does not fit this posterior (Pareto k-hat "
                f"{k_hat:.2f} > {K_HAT_MAX}: the posterior is skewed or has mass the Gaussian "
                "misses); use method='nuts' (or 'exact' for one binary system)"
            ),
        )
    w = np.exp(lw - np.max(lw))
    w /= w.sum()
    ess = float(1.0 / np.sum(w**2))
    if ess < min(MIN_IMPORTANCE_ESS, 0.25 * n):
        return (
            None,
            k_hat,
            ess,
            (
                f"the Laplace approximation leaves {ess:.0f} effective draws of {n} after "
                f"its importance correction (fewer than {MIN_IMPORTANCE_ESS}): the posterior is "
                "far from Gaussian; use method='nuts'"
            ),
        )
    return w, k_hat, ess, None


def _importance_resample(target, u, z, rng):
    """PSIS check of the draws ``u`` (:func:`_psis`); the draws resampled by the weights."""
    logp = target.logp_rows(u)
    w, k_hat, ess_is, refusal = _psis(logp, z)
    if refusal:
        raise LaplaceError(refusal)
    idx = rng.choice(len(u), size=len(u), replace=True, p=w)
    return u[idx], k_hat, ess_is


def _block_t(z, blocks, rng):
    """Student-t scaling of standard normal ``z``, independently per block."""
    z = z.copy()
    for idx in blocks:
        chi = rng.chisquare(PROPOSAL_DF, size=(z.shape[0], 1))
        z[:, idx] *= PROPOSAL_SCALE / np.sqrt(chi / PROPOSAL_DF)
    return z


def _block_logp(fns):
    """Per-block log density by rows (the model's log-density terms summed elementwise).

    Every term of a block model has the block dim last.
    """
    if fns.block_logp is None:
        import pytensor.tensor as pt

        terms = fns.model.logp(sum=False, jacobian=True)
        fns.block_logp = _by_rows(fns.model, fns.info, pt.add(*terms))
    return fns.block_logp


def _block_importance(fns, u, z, blocks, failed, rng):
    """:func:`_importance_resample` block by block; refused blocks get NaN draws."""
    logp = np.asarray(_block_logp(fns)(np.nan_to_num(u)), float)
    nb = len(blocks)
    k_hat, ess_is = np.full(nb, np.nan), np.full(nb, np.nan)
    refused: list[int] = []
    out = u.copy()
    for r, idx in enumerate(blocks):
        if r in failed:
            continue
        w, k_hat[r], ess_is[r], refusal = _psis(logp[:, r], z[:, idx])
        if refusal:
            out[:, idx] = np.nan
            refused.append(r)
            continue
        out[:, idx] = u[rng.choice(len(u), size=len(u), replace=True, p=w)][:, idx]
    return out, k_hat, ess_is, refused
