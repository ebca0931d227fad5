r"""A Laplace approximation of the leaderboard model that integrates its spreads.

The one-parameter board (:func:`~judgebayes.models.leaderboard.board_model`) splits into
a latent field :math:`x` and a few spreads :math:`\psi`:

* :math:`x`: the abilities :math:`\alpha_s`, the difficulties :math:`b_i` and, with a
  judge, each system's logit sensitivity and specificity :math:`a_s, c_s` and their means
  :math:`\mu_a, \mu_c`; given :math:`\psi` their prior is Gaussian;
* :math:`\psi`: :math:`\log\sigma_b` (the items' spread), with several trials a cell
  :math:`\log\phi` (the beta-binomial cells' concentration), with a judge
  :math:`\log\tau_a, \log\tau_c` (its rates' spreads over systems).

A Gaussian at the joint mode cannot represent :math:`\psi` (the density of a centred
hierarchy grows without bound as a spread shrinks to 0, the funnel the generic
:mod:`~judgebayes.inference.laplace` refuses), so the spreads are integrated instead, as
in INLA (Rue, Martino and Chopin 2009).  For a given :math:`\psi`, Newton's method finds
the field's mode :math:`\hat x_\psi` and its precision :math:`Q_\psi = -\nabla^2 \log
p(x \mid y, \psi)`, and

.. math::
    \log p(\psi \mid y) \approx \log p(y, \hat x_\psi, \psi)
        - \tfrac12 \log\det Q_\psi + \text{const}.

Its mode and curvature give a Gaussian proposal for :math:`\psi`; ``points``
quasi-random :math:`\psi_k` from it (scale widened by :data:`PSI_WIDEN`) are weighted by
:math:`p(\psi_k \mid y) / q(\psi_k)`, and each gives its share of the draws from
:math:`N(\hat x_{\psi_k}, Q_{\psi_k}^{-1})`.  When those weights leave fewer than a
quarter of the points effective, the spreads' posterior is not near the Gaussian the
points are drawn from, and the fit is refused.

Only the items' block of :math:`Q` is large, and it is diagonal (an item's difficulty
meets the other items only through the systems), so every solve, determinant and draw
goes through the Schur complement of that block: the cost is that of the cells plus one
dense matrix of the system block's size.  Newton's steps and the draws use the observed
information, or the expected where the observed is not positive definite (a judge's
likelihood far from its mode).

The Gaussian at the joint mode is biased: each difficulty is learnt from a few outcomes
(one a system), its posterior is skewed, and maximising over hundreds of them moves the
judge's rates by several posterior sds (the incidental-parameter problem) and pulls the
extreme systems' rates toward the middle (on nine systems of abilities -3 to 2 and 300
items, the weakest and the strongest were off by 0.015-0.019 and their 90% intervals
covered 0.78-0.82).  So on judged boards, and on boards of fewer than
:data:`NESTED_SYSTEMS` systems, the items are integrated out one by one first
(:mod:`judgebayes.inference.leaderboard.items`), and the Gaussian given :math:`\psi` is
that of the systems' block alone; its first mode starts from the joint one.

The items' difficulties are independent :math:`N(0, \sigma_b^2)` here, where the NUTS
model makes them sum to zero: that moves the abilities and difficulties together by an
amount of sd :math:`\sigma_b / \sqrt{I}`, and leaves every success probability, hence
every estimand, unchanged.
"""

from __future__ import annotations

import time

import numpy as np
from scipy import linalg, optimize, special, stats

from judgebayes.errors import MethodRefused
from judgebayes.inference.leaderboard.field import BoardCells, field_mode, spreads
from judgebayes.inference.leaderboard.items import nested_mode
from judgebayes.models.leaderboard import BoardPriors

__all__ = ["PSI_WIDEN", "BoardCells", "fit_board_laplace"]

#: scale of the spreads' proposal relative to their Laplace Gaussian: wider, so that the
#: importance weights stay bounded in its tails
PSI_WIDEN = 1.5
#: below this many systems (each difficulty learnt from as many outcomes) an unjudged
#: board's items are integrated one by one; from it on the Gaussian at the joint mode is
#: close (100 x 1,000 boards covered 0.896 at 90%) and much cheaper
NESTED_SYSTEMS = 50
#: degrees of freedom of the judged board's Student-t points: as a judge's spread shrinks,
#: its log posterior falls only linearly on the log scale, and a Gaussian's points would
#: leave the weight of that tail to one point
PSI_DF = 4
#: finite-difference step of the curvature of :math:`\log p(\psi \mid y)` (log scale)
PSI_STEP = 0.05
#: Newton solves a fit takes at the least beside two per point (the spreads' mode and
#: curvature): the budget's forecast after its first solves
LEAST_SOLVES = 30


