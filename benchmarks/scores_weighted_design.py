"""Labels drawn with known, score-dependent probabilities (``label_prob=``) in a paired
design (``item=``: three systems judged on the same 300 items) and a clustered one
(``cluster=``: two systems, 40 prompts x 6 responses each, prompt random effects): does
the closed form's 95% interval of each system's mean and of each contrast cover?

The data are simulated with numpy in ``tests/inference/scores/test_weighted.py``
(:func:`design_coverage`, the slow test's own code): humans (Likert 1-5) see the output's
quality and a share of the prompt the judge does not see; a 1-10 judge scores the quality
(kinder to one system by a point); rows are drawn for a label with probability
0.08-0.60 rising with the score, row by row or a prompt at a time (at its mean score).
Truth: the rows' mean (``items``) or the normal cdf (``process``).  Beside each design the
same fits without ``item=`` / ``cluster=``.  Rule: coverage >= 0.95 - 2.5 Monte-Carlo sd,
the sd of 200 sets (the systems of one set taken as one draw).

Run: python benchmarks/scores_weighted_design.py [--reps 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.inference.scores.test_weighted import design_coverage


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    t0 = time.perf_counter()
    cov = design_coverage(args.reps, plain=True)
    sd = np.sqrt(0.95 * 0.05 / args.reps)
    print(
        f"{args.reps} sets of each design; Monte-Carlo sd {sd:.4f}, rule >= {0.95 - 2.5 * sd:.3f}"
    )
    print()
    print(
        "| design | labels drawn | estimand | quantity | intervals | coverage with the "
        "design / without | mean width with / without | rule |"
    )
    print("|---|---|---|---|---|---|---|---|")
    keys = ["design", "drawn", "estimand", "quantity"]
    for key, g in cov.groupby(keys, sort=False):
        own = g[g["given"] != "none"].iloc[0]
        off = g[g["given"] == "none"].iloc[0]
        rate, rate_off = own["hits"] / own["n"], off["hits"] / off["n"]
        design, drawn, estimand, quantity = key
        role = "item=" if design == "paired" else "cluster="
        met = "met" if rate >= 0.95 - 2.5 * sd else "**not met**"
        print(
            f"| {design} ({role}) | {drawn} | {estimand} | {quantity} | {int(own['n'])} | "
            f"{rate:.3f} / {rate_off:.3f} | {own['width']:.3f} / {off['width']:.3f} | {met} |"
        )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
