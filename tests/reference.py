"""Independent scalar references: the paper's published code (Lee et al. 2025, App. C),
transcribed line by line, and textbook formulas written with plain floats."""

from math import sqrt

import numpy as np
from scipy.stats import norm


def clip(x, low=0.0, high=1.0):
    return max(low, min(high, x))


def point_estimator(p, q0, q1):
    th = (p + q0 - 1) / (q0 + q1 - 1)
    return clip(th)


def confidence_interval(p, q0, q1, n, m0, m1, alpha=0.05):
    z = norm.ppf(1 - alpha / 2)
    p, q0, q1 = (n * p + z**2 / 2) / (n + z**2), (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    n, m0, m1 = n + z**2, m0 + 2, m1 + 2
    th = (p + q0 - 1) / (q0 + q1 - 1)
    dth = 2 * z**2 * (-(1 - th) * q0 * (1 - q0) / m0 + th * q1 * (1 - q1) / m1)
    se = sqrt(p * (1 - p) / n + (1 - th) ** 2 * q0 * (1 - q0) / m0 + th**2 * q1 * (1 - q1) / m1) / (
        q0 + q1 - 1
    )
    return clip(th + dth - z * se), clip(th + dth + z * se)


def bt_mle_sandwich(n_items, winners, losers):
    """Bradley-Terry MLE and its sandwich covariance, sum-to-zero scale.

    Written from the textbook: maximise sum log sigma(theta_w - theta_l) over the free
    parameters phi = theta_1..theta_{N-1} (theta_0 = 0) with scipy's BFGS, then
    V_phi = A^-1 B A^-1 with A = sum pi(1-pi) z z' (observed information) and
    B = sum (y - pi)^2 z z' (score outer products), and map to the centred scale
    theta_c = C phi, C = I[:, 1:] - 1/N, Var = C V_phi C'.
    """
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    w, lo = np.asarray(winners), np.asarray(losers)
    n = w.size
    Z = np.zeros((n, n_items))
    Z[np.arange(n), w] += 1.0
    Z[np.arange(n), lo] -= 1.0
    Zf = Z[:, 1:]

    def nll(phi):
        return -log_expit(Zf @ phi).sum()

    def grad(phi):
        return -Zf.T @ (1 - expit(Zf @ phi))

    phi = minimize(nll, np.zeros(n_items - 1), jac=grad, method="BFGS", options={"gtol": 1e-9}).x
    pi = expit(Zf @ phi)  # P(the recorded winner wins)
    A = Zf.T @ (Zf * (pi * (1 - pi))[:, None])
    B = Zf.T @ (Zf * ((1 - pi) ** 2)[:, None])
    Ai = np.linalg.inv(A)
    V = Ai @ B @ Ai
    C = np.eye(n_items)[:, 1:] - 1.0 / n_items
    theta = C @ phi
    return theta, C @ V @ C.T


def dawid_skene_binary(verdicts, gold, n_iter=200):
    """Binary Dawid-Skene by EM (Dawid & Skene 1979), written from the paper's updates.

    ``verdicts``: (items, judges) array of 0/1 with NaN for a missing verdict; ``gold``:
    (items,) array of 0/1 with NaN where no true label is known (known labels are held
    fixed in the E-step).  Starts from the majority vote.  Returns (prevalence, tpr, tnr)
    with tpr_j = P(verdict 1 | true 1) and tnr_j = P(verdict 0 | true 0).
    """
    import numpy as np

    y = np.asarray(verdicts, dtype=float)
    g = np.asarray(gold, dtype=float)
    seen = ~np.isnan(y)
    y0 = np.where(seen, y, 0.0)
    known = ~np.isnan(g)
    t = np.nanmean(y, axis=1)
    t[known] = g[known]
    for _ in range(n_iter):
        pi = t.mean()
        tpr = (t[:, None] * y0).sum(0) / (t[:, None] * seen).sum(0)
        tnr = ((1 - t)[:, None] * (1 - y0) * seen).sum(0) / ((1 - t)[:, None] * seen).sum(0)
        tpr, tnr = np.clip(tpr, 1e-6, 1 - 1e-6), np.clip(tnr, 1e-6, 1 - 1e-6)
        l1 = np.where(seen, y0 * np.log(tpr) + (1 - y0) * np.log(1 - tpr), 0).sum(1)
        l0 = np.where(seen, y0 * np.log(1 - tnr) + (1 - y0) * np.log(tnr), 0).sum(1)
        z = np.log(pi) + l1 - np.log(1 - pi) - l0
        t = 1 / (1 + np.exp(-z))
        t[known] = g[known]
    return pi, tpr, tnr


def items_posterior_grid(n1, n0, h1, l1, h0, l0, nodes=120, theta_prior=(1.0, 1.0)):
    """Posterior of theta in the one-judge items design by midpoint quadrature.

    Beta(``theta_prior``) on theta; uniform on q1 = P(judge 1 | human 1) and
    q0 = P(judge 0 | human 0); the labelled items are the four (human, verdict) cells,
    the unlabelled ones verdicts only:
    n1 / n0 judged positive / negative in all, l1 / l0 of them labelled, h1 / h0 of those
    human-positive.  Returns (theta nodes, normalised posterior weight of each node).
    """
    x = (np.arange(nodes) + 0.5) / nodes
    th, q1, q0 = np.meshgrid(x, x, x, indexing="ij")
    u1, u0 = n1 - l1, n0 - l0
    p = th * q1 + (1 - th) * (1 - q0)
    loglik = (
        h1 * np.log(th * q1)
        + (l1 - h1) * np.log((1 - th) * (1 - q0))
        + h0 * np.log(th * (1 - q1))
        + (l0 - h0) * np.log((1 - th) * q0)
        + u1 * np.log(p)
        + u0 * np.log(1 - p)
    )
    a, b = theta_prior
    loglik = loglik + (a - 1) * np.log(th) + (b - 1) * np.log(1 - th)
    w = np.exp(loglik - loglik.max()).sum(axis=(1, 2))
    return x, w / w.sum()


def mrsw_rank_intervals(x, sigma, alpha, draws):
    """Simultaneous rank intervals by Mogstad, Romano, Shaikh and Wilhelm's step-down, as
    the R package csranks computes them (``csranks(x, Sigma, simul=TRUE, stepdown=TRUE)``):
    every ordered pair (j, k), j != k, is a hypothesis mu_j <= mu_k; the critical value is
    the 1 - alpha quantile of the largest (Z_j - Z_k) / sd_jk over the pairs not yet
    rejected; rejected pairs leave and the step repeats until none is new.  ``draws(step)``
    gives the step's (R, p) draws of N(0, Sigma) (csranks draws afresh each step).  Written
    with plain loops over pairs; returns the lower and upper rank (1 the best)."""
    x = [float(v) for v in x]
    p = len(x)
    sd = [[sqrt(max(sigma[j][j] + sigma[k][k] - 2 * sigma[j][k], 0.0)) for k in range(p)]
          for j in range(p)]  # fmt: skip
    active = {(j, k) for j in range(p) for k in range(p) if j != k}
    step = 0
    while True:
        z = draws(step)
        maxima = [max((z[r][j] - z[r][k]) / sd[j][k] for j, k in active) for r in range(len(z))]
        c = float(np.quantile(maxima, 1 - alpha))
        new = {(j, k) for j, k in active if (x[j] - x[k]) / sd[j][k] > c}
        if not new:
            break
        active -= new
        step += 1
        if not active:
            break
    above = [[(j, k) not in active and j != k for k in range(p)] for j in range(p)]
    lower = [1 + sum(above[k][j] for k in range(p)) for j in range(p)]
    upper = [p - sum(above[j][k] for k in range(p)) for j in range(p)]
    return lower, upper
