"""Reproduce the closed-form numbers of Lee et al.'s Fig. 6b and Fig. 5 (10,000 replications).

Usage: python benchmarks/paper_figures.py
"""

import numpy as np

import judgebayes as jb


def main() -> None:
    ds = jb.simulate.monte_carlo_study(
        np.linspace(0, 1, 21), 0.7, 0.9, 1000, m0=100, m1=100, reps=10_000, random_seed=1
    )
    cov = ds.coverage.sel(estimator="lang_reiczigel").values
    print(
        f"Fig. 6b (seed 1): Lang-Reiczigel coverage {cov.min():.4f}..{cov.max():.4f}; "
        f"theta=0: {cov[0]:.4f}, theta=1: {cov[-1]:.4f}"
    )
    tc = np.linspace(0.25, 0.75, 11)
    d5 = jb.simulate.monte_carlo_study(
        0.5, 0.7, 0.9, 1000, m=200, theta_cal=tc, reps=10_000, random_seed=2
    )
    print("Fig. 5 (seed 2): bias at theta_cal = 0.25 / 0.75 (max MCSE)")
    for est in d5.estimator.values:
        b = d5.bias.sel(estimator=est).values
        se = d5.bias_mcse.sel(estimator=est).values.max()
        print(f"  {est:28s} {b[0]:+.4f} / {b[-1]:+.4f}  (mcse <= {se:.4f})")


if __name__ == "__main__":
    main()