class _OverBudget(Exception):
    """The fit would pass its CPU budget."""


class _Marginal:
    r""":math:`\log p(\psi \mid y)` up to a constant, warm-starting each field mode from
    the last.
    """

    def __init__(self, c: BoardCells, pr: BoardPriors, budget: float = np.inf, points: int = 1):
        self.c, self.pr, self.solves, self.fresh = c, pr, 0, True
        self.budget, self.least = budget, LEAST_SOLVES + 2 * points
        self.t0 = time.process_time()
        S, n_i = c.shape
        self.start = (np.zeros(c.n_sys), np.zeros(n_i if c.items else 0))
        if c.judged:  # the judge's logits start at their prior mean
            self.start[0][S:] = pr.judge_mu

    def __call__(self, psi) -> float:
        return self.at(psi)[0]

    def at(self, psi):
        self._spend()
        self.solves += 1
        psi = np.asarray(psi, float)
        nested = self.c.judged or self.c.shape[0] < NESTED_SYSTEMS
        if self.c.items and nested:  # the items integrated one by one (leaderboard/items)
            if self.fresh:
                self.start, _, _ = field_mode(psi, self.start, self.c, self.pr)
                self.fresh = False
            mode, F, fac = nested_mode(psi, self.start, self.c, self.pr)
            self.start = mode
            return F - float(np.log(np.diag(fac.chol)).sum()), mode, fac
        mode, loc, fac = field_mode(psi, self.start, self.c, self.pr)
        self.start = mode
        return loc.logp - 0.5 * fac.logdet(), mode, fac

    def _spend(self) -> None:
        """Refuse once the CPU time spent, or forecast from the solves so far, passes the
        budget.
        """
        spent = time.process_time() - self.t0
        if spent > self.budget:
            raise _OverBudget(spent, self.solves, spent)
        if self.solves >= 2:
            forecast = spent / self.solves * max(self.least, self.solves + 1)
            if forecast > self.budget:
                raise _OverBudget(spent, self.solves, forecast)


def _curvature(f, x0: np.ndarray, h: float) -> np.ndarray:
    """Central finite-difference Hessian of ``f`` at ``x0``."""
    d = x0.size
    eye = np.eye(d) * h
    f0 = f(x0)
    H = np.empty((d, d))
    for i in range(d):
        H[i, i] = (f(x0 + eye[i]) - 2 * f0 + f(x0 - eye[i])) / h**2
        for j in range(i):
            H[i, j] = H[j, i] = (
                f(x0 + eye[i] + eye[j])
                - f(x0 + eye[i] - eye[j])
                - f(x0 - eye[i] + eye[j])
                + f(x0 - eye[i] - eye[j])
            ) / (4 * h**2)
    return H


def _psi_points(marg: _Marginal, points: int, rng):
    """The spreads' mode, the points, their normalised weights and the points' modes."""
    c = marg.c
    if c.n_psi == 0:
        return np.zeros(0), np.zeros((1, 0)), np.ones(1), [marg.start]
    first = {"sigma_item": 1.0, "concentration": 7.0}  # the judge's spreads: 0.3
    psi0 = np.log([first.get(n, 0.3) for n in c.psi_names])
    if c.n_psi == 1:
        res = optimize.minimize_scalar(lambda v: -marg([v]), bracket=(psi0[0] - 0.5, psi0[0]))
        mode = np.array([res.x])
    else:
        opts: dict[str, object] = {"xatol": 1e-3, "fatol": 1e-5}
        if c.judged:  # each point a nested solve: a wide first simplex and a looser stop
            # (the importance weights correct a mode that is a little off)
            step = np.vstack([np.zeros(c.n_psi), 0.5 * np.eye(c.n_psi)])
            opts = {"xatol": 1e-2, "fatol": 1e-3, "initial_simplex": psi0 + step}
        mode = optimize.minimize(lambda v: -marg(v), psi0, method="Nelder-Mead", options=opts).x
    at_mode = marg.start
    H = -_curvature(marg, mode, PSI_STEP)
    marg.start = at_mode
    try:
        root = linalg.cholesky(linalg.inv(H), lower=True) * PSI_WIDEN
    except linalg.LinAlgError:
        raise MethodRefused(
            "the leaderboard's spreads (items, judge) have no peaked posterior on this "
            "board; use method='nuts'",
            method="laplace",
        ) from None
    u = stats.qmc.Sobol(c.n_psi + c.judged, scramble=True, seed=rng).random(points)
    z = stats.norm.ppf(u[:, : c.n_psi])
    if c.judged:  # Student-t points: a judge's log spread has an exponential left tail
        z /= np.sqrt(stats.chi2.ppf(u[:, -1], PSI_DF) / PSI_DF)[:, None]
        q = stats.multivariate_t(mode, root @ root.T, df=PSI_DF)
    else:
        q = stats.multivariate_normal(mode, root @ root.T)
    psi = mode + z @ root.T
    logq = np.asarray(q.logpdf(psi)).reshape(-1)
    logp, modes = np.empty(points), []
    for j, v in enumerate(psi):
        logp[j], m, _ = marg.at(v)
        modes.append(m)
    lw = logp - logq
    w = np.exp(lw - lw.max())
    return mode, psi, w / w.sum(), modes


