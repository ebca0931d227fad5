"""Bayesian accuracy engines, each timed against its baseline in one process.

1. Warm refit of a compiled model (nutpie, data swapped in) vs one ``pm.Sample`` call per
   dataset (PyMC compiles and samples each time).
2. Bayesian coverage study over 21 theta x R datasets with the exact engine vs the
   per-dataset NUTS path (warm refits), extrapolated from a timed sample of it.
3. Cold first fit in a new process (import + compile + sample), wall time.

Usage: python benchmarks/bayes_accuracy.py [--reps 1000] [--nodes 16]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings

import numpy as np

import judgebayes as jb

warnings.filterwarnings("ignore")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=16)
    ap.add_argument("--pm-sample-runs", type=int, default=3)
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores")
    sim = jb.simulate.simulate_accuracy(
        np.linspace(0, 1, 21), 0.7, 0.9, 1000, m0=100, m1=100, reps=5, random_seed=1
    )
    datasets = list(zip(sim.k.ravel(), sim.tp.ravel(), sim.tn.ravel(), strict=True))

    def study(i):
        k, tp, tn = datasets[i]
        return jb.AccuracyStudy.from_counts(
            k=int(k), n=1000, tn=int(tn), m0=100, tp=int(tp), m1=100
        )

    # 1. warm refit vs pm.sample per dataset
    study(0).fit("nuts", random_seed=0)  # compile once
    t0 = time.perf_counter()
    nw = 20
    for i in range(nw):
        study(i).fit("nuts", random_seed=i)
    warm = (time.perf_counter() - t0) / nw
    t0 = time.perf_counter()
    for i in range(args.pm_sample_runs):
        study(i).fit("nuts", random_seed=i, sampler={"backend": "pymc"})
    cold = (time.perf_counter() - t0) / args.pm_sample_runs
    print(
        f"1. warm nutpie refit: {warm:.3f} s/dataset; pm.sample per dataset: {cold:.2f} s; "
        f"ratio {cold / warm:.0f}x"
    )

    # 2. coverage study: exact engine vs the per-dataset NUTS path
    n_sets = 21 * args.reps
    t0 = time.perf_counter()
    ds = jb.simulate.bayesian_coverage_study(
        np.linspace(0, 1, 21),
        0.7,
        0.9,
        1000,
        m0=100,
        m1=100,
        reps=args.reps,
        nodes=args.nodes,
        random_seed=0,
    )
    t_exact = time.perf_counter() - t0
    cov = ds.coverage.sel(estimator="bayes_exact").values
    print(
        f"2. coverage study, {n_sets} datasets: exact engine ({args.nodes} nodes) {t_exact:.1f} s; "
        f"per-dataset NUTS (warm) extrapolated {warm * n_sets:.0f} s; "
        f"ratio {warm * n_sets / t_exact:.0f}x"
    )
    print(
        f"   Bayesian coverage interior (0.05..0.95): {cov[1:-1].min():.3f}..{cov[1:-1].max():.3f};"
        f" at theta=0/1: {cov[0]:.3f}/{cov[-1]:.3f}"
    )
    lr = ds.coverage.sel(estimator="lang_reiczigel").values
    print(f"   Lang-Reiczigel on the same data: {lr.min():.3f}..{lr.max():.3f}")

    # 3. cold first fit in a new process
    code = (
        "import judgebayes as jb; jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, "
        "tp=90, m1=100).fit('nuts', random_seed=0)"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=True, capture_output=True)
    print(
        f"3. cold first NUTS fit in a new process (import + compile + sample): "
        f"{time.perf_counter() - t0:.1f} s"
    )


if __name__ == "__main__":
    main()
