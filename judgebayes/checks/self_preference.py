r"""Does the judge err the same way on every system's items?  (labelled items)

Shared judge rates (``judge_rates="shared"`` in Laplace and NUTS) assume that the judge's
positive rate given the human label, :math:`q_1` or :math:`1 - q_0`, is the same for every
system; a judge that favours its own family's answers breaks that.  Pooled and per-system
rates, the closed form and ``exact`` do not assume it (their fits read a flag as a warning).

For every judge and human label, the labelled items' table of system x verdict:
``observed`` is the largest distance of a system's rate from the pooled one, ``expected``
the pooled rate, and ``p_raw`` a permutation test of the Pearson statistic
(:data:`PERMUTATIONS` relabellings of the systems within the human label, seeded, exact for
any counts).  With item covariates (the covariate model) the question is whether the system
still explains the verdicts once the covariates do: the likelihood ratio of a ridge logistic
regression of the verdict on the standardised covariates with and without system
indicators, its p-value a parametric bootstrap of :data:`PERMUTATIONS` verdict sets drawn
from the covariates-only fit (calibrated with 30 labels a system where the chi-square is
not).  Fewer than two systems with labels: no rows.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit

from judgebayes.checks.base import Check, register
from judgebayes.models.accuracy import standardise

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


def _unconditional(study) -> list[dict]:
    d = study.data
    rng = np.random.default_rng(SEED)
    votes = d.judge[:, None] if d.votes is None else d.votes
    names = d.judges or (d.columns.get("judge") or "judge",)
    rows = []
    for j, judge in enumerate(names):
        for h in (1, 0):
            keep = d.labelled & (d.human == h)
            sys_, v = d.system[keep], votes[keep, j].astype(float)
            present = np.unique(sys_)
            if present.size < 2 or v.size < 3:
                continue
            code = np.searchsorted(present, sys_)
            k = present.size
            n_s = np.bincount(code, minlength=k).astype(float)
            pooled = v.mean()
            onehot = np.eye(k)[code]  # (n, systems)

            def stat(x, onehot=onehot, n_s=n_s, pooled=pooled):
                pos = x @ onehot  # positives per system, for every relabelling at once
                exp1 = n_s * pooled
                with np.errstate(invalid="ignore", divide="ignore"):
                    terms = (pos - exp1) ** 2 * (1 / exp1 + 1 / (n_s - exp1))
                return np.nansum(terms, axis=-1)

            t0 = stat(v[None])[0]
            perm = rng.permuted(np.broadcast_to(v, (PERMUTATIONS, v.size)), axis=1)
            p = (1 + np.sum(stat(perm) >= t0 - 1e-9)) / (PERMUTATIONS + 1)
            if 0 < pooled < 1:
                rates = np.bincount(code, weights=v, minlength=k) / n_s
                far = float(np.max(np.abs(rates - pooled)))
            else:
                far, p = 0.0, 1.0
            rows.append(
                {
                    "unit": f"{judge} | human {h} ({_label(h)}) across {k} systems",
                    "observed": far,
                    "expected": float(pooled),
                    "p_raw": float(p),
                    "n": int(v.size),
                }
            )
    return rows


def _logistic(X: np.ndarray, Y: np.ndarray, iters: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Ridge logistic regressions of each row of ``Y`` (B, n) on ``X`` (n, p), by Newton
    at once; returns (fitted probabilities (B, n), penalised log likelihoods (B,)).
    The first column of ``X`` is the intercept (penalised by :data:`RIDGE_INTERCEPT`
    only).  Newton steps are capped at 5 on the logit scale (near separation).
    """
    pen = np.full(X.shape[1], RIDGE)
    pen[0] = RIDGE_INTERCEPT
    beta = np.zeros((Y.shape[0], X.shape[1]))
    for _ in range(iters):
        mu = expit(beta @ X.T)
        g = (Y - mu) @ X - pen * beta
        H = np.einsum("bn,np,nq->bpq", mu * (1 - mu), X, X) + np.diag(pen)
        step = np.clip(np.linalg.solve(H, g[..., None])[..., 0], -5.0, 5.0)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-8:
            break
    eta = beta @ X.T
    ll = (Y * log_expit(eta) + (1 - Y) * log_expit(-eta)).sum(1) - 0.5 * (pen * beta**2).sum(1)
    return expit(eta), ll


def _given_covariates(study) -> list[dict]:
    d = study.data
    z, _, _ = standardise(d.covariates)
    rng = np.random.default_rng(SEED)
    judge = d.columns.get("judge") or "judge"
    rows = []
    for h in (1, 0):
        keep = d.labelled & (d.human == h)
        present = np.unique(d.system[keep])
        if present.size < 2 or keep.sum() < 3:
            continue
        code = np.searchsorted(present, d.system[keep])
        v = d.judge[keep].astype(float)
        x0 = np.column_stack([np.ones(v.size), z[keep]])
        x1 = np.column_stack([x0, np.eye(present.size)[code][:, 1:]])
        p0, l0 = _logistic(x0, v[None])
        _, l1 = _logistic(x1, v[None])
        t0 = 2 * (l1[0] - l0[0])
        ystar = (rng.random((PERMUTATIONS, v.size)) < p0).astype(float)
        _, b0 = _logistic(x0, ystar)
        _, b1 = _logistic(x1, ystar)
        p = (1 + np.sum(2 * (b1 - b0) >= t0 - 1e-9)) / (PERMUTATIONS + 1)
        n_s = np.bincount(code, minlength=present.size)
        gap = np.bincount(code, weights=v - p0[0], minlength=present.size) / n_s
        rows.append(
            {
                "unit": f"{judge} | human {h} ({_label(h)}) across {present.size} systems, "
                f"given {', '.join(d.covariate_names)}",
                "observed": float(np.max(np.abs(gap))),
                "expected": float(v.mean()),
                "p_raw": float(p),
                "n": int(v.size),
            }
        )
    return rows


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    d = study.data
    if d.covariates is not None and d.n_judges == 1:
        return _given_covariates(study)
    return _unconditional(study)


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
