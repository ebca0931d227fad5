r"""Does the judge err the same way on every system's items?  (labelled items)

Shared judge rates (``judge_rates="shared"`` in Laplace and NUTS) assume that the judge's
positive rate given the human label, :math:`q_1` or :math:`1 - q_0`, is the same for every
system; a judge that favours its own family's answers breaks that.  Pooled and per-system
rates, the closed form and ``exact`` do not assume it (their fits read a flag as a warning).

For every judge and human label :math:`h`, over the labelled items with that label: a
logistic regression of the verdict :math:`v_j` on an intercept (and the standardised
covariates, where the study has them), with and without system indicators, and the
likelihood ratio between the two.  Labelling may depend on the verdicts, the system and
the stratum (the design every estimator here allows): if cell :math:`(s, t, c)` (system,
stratum, verdict category) had its items labelled with probability :math:`\pi_{stc}`,
then among labelled items

.. math::
    \operatorname{logit} P(v_j = 1 \mid h, s, \text{labelled})
      = \operatorname{logit} q_{jh} + \log\frac{\pi_{s,t,c(v_j=1)}}{\pi_{s,t,c(v_j=0)}},

where :math:`c(v_j = \cdot)` is the category the item would be in with judge :math:`j`'s
verdict set so and the other judges' as they are (judges independent given the label).
The log ratio enters both regressions as an offset, with :math:`\pi` the labelled share
of each cell; items of a cell whose other verdict has no labelled item tell nothing and
are left out.  Without the offset, labels stratified by the verdict with equal counts
per system made shared rates look different.  ``p_raw`` is a
parametric bootstrap: :data:`PERMUTATIONS` verdict sets drawn from the fit without system
terms, each fitted both ways (calibrated with 30 labels a system where the chi-square is
not).  ``observed`` is the largest mean of a system's verdicts minus their fitted
probabilities without system terms, ``expected`` the labelled verdicts' mean.  Fewer than
two systems with labels: no rows.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit

from judgebayes.checks.base import Check, register
from judgebayes.models.items import standardise

__all__ = ["CHECK", "PERMUTATIONS"]

#: random relabellings (or bootstrap sets) behind the p-values
PERMUTATIONS = 2000
#: the seed of the check's relabellings: the same data, the same table
SEED = 20261125
#: ridge on the non-intercept logit coefficients of the conditional test (a N(0, 10)
#: prior's weight): keeps a fit finite when a system's labelled items are all one verdict
RIDGE = 0.1
#: and on the intercept, so that a verdict set that is all one value (a bootstrap draw of
#: a near-perfect judge's few labels) has a finite fit instead of a singular Hessian
RIDGE_INTERCEPT = 1e-3


def _label(h: int) -> str:
    return "sensitivity" if h == 1 else "1 - specificity"


def _logistic(
    X: np.ndarray, Y: np.ndarray, offset: np.ndarray, iters: int = 50
) -> tuple[np.ndarray, np.ndarray]:
    """Ridge logistic regressions of each row of ``Y`` (B, n) on ``X`` (n, p) with a fixed
    ``offset`` (n,) on the logit, by Newton at once; returns (fitted probabilities (B, n),
    penalised log likelihoods (B,)).  The first column of ``X`` is the intercept
    (penalised by :data:`RIDGE_INTERCEPT` only).  Newton steps are capped at 5 on the
    logit scale (near separation); a row stops when its step is below 1e-8.
    """
    k = X.shape[1]
    pen = np.full(k, RIDGE)
    pen[0] = RIDGE_INTERCEPT
    beta = np.zeros((Y.shape[0], k))
    # each row's Hessian as one product: the weights times the rows' outer products
    outer = (X[:, :, None] * X[:, None, :]).reshape(len(X), k * k)
    active = np.arange(Y.shape[0])  # the rows still moving
    for _ in range(iters):
        b = beta[active]
        mu = expit(b @ X.T + offset)
        g = (Y[active] - mu) @ X - pen * b
        H = ((mu * (1 - mu)) @ outer).reshape(-1, k, k) + np.diag(pen)
        step = np.clip(np.linalg.solve(H, g[..., None])[..., 0], -5.0, 5.0)
        beta[active] = b + step
        active = active[np.max(np.abs(step), axis=1) >= 1e-8]
        if not active.size:
            break
    eta = beta @ X.T + offset
    ll = (Y * log_expit(eta) + (1 - Y) * log_expit(-eta)).sum(1) - 0.5 * (pen * beta**2).sum(1)
    return expit(eta), ll


def _offsets(d, votes: np.ndarray, j: int) -> np.ndarray:
    """Each item's log ratio of the labelled shares of its cell with judge ``j``'s verdict
    positive and negative (the other judges' votes as they are); NaN where a share is 0.
    """
    n_cat = d.n_judges + 1
    base = (d.system * len(d.strata) + d.stratum) * n_cat
    size = base.max() + n_cat if base.size else 0
    n = np.bincount(base + d.category, minlength=size).astype(float)
    lab = np.bincount(base + d.category, weights=d.labelled, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, lab / n, np.nan)
        others = d.category - votes[:, j].astype(np.int64)
        return np.log(share[base + others + 1]) - np.log(share[base + others])


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    d = study.data
    votes = d.judge[:, None] if d.votes is None else d.votes
    names = d.judges or (d.columns.get("judge") or "judge",)
    z = None if d.covariates is None else standardise(d.covariates)[0]
    given = "" if z is None else f", given {', '.join(d.covariate_names)}"
    rng = np.random.default_rng(SEED)
    rows = []
    for j, judge in enumerate(names):
        off_all = _offsets(d, votes, j)
        for h in (1, 0):
            keep = d.labelled & (d.human == h) & np.isfinite(off_all)
            present = np.unique(d.system[keep])
            if present.size < 2 or keep.sum() < 3:
                continue
            code = np.searchsorted(present, d.system[keep])
            v, off = votes[keep, j].astype(float), off_all[keep]
            x0 = np.ones((v.size, 1)) if z is None else np.column_stack([np.ones(v.size), z[keep]])
            x1 = np.column_stack([x0, np.eye(present.size)[code][:, 1:]])
            p0, l0 = _logistic(x0, v[None], off)
            _, l1 = _logistic(x1, v[None], off)
            t0 = 2 * (l1[0] - l0[0])
            ystar = (rng.random((PERMUTATIONS, v.size)) < p0).astype(float)
            _, b0 = _logistic(x0, ystar, off)
            _, b1 = _logistic(x1, ystar, off)
            p = (1 + np.sum(2 * (b1 - b0) >= t0 - 1e-9)) / (PERMUTATIONS + 1)
            n_s = np.bincount(code, minlength=present.size)
            gap = np.bincount(code, weights=v - p0[0], minlength=present.size) / n_s
            rows.append(
                {
                    "unit": f"{judge} | human {h} ({_label(h)}) across {present.size} "
                    f"systems{given}",
                    "observed": float(np.max(np.abs(gap))),
                    "expected": float(v.mean()),
                    "p_raw": float(p),
                    "n": int(v.size),
                }
            )
    return rows


CHECK = register(
    Check(
        "self_preference",
        _rows,
        applies_to=("items",),
        assumption="the judge's sensitivity and specificity are the same on every system's "
        "items (given the covariates, where there are any): judge_rates='shared'",
        tests=lambda study, fit: (
            fit.method in ("nuts", "laplace") and fit.info.get("judge_rates") == "shared"
        ),
    )
)
