"""Coverage of the agreement coefficients' intervals on few items and a rare category: the
posterior interval (the default) against Gwet's t interval, on the same tables.

Raters rate a binary trait of prevalence ``prev`` with sensitivity 0.9 and specificity 0.97,
independently given the truth (and, in the last rows, five categories with each rating off
by one with probability 0.2, nominal); the population coefficients are written here from their
definitions (two exchangeable raters: Cohen's kappa equals Fleiss'; Krippendorff's alpha
equals Fleiss' kappa in the population). The simulator does not use the package.

    python benchmarks/agreement_small_samples.py [--sets 400]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb

SENS, SPEC = 0.9, 0.97
#: (items, prevalence, raters)
DESIGNS = [(30, 0.05, 2), (30, 0.05, 3), (100, 0.05, 2), (100, 0.05, 3), (30, 0.5, 2), (30, 0.5, 3)]


def population(prev: float, raters: int) -> dict[str, float]:
    """Each coefficient of the population: a rater says 1 with probability q; two raters
    agree with probability pa."""
    q = prev * SENS + (1 - prev) * (1 - SPEC)
    pa = prev * (SENS**2 + (1 - SENS) ** 2) + (1 - prev) * (SPEC**2 + (1 - SPEC) ** 2)
    pe = q**2 + (1 - q) ** 2
    kappa = (pa - pe) / (1 - pe)
    ac1 = (pa - 2 * q * (1 - q)) / (1 - 2 * q * (1 - q))
    out = {"percent": pa, "fleiss": kappa, "gwet": ac1, "krippendorff": kappa}
    if raters == 2:
        out["cohen"] = kappa
    return out


def ratings(rng, n: int, prev: float, raters: int) -> pd.DataFrame:
    truth = rng.random(n) < prev
    p = np.where(truth, SENS, 1 - SPEC)
    r = (rng.random((n, raters)) < p[:, None]).astype(float)
    return pd.DataFrame(r, columns=[f"r{j}" for j in range(raters)])


#: five categories: the truth 1-5 with these shares, each rating off by one with
#: probability 0.2 (clipped at the ends)
FIVE = np.array([0.1, 0.2, 0.4, 0.2, 0.1])


def five_population() -> dict[str, float]:
    """Nominal coefficients of the five-category raters, from their definitions."""
    confusion = np.zeros((5, 5))
    for t in range(5):
        for step, prob in ((-1, 0.1), (0, 0.8), (1, 0.1)):
            confusion[t, min(max(t + step, 0), 4)] += prob
    pa = float(FIVE @ (confusion**2).sum(axis=1))
    q = FIVE @ confusion
    pe = float((q**2).sum())
    return {"percent": pa, "fleiss": (pa - pe) / (1 - pe), "krippendorff": (pa - pe) / (1 - pe)}


def five_ratings(rng, n: int, raters: int) -> pd.DataFrame:
    truth = rng.choice(5, n, p=FIVE)
    step = np.where(rng.random((n, raters)) < 0.2, rng.choice([-1, 1], (n, raters)), 0)
    r = np.clip(truth[:, None] + step, 0, 4).astype(float)
    return pd.DataFrame(r, columns=[f"r{j}" for j in range(raters)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=400)
    args = ap.parse_args()
    sd = np.sqrt(0.95 * 0.05 / args.sets)
    print(
        f"{args.sets} sets a row; Monte-Carlo sd {sd:.4f}, 2.5 sd below 0.95: {0.95 - 2.5 * sd:.3f}"
    )
    print(
        "| items | prevalence | raters | coefficient | posterior (default) | t interval | "
        "width, posterior / t |"
    )
    print("|---|---|---|---|---|---|---|")
    designs = [*DESIGNS, (30, "five", 3), (100, "five", 3)]
    for i, (n, prev, raters) in enumerate(designs):
        truth = population(prev, raters) if prev != "five" else five_population()
        rng = np.random.default_rng(300 + i)
        hits = {k: [0, 0] for k in truth}
        width = {k: [[], []] for k in truth}
        for s in range(args.sets):
            df = ratings(rng, n, prev, raters) if prev != "five" else five_ratings(rng, n, raters)
            cats = [0.0, 1.0] if prev != "five" else [0.0, 1.0, 2.0, 3.0, 4.0]
            for j, how in enumerate(("posterior", "t")):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t = jb.agreement(
                        df, raters=list(df.columns), categories=cats,
                        coefficients=list(truth), interval=how, random_seed=s,
                    ).set_index("coefficient")  # fmt: skip
                for k, v in truth.items():
                    lo, hi = t.loc[k, "lower"], t.loc[k, "upper"]
                    hits[k][j] += bool(lo <= v <= hi)  # NaN (undefined) is a miss
                    if np.isfinite(hi - lo):
                        width[k][j].append(hi - lo)
        for k in truth:
            w = np.mean(width[k][0]) / np.mean(width[k][1]) if width[k][1] else np.nan
            print(
                f"| {n} | {prev} | {raters} | {k} | {hits[k][0] / args.sets:.3f} | "
                f"{hits[k][1] / args.sets:.3f} | {w:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
