"""Coverage of the agreement coefficients' intervals (the posterior, the linearised t and the
percentile bootstrap) on simulated raters, iid and clustered, and their speed against
irrCAC on the same tables.

Three exchangeable raters put items of three classes into three categories with a fixed
confusion matrix; clustered sets draw each cluster's class shares around the population's
(logit spread 1). The population coefficients are written from their definitions in the
test module, not from the package.

    python benchmarks/agreement_coverage.py [--sets 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb
from tests.helpers import ratings_wide as wide
from tests.inference.agreement.test_coefficients import coverage, random_tables

DESIGNS = [
    (30, 1, 0.0),
    (60, 1, 0.0),
    (100, 1, 0.0),
    (200, 1, 0.0),
    (60, 3, 1.0),
    (100, 5, 1.0),
    (200, 5, 1.0),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=1000)
    args = ap.parse_args()
    sd = np.sqrt(0.95 * 0.05 / args.sets)
    print(f"{args.sets} sets per row; Monte-Carlo sd of a 95% coverage {sd:.4f}")
    print("| items | cluster size | coefficient | posterior (default) | t interval | bootstrap |")
    print("|---|---|---|---|---|---|")
    for i, (n, size, spread) in enumerate(DESIGNS):
        cov, boot = coverage(args.sets, n, size, spread, seed=100 + i)
        post, _ = coverage(args.sets, n, size, spread, seed=100 + i, interval="posterior")
        for k in cov:
            print(
                f"| {n} | {size} | {k} | {post[k]:.3f} | {cov[k]:.3f} | {boot[k]:.3f} |",
                flush=True,
            )
    for i, (n, size, spread) in enumerate(DESIGNS):
        cov, boot = coverage(args.sets, n, size, spread, seed=200 + i, level="ordinal")
        post, _ = coverage(
            args.sets, n, size, spread, seed=200 + i, level="ordinal", interval="posterior"
        )
        print(
            f"| {n} | {size} | AC2 (ordinal) | {post['gwet']:.3f} | {cov['gwet']:.3f} | "
            f"{boot['gwet']:.3f} |"
        )
    speed()


def hanna_default() -> None:
    """``jb.agreement``'s default call against irrCAC on HANNA's three raters, one criterion
    at a time (the same coefficients, CPU time, best of 5)."""
    from judgebayes.datasets import hanna_scores

    raw = __import__("irrCAC.raw", fromlist=["CAC"])
    raters = ["human_1", "human_2", "human_3"]
    for crit in ("RE", "EG"):
        df = hanna_scores(crit)[raters].astype(float)

        def ours(df=df):
            jb.agreement(df, raters=raters, level="ordinal")

        def theirs(df=df):
            cac = raw.CAC(df, categories=[1.0, 2.0, 3.0, 4.0, 5.0], weights="ordinal", digits=20)
            cac.fleiss(), cac.gwet(), cac.krippendorff(), cac.bp()

        t_jb, t_irr = (min(_cpu(f) for _ in range(5)) for f in (ours, theirs))
        print(
            f"HANNA {crit}, 1,056 stories x 3 raters, the default call: judgebayes "
            f"{t_jb * 1e3:.0f} ms CPU, irrCAC {t_irr * 1e3:.0f} ms (ratio {t_jb / t_irr:.2f})"
        )


def _cpu(f) -> float:
    t0 = time.process_time()
    f()
    return time.process_time() - t0


def speed() -> None:
    hanna_default()
    raw = __import__("irrCAC.raw", fromlist=["CAC"])
    tables = list(random_tables(11, 200))
    t0 = time.perf_counter()
    for values, x in tables:
        df = wide(x)
        cac = raw.CAC(df, categories=list(values), digits=20)
        cac.fleiss(), cac.gwet(), cac.krippendorff()
    t_irr = time.perf_counter() - t0
    spent = {}
    for how in ("t", "auto"):
        t0 = time.perf_counter()
        for _values, x in tables:
            df = wide(x)
            jb.agreement(
                df,
                raters=list(df.columns),
                coefficients=["fleiss", "gwet", "krippendorff"],
                bootstrap=0,
                interval=how,
            )
        spent[how] = time.perf_counter() - t0
    print(
        f"\nFleiss + Gwet + alpha with standard errors and t intervals on {len(tables)} small "
        f"tables: judgebayes {spent['t']:.2f} s, irrCAC {t_irr:.2f} s (ratio "
        f"{spent['t'] / t_irr:.2f}); with the default (posterior) intervals judgebayes "
        f"{spent['auto']:.2f} s (ratio {spent['auto'] / t_irr:.2f})"
    )
    rng = np.random.default_rng(12)
    x = rng.integers(1, 6, (10_000, 5)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    df = wide(x)
    t0 = time.perf_counter()
    cac = raw.CAC(df, categories=[1.0, 2.0, 3.0, 4.0, 5.0], digits=20)
    cac.fleiss(), cac.gwet(), cac.krippendorff()
    t_irr = time.perf_counter() - t0
    t0 = time.perf_counter()
    jb.agreement(
        df, raters=list(df.columns), coefficients=["fleiss", "gwet", "krippendorff"], bootstrap=0
    )
    t_jb = time.perf_counter() - t0
    print(
        f"the same on 10,000 items x 5 raters: judgebayes {t_jb:.3f} s, irrCAC {t_irr:.3f} s "
        f"(ratio {t_jb / t_irr:.2f})"
    )


if __name__ == "__main__":
    main()
