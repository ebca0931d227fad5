"""Fig. 6b coverage study: vectorised judgebayes vs a per-replicate scalar loop.

21 theta values x 10,000 replications, n = 1000, m0 = m1 = 100, q0 = 0.7, q1 = 0.9.
Both methods get the same simulated counts.  The scalar baseline is the paper's
published code (Lee et al. 2025, App. C: math.sqrt and scipy's norm.ppf per call), run
once per replicate the way it is published.  Prints both timings, the ratio, and checks
that the intervals agree.

Usage: python benchmarks/closed_form_coverage.py [--reps R]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import judgebayes as jb
from tests.reference import confidence_interval, point_estimator


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10_000)
    args = ap.parse_args()
    thetas = np.linspace(0, 1, 21)
    q0, q1, n, m0, m1 = 0.7, 0.9, 1000, 100, 100
    sim = jb.simulate.simulate_accuracy(
        thetas, q0, q1, n, m0=m0, m1=m1, reps=args.reps, random_seed=2025
    )
    p_hat, q0_hat, q1_hat = sim.k / n, sim.tn / m0, sim.tp / m1
    truth = sim.theta

    # vectorised: best of 5
    best = np.inf
    for _ in range(5):
        t0 = time.perf_counter()
        ci = jb.estimators.lang_reiczigel_interval(p_hat, q0_hat, q1_hat, n, m0, m1)
        est = jb.estimators.rogan_gladen(p_hat, q0_hat, q1_hat)
        cov_vec = ((ci.lower <= truth) & (truth <= ci.upper)).mean(axis=1)
        best = min(best, time.perf_counter() - t0)
    t_vec = best

    # scalar loop: the published code, once per replicate (one run: it is slow)
    t0 = time.perf_counter()
    lo_s = np.empty(p_hat.size)
    hi_s = np.empty(p_hat.size)
    est_s = np.empty(p_hat.size)
    for i, (p, a0, a1) in enumerate(
        zip(p_hat.ravel(), q0_hat.ravel(), q1_hat.ravel(), strict=True)
    ):
        lo_s[i], hi_s[i] = confidence_interval(p, a0, a1, n, m0, m1)
        est_s[i] = point_estimator(p, a0, a1)
    lo_s, hi_s = lo_s.reshape(p_hat.shape), hi_s.reshape(p_hat.shape)
    cov_scalar = ((lo_s <= truth) & (truth <= hi_s)).mean(axis=1)
    t_scalar = time.perf_counter() - t0

    # agreement: identical wherever the published interval is not collapsed to a point
    # (where it is, judgebayes reports a flagged one-sided interval instead)
    degen = np.asarray(ci.degenerate)
    ok = ~degen
    max_diff = max(
        np.abs(ci.lower[ok] - lo_s[ok]).max(),
        np.abs(ci.upper[ok] - hi_s[ok]).max(),
        np.abs(est - est_s.reshape(est.shape)).max(),
    )
    assert max_diff < 1e-12, max_diff
    assert np.all(lo_s[degen] == hi_s[degen]), "published code collapses degenerate cases"

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, numpy {np.__version__}"
    )
    print(f"study: 21 theta x {args.reps} replications = {p_hat.size} intervals")
    print(f"coverage (judgebayes): min {cov_vec.min():.4f} max {cov_vec.max():.4f}")
    print(f"coverage (published):  min {cov_scalar.min():.4f} max {cov_scalar.max():.4f}")
    print(f"degenerate (collapsed by the published code, one-sided here): {int(degen.sum())}")
    print(f"max |difference| elsewhere: {max_diff:.2e}")
    print(f"vectorised: {t_vec * 1e3:.1f} ms (best of 5)")
    print(f"scalar loop: {t_scalar:.2f} s")
    print(f"ratio: {t_scalar / t_vec:.0f}x")


if __name__ == "__main__":
    main()
