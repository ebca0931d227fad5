"""1,000 systems' pass rates corrected at once (items design, two strata, 10% labelled).

One ``AccuracyStudy.from_items`` over all systems; each method is one call that fits every
system (independent parameters per system).  Printed: seconds per method, the share of
systems whose 95% interval covers that system's true rate over its items (the estimand),
and what each method reports per system (exactness or the convergence gate).
Run: python benchmarks/many_systems.py [--systems 1000] [--items 400]
"""

import argparse
import time

import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.inference.nuts import quiet_engine_warnings


def simulate(n_systems, n_items, seed=0):
    rng = np.random.default_rng(seed)
    size = n_systems * n_items
    system = np.repeat([f"system-{i:04d}" for i in range(n_systems)], n_items)
    theta = np.repeat(rng.uniform(0.3, 0.9, n_systems), n_items)
    stratum = rng.choice(["easy", "hard"], size)
    truth = rng.random(size) < np.where(stratum == "hard", theta - 0.15, theta)
    sens = np.where(stratum == "hard", 0.8, 0.92)
    spec = np.where(stratum == "hard", 0.6, 0.8)
    judge = np.where(truth, rng.random(size) < sens, rng.random(size) > spec)
    labelled = rng.random(size) < 0.10
    df = pd.DataFrame(
        {
            "system": system,
            "stratum": stratum,
            "judge": judge.astype(float),
            "human": np.where(labelled, truth.astype(float), np.nan),
        }
    )
    rate = pd.Series(truth, index=system).groupby(level=0).mean()
    return df, rate


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=1000)
    ap.add_argument("--items", type=int, default=400)
    args = ap.parse_args()
    df, rate = simulate(args.systems, args.items)
    t = time.perf_counter()
    study = jb.AccuracyStudy.from_items(df, system="system", stratum="stratum")
    print(
        f"{args.systems} systems x {args.items} items, 2 strata, 10% labelled; "
        f"study built in {time.perf_counter() - t:.1f} s"
    )
    for method in ("closed_form", "exact", "laplace"):
        t = time.perf_counter()
        try:
            with quiet_engine_warnings():
                fit = study.fit(method, random_seed=0)
            iv = fit.interval()
        except jb.errors.JudgeBayesError as e:
            print(f"{method:12s} refused: {str(e)[:120]}")
            continue
        sec = time.perf_counter() - t
        ok = iv["lower"].notna()
        cover = ((iv["lower"] <= rate) & (rate <= iv["upper"]))[ok].mean()
        print(
            f"{method:12s} {sec:6.1f} s  intervals for {int(ok.sum())}/{len(iv)} systems, "
            f"covering the true rate in {cover:.3f} (Monte-Carlo sd "
            f"{(0.95 * 0.05 / max(ok.sum(), 1)) ** 0.5:.3f}); "
            f"kind: {fit.info.get('kind', fit.method)}"
        )


if __name__ == "__main__":
    main()