def fit_board_laplace(
    c: BoardCells, pr: BoardPriors, *, draws: int, points: int, rng, budget: float = np.inf
) -> tuple[dict, dict]:
    """Draws of the one-parameter board's posterior (module docstring).

    Parameters
    ----------
    c : BoardCells
        The board's counts.
    pr : BoardPriors
        The priors' settings.
    draws : int
        Draws in all, shared among the spreads' points by their weights.
    points : int
        Points at which the spreads are integrated (a power of 2; 1 without spreads).
    rng : numpy.random.Generator
        The draws' generator.
    budget : float
        CPU seconds the fit may take: refused once spent, or as soon as the first Newton
        solves forecast that it would be (at least :data:`LEAST_SOLVES` solves and two a
        point).

    Returns
    -------
    dict
        ``ability`` (draws, S), with item effects ``difficulty`` (draws, I) and
        ``sigma_item`` (draws,), with a judge ``sensitivity``, ``specificity`` (draws,
        S), ``tau_*`` and ``mu_*`` (draws,).
    dict
        ``psi_mode`` (the spreads at their posterior mode), ``psi_ess`` (the effective
        points of the weights), ``points`` and ``newton_solves``.

    Raises
    ------
    MethodRefused
        When a precision is not positive definite, the spreads' posterior has no
        curvature, the weights leave under a quarter of the points effective, or the fit
        would pass its budget.
    """
    marg = _Marginal(c, pr, budget, points if c.n_psi else 1)
    try:
        return _fit(marg, c, draws, points, rng)
    except _OverBudget as e:
        spent, solves, forecast = e.args
        raise MethodRefused(
            f"the leaderboard's Laplace fit would take about {forecast:.0f} CPU seconds on "
            f"this {c.shape[0]} x {c.shape[1]} board (forecast from {solves} Newton "
            f"solve(s) in {spent:.1f} s), past its budget of {marg.budget:g}: use "
            "method='nuts', or fit('laplace', budget=...) to allow it",
            method="laplace",
        ) from None


def _fit(marg: _Marginal, c: BoardCells, draws: int, points: int, rng) -> tuple[dict, dict]:
    psi_mode, psi, w, modes = _psi_points(marg, points if c.n_psi else 1, rng)
    ess = float(1 / np.sum(w**2))
    if ess < len(w) / 4:
        raise MethodRefused(
            f"the leaderboard's spreads (items, judge) are far from the Gaussian the "
            f"Laplace fit integrates them over ({ess:.1f} of {len(w)} points effective); "
            "use method='nuts'",
            method="laplace",
        )
    counts = rng.multinomial(draws, w)
    out: dict[str, list] = {}
    for v, m, count in zip(psi, modes, counts, strict=True):
        if count == 0:
            continue
        marg.start = m
        _, (xs, b), fac = marg.at(v)
        ds, db = fac.draw(int(count), rng)
        _collect(out, xs + ds, b + db, v, c)
    order = rng.permutation(draws)  # the points' draws interleaved
    res = {k: np.concatenate(v)[order] for k, v in out.items()}
    info = {
        "psi_mode": dict(zip(c.psi_names, np.exp(psi_mode).round(6).tolist(), strict=True)),
        "psi_ess": round(ess, 2),
        "points": len(w),
        "newton_solves": marg.solves,
    }
    return res, info


def _collect(out: dict, xs: np.ndarray, b: np.ndarray, psi, c: BoardCells) -> None:
    """The named draws of one point's field (appended to ``out``)."""
    S = c.shape[0]
    count = xs.shape[0]
    named = {"ability": xs[:, :S]}
    sp = spreads(psi, c)
    if c.items:
        named |= {"difficulty": b, "sigma_item": np.full(count, sp["sigma_item"])}
    if c.overdispersed:
        named["concentration"] = np.full(count, sp["concentration"])
    if c.judged:
        named |= {
            "sensitivity": special.expit(xs[:, S : 2 * S]),
            "specificity": special.expit(xs[:, 2 * S : 3 * S]),
            "mu_sensitivity": xs[:, 3 * S],
            "mu_specificity": xs[:, 3 * S + 1],
            "tau_sensitivity": np.full(count, sp["tau_sensitivity"]),
            "tau_specificity": np.full(count, sp["tau_specificity"]),
        }
    for k, v in named.items():
        out.setdefault(k, []).append(v)
