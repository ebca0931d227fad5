"""Three systems on the same prompts: paired NUTS and exact against the paired closed form.

Three systems answer ``--items`` prompts; their correctness shares a prompt difficulty
(probit 0.8 z + 0.6 e, rates 0.75 / 0.70 / 0.65); humans label all three answers of 25%
of the prompts.  The judge (sensitivity 0.9, specificity 0.8) scores each answer
independently given its truth (``independent``), or on 15% of the prompts passes all three
answers whatever they are (``together``: the judge's errors on one prompt's answers move
together, which the paired model allows and a product-form judge would not).  Per set
(simulated here in numpy): the 95% intervals of the three process differences from the
paired closed form, the exact paired posterior and paired NUTS; coverage, mean width and the
NUTS fits that missed the convergence gate.

Run: python benchmarks/paired_systems.py [--reps 25] [--items 400]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import norm

import judgebayes as jb

RATES = (0.75, 0.70, 0.65)


def frame(seed: int, n: int, judge: str) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    labelled = rng.random(n) < 0.25
    together = rng.random(n) < (0.15 if judge == "together" else 0.0)
    parts = []
    for s, r in zip("ABC", RATES, strict=True):
        h = 0.8 * z + 0.6 * rng.normal(size=n) < norm.ppf(r)
        v = np.where(h, rng.random(n) < 0.9, rng.random(n) > 0.8) | together
        parts.append(
            pd.DataFrame(
                {
                    "prompt": np.arange(n),
                    "system": s,
                    "judge": v * 1.0,
                    "human": np.where(labelled, h * 1.0, np.nan),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--items", type=int, default=400)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    truth = {("A", "B"): 0.05, ("A", "C"): 0.10, ("B", "C"): 0.05}
    for judge in ("independent", "together"):
        rows: dict[str, list] = {}
        secs: dict[str, float] = {}
        missed = 0
        for r in range(args.reps):
            f = frame(r, args.items, judge)
            for name, method in (
                ("closed form, paired", "closed_form"),
                ("exact, paired", "exact"),
                ("NUTS, paired", "nuts"),
            ):
                t0 = time.perf_counter()
                study = jb.AccuracyStudy.from_items(
                    f, system="system", item="prompt", estimand="process"
                )
                fit = study.fit(method, random_seed=r)
                missed += fit.diagnostics is not None and not fit.diagnostics.passed
                c = fit.contrasts().set_index(["a", "b"])
                secs[name] = secs.get(name, 0.0) + time.perf_counter() - t0
                for pair, d in truth.items():
                    lo, hi = c.loc[pair, "lower"], c.loc[pair, "upper"]
                    rows.setdefault(name, []).append((lo <= d <= hi, hi - lo))
        base = np.mean([w for _, w in rows["closed form, paired"]])
        for name, v in rows.items():
            v = np.array(v, float)
            print(
                f"{judge:11s} {name:42s} coverage {v[:, 0].mean():.3f} (n {len(v)}) "
                f"width {v[:, 1].mean():.4f} ({v[:, 1].mean() / base:.2f}x closed form) "
                f"{secs[name] / args.reps:.1f} s a set",
                flush=True,
            )
        print(f"{judge:11s} NUTS fits that missed the gate: {missed} of {args.reps}", flush=True)


if __name__ == "__main__":
    main()
