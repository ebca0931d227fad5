"""Mean-field ADVI against NUTS on the Bayesian leaderboard's one-parameter model: is the
fast approximation's interval the posterior's?

    python benchmarks/leaderboard_advi.py [--full-rank]

The model is the package's (``jb.LeaderboardStudy``'s ``model_spec``); ADVI is written
here (Adam on the reparameterised ELBO, a Gaussian with a mean and a scale per
unconstrained coordinate, started at the mode), not in the package.  On a simulated board
(20 systems x 400 items of ``tests.simulators.irt_board``) and on LiveCodeBench (20 models x
200 problems, 10 samples each): each system's ability, posterior mean and sd by both, the
ratio of ADVI's sd to NUTS's, and the items' spread ``sigma_item``; CPU seconds of each.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import optimize

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb
from judgebayes.inference.laplace import _functions, _PymcTarget
from tests.simulators import irt_board


def advi(spec, steps: int = 3000, mc: int = 4, lr: float = 0.05, seed: int = 0):
    """Mean-field ADVI of ``spec``'s model: the target and (mean, sd) per coordinate."""
    fns, _ = _functions(spec)
    target = _PymcTarget(fns)

    def negf(x):
        f, g = target.value_and_grad(x)
        return -f, -g

    mu = optimize.minimize(negf, target.x0, jac=True, method="L-BFGS-B").x
    omega = np.full(mu.size, -2.0)
    rng = np.random.default_rng(seed)
    m, v = np.zeros(2 * mu.size), np.zeros(2 * mu.size)
    for t in range(1, steps + 1):
        eps = rng.standard_normal((mc, mu.size))
        s = np.exp(omega)
        g = np.array([target.grad(mu + s * e) for e in eps])
        grad = -np.concatenate([g.mean(0), (g * eps).mean(0) * s + 1.0])
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        step = (
            lr * (1 - 0.9 * t / steps) * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        )
        mu, omega = mu - step[: mu.size], omega - step[mu.size :]
    return target, mu, np.exp(omega)


def full_rank(spec, steps: int = 3000, mc: int = 4, lr: float = 0.02, seed: int = 0):
    """Full-rank ADVI: a Gaussian with mean ``mu`` and Cholesky factor ``L`` (its diagonal
    on the log scale), Adam on the reparameterised ELBO, started at the mode and at the
    mean-field scale 0.14; returns the target, ``mu`` and ``L``."""
    fns, _ = _functions(spec)
    target = _PymcTarget(fns)

    def negf(x):
        f, g = target.value_and_grad(x)
        return -f, -g

    mu = optimize.minimize(negf, target.x0, jac=True, method="L-BFGS-B").x
    d = mu.size
    tril = np.tril_indices(d, -1)
    log_diag, off = np.full(d, -2.0), np.zeros(len(tril[0]))
    rng = np.random.default_rng(seed)
    params = [mu, log_diag, off]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        L = np.zeros((d, d))
        L[tril] = off
        L[np.diag_indices(d)] = np.exp(log_diag)
        eps = rng.standard_normal((mc, d))
        g = np.array([target.grad(mu + L @ e) for e in eps])
        gl = np.einsum("mi,mj->ij", g, eps) / mc  # d E[logp] / dL
        grads = [g.mean(0), np.diag(gl) * np.exp(log_diag) + 1.0, gl[tril]]
        step = lr * (1 - 0.9 * t / steps)
        for k, gr in enumerate(grads):
            gr = -gr
            m[k] = 0.9 * m[k] + 0.1 * gr
            v[k] = 0.999 * v[k] + 0.001 * gr**2
            params[k] = params[k] - step * (m[k] / (1 - 0.9**t)) / (
                np.sqrt(v[k] / (1 - 0.999**t)) + 1e-8
            )
        mu, log_diag, off = params
    L = np.zeros((d, d))
    L[tril] = off
    L[np.diag_indices(d)] = np.exp(log_diag)
    return target, mu, L


def compare(name: str, study, rank: str = "mean-field") -> None:
    c0 = time.process_time()
    if rank == "full":
        target, mu, chol = full_rank(study.model_spec())
    else:
        target, mu, sd = advi(study.model_spec())
        chol = np.diag(sd)
    c1 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = study.fit("nuts", random_seed=1)
    c2 = time.process_time()
    u = mu + np.random.default_rng(1).standard_normal((4000, mu.size)) @ chol.T
    draws = target.expand(u)
    a_advi = np.asarray(draws["ability"])
    post = fit.idata.posterior
    a_nuts = post["ability"].values.reshape(-1, a_advi.shape[-1])
    ratio = a_advi.std(0) / a_nuts.std(0)
    shift = np.abs(a_advi.mean(0) - a_nuts.mean(0)) / a_nuts.std(0)
    s_a, s_n = np.asarray(draws["sigma_item"]), post["sigma_item"].values.ravel()
    print(
        f"{name}, {rank}: ADVI {c1 - c0:.0f} s CPU, NUTS {c2 - c1:.0f} s CPU (gate passed "
        f"{fit.diagnostics.passed}); abilities: ADVI sd / NUTS sd {ratio.min():.3f}-"
        f"{ratio.max():.3f} (median {np.median(ratio):.3f}), |mean difference| / NUTS sd at "
        f"most {shift.max():.2f}; sigma_item {s_a.mean():.3f} (sd {s_a.std():.3f}) against "
        f"{s_n.mean():.3f} (sd {s_n.std():.3f})",
        flush=True,
    )


def main() -> None:
    rank = "full" if "--full-rank" in sys.argv else "mean-field"
    frame, _ = irt_board(np.random.default_rng(7), np.linspace(-1.5, 1.5, 20), n_items=400)
    compare("simulated 20 x 400", jb.LeaderboardStudy.from_frame(frame), rank)
    from judgebayes.datasets import livecodebench_generation

    lcb = livecodebench_generation()
    models = sorted(lcb["model"].unique())[:20]
    problems = sorted(lcb["question_id"].unique())[:200]
    sub = lcb[lcb["model"].isin(models) & lcb["question_id"].isin(problems)]
    study = jb.LeaderboardStudy.from_frame(
        sub, system="model", item="question_id", score="n_correct", trials="n_samples"
    )
    compare("LiveCodeBench 20 x 200", study, rank)


if __name__ == "__main__":
    main()
