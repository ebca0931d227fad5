"""The items design at the edges: rates near 0 and 1 with few labels, and few clusters.

Simulations written with ``jb.simulate.simulate_items`` (the simulator does not share the engines'
code), one process, printed as tables:

1. Coverage and mean width of the 95% intervals of ``exact`` (process and N-item rates),
   the closed form and ``labels_only`` at true rates 0.01-0.99 with 20 and 50 labels
   (1,000 items, judge sensitivity 0.9 / specificity 0.7), ``--reps`` simulations each,
   and how often the closed form is NaN.
2. The gate's claim "rate > 0.95" at a true 0.98 with 50 labels: how often ``exact`` and
   the closed form support it.
3. Few clusters: the cluster-robust closed form (process rate) with 4, 8 and 20 prompts of
   50 responses, ICC 0.1, 15 labels per prompt.

Run: python benchmarks/items_edges.py [--reps 300]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import judgebayes as jb
from judgebayes.data.items import items_from_frame
from judgebayes.inference import items as ie
from judgebayes.workflows.gate import check_claims


def edges(reps: int) -> None:
    print(
        f"1. coverage / mean width of 95% intervals, {reps} simulations each (MC sd 0.95: "
        f"{np.sqrt(0.95 * 0.05 / reps):.4f})"
    )
    print("rate labels | exact process | exact items | closed form items | labels_only | CF NaN")
    for theta in (0.01, 0.02, 0.5, 0.98, 0.99):
        for n_lab in (20, 50):
            rows = {k: ([], []) for k in ("ep", "ei", "cf", "lo")}
            nan = 0
            for r in range(reps):
                sim = jb.simulate.simulate_items(1000, theta=theta, n_labelled=n_lab, seed=r)
                d = items_from_frame(sim.frame)
                dr = ie.exact_items_draws(d, 4000, np.random.default_rng(r))
                for key, x, truth in (
                    ("ep", dr["theta"][:, 0], sim.theta),
                    ("ei", dr["theta_items"][:, 0], sim.rate_items),
                ):
                    lo, hi = np.quantile(x, [0.025, 0.975])
                    rows[key][0].append(lo <= truth <= hi)
                    rows[key][1].append(hi - lo)
                for key, est, truth in (
                    ("cf", ie.double_sampling_items(d, "items"), sim.rate_items),
                    ("lo", ie.labels_only_items(d), sim.theta),
                ):
                    lo, hi = est.interval(0.05)
                    nan += key == "cf" and bool(np.isnan(lo[0]) or np.isnan(hi[0]))
                    rows[key][0].append(lo[0] <= truth <= hi[0])
                    rows[key][1].append(hi[0] - lo[0])
            cells = " | ".join(f"{np.mean(c):.3f} / {np.mean(w):.3f}" for c, w in rows.values())
            print(f"{theta} {n_lab} | {cells} | {nan}")


def claim(reps: int) -> None:
    sup = {"exact": 0, "closed_form": 0}
    for r in range(reps):
        sim = jb.simulate.simulate_items(1000, theta=0.98, n_labelled=50, seed=r)
        study = jb.AccuracyStudy.from_items(sim.frame)
        for m in sup:
            t = check_claims(study.fit(m, random_seed=r), ["rate > 0.95"], prob=0.95)
            sup[m] += bool(t.loc[0, "supported"])
    print(f"2. claim 'rate > 0.95' at a true 0.98, 50 labels, {reps} sets: supported {sup}")


def clusters(reps: int) -> None:
    print(f"3. few clusters, closed form (CR2, t(G-1)), {reps} simulations each")
    for g in (4, 8, 20):
        hits, width = [], []
        for r in range(reps):
            sim = jb.simulate.simulate_items(
                g * 50, n_labelled=g * 15, cluster_size=50, icc=0.1, seed=10_000 + r
            )
            d = items_from_frame(sim.frame, cluster="cluster")
            lo, hi = ie.double_sampling_items(d, "process").interval(0.05)
            hits.append(lo[0] <= sim.theta <= hi[0])
            width.append(hi[0] - lo[0])
        print(f"  {g} clusters: coverage {np.mean(hits):.3f}, mean width {np.mean(width):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    edges(args.reps)
    claim(min(args.reps, 200))
    clusters(max(args.reps, 400))


if __name__ == "__main__":
    main()
