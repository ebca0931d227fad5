"""Paired comparisons of two systems on the same prompts, against their baselines and peers.

Two systems answer the same ``--items`` prompts and agree on about 90% of them (B copies
A's correctness, then B is worse by ``--delta`` in the process); the judge (sensitivity
0.9, specificity 0.8) scores both; humans label both systems on the same 25% of prompts.
Per method, over ``--reps`` simulated sets (the simulation is written here), the coverage
of A - B's process difference by the 95% interval and its mean width:

* judgebayes closed form, paired by ``item=`` (joint verdict categories);
* the same frame without ``item=`` (independent systems);
* judgebayes ``labels_only``, paired (Agresti-Min, the McNemar setting), the no-judge
  baseline;
* ppi_py ``ppi_mean_ci`` on the per-prompt differences (PPI++);
* a paired bootstrap of the closed-form difference (prompts resampled, ``--boot``
  resamples, percentile interval);
* on the first ``--nuts-reps`` sets, NUTS: the paired model (``item=``: the systems' joint
  truth per prompt) for the process difference and for the prompts' realised difference
  (``estimand="items"``, against the realised difference), and the independent model
  (no ``item=``).

Run: python benchmarks/paired.py [--reps 200] [--boot 200] [--nuts-reps 100]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from ppi_py import ppi_mean_ci

import judgebayes as jb
from judgebayes.errors import JudgeBayesError


def frame(seed: int, n: int, delta: float) -> tuple[pd.DataFrame, float]:
    f, _, realised = jb.simulate.simulate_paired(n, rate_b=0.75 - delta, agreement=0.9, seed=seed)
    return f, realised


def contrast(
    f: pd.DataFrame, method: str, item: str | None, estimand: str = "process", seed: int = 0
) -> tuple[float, float, float]:
    study = jb.AccuracyStudy.from_items(f, system="system", item=item, estimand=estimand)
    c = study.fit(method, random_seed=seed).contrasts().set_index(["a", "b"]).loc[("A", "B")]
    return float(c["difference"]), float(c["lower"]), float(c["upper"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--boot", type=int, default=200)
    ap.add_argument("--items", type=int, default=400)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--nuts-reps", type=int, default=100)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    out: dict[str, list] = {}
    secs: dict[str, float] = {}
    failed: dict[str, int] = {}

    def add(name, lo, hi, t0, target=args.delta):
        out.setdefault(name, []).append((lo <= target <= hi, hi - lo))
        secs[name] = secs.get(name, 0.0) + time.perf_counter() - t0

    for r in range(args.reps):
        f, realised = frame(r, args.items, args.delta)
        if r < args.nuts_reps:
            for name, item, estimand, target in (
                ("NUTS, paired (item=), process", "prompt", "process", args.delta),
                ("NUTS, paired, the prompts' realised difference", "prompt", "items", realised),
                ("NUTS, independent (no item=), process", None, "process", args.delta),
            ):
                t0 = time.perf_counter()
                study = jb.AccuracyStudy.from_items(
                    f, system="system", item=item, estimand=estimand
                )
                fit = study.fit("nuts", random_seed=r)
                failed[name] = failed.get(name, 0) + (not fit.diagnostics.passed)
                c = fit.contrasts().set_index(["a", "b"]).loc[("A", "B")]
                add(name, c["lower"], c["upper"], t0, target)
        t0 = time.perf_counter()
        _, lo, hi = contrast(f, "closed_form", "prompt")
        add("closed form, paired", lo, hi, t0)
        t0 = time.perf_counter()
        _, lo, hi = contrast(f, "closed_form", "prompt", "items")
        add("closed form, paired, the prompts' realised difference", lo, hi, t0, realised)
        t0 = time.perf_counter()
        _, lo, hi = contrast(f, "closed_form", None)
        add("closed form, independent", lo, hi, t0)
        t0 = time.perf_counter()
        _, lo, hi = contrast(f, "labels_only", "prompt")
        add("labels only, paired (Agresti-Min)", lo, hi, t0)
        t0 = time.perf_counter()
        a, b = (f[f.system == s].sort_values("prompt") for s in ("A", "B"))
        lab = a["human"].notna().to_numpy()
        y = (a["human"].to_numpy() - b["human"].to_numpy())[lab]
        yh = a["judge"].to_numpy() - b["judge"].to_numpy()
        lo, hi = ppi_mean_ci(y, yh[lab], yh[~lab], alpha=0.05)
        add(
            "ppi_py PPI++ on per-prompt differences",
            float(np.ravel(lo)[0]),
            float(np.ravel(hi)[0]),
            t0,
        )
        t0 = time.perf_counter()
        rng = np.random.default_rng(10_000 + r)
        boots = []
        for _ in range(args.boot):
            pick = rng.integers(0, args.items, args.items)
            g = pd.concat(
                [f[f.system == s].set_index("prompt").loc[pick].reset_index() for s in "AB"]
            )
            g["prompt"] = np.tile(np.arange(args.items), 2)
            try:
                boots.append(contrast(g, "closed_form", "prompt")[0])
            except JudgeBayesError:
                continue
        lo, hi = np.quantile(boots, [0.025, 0.975])
        add("paired bootstrap of the closed form", lo, hi, t0)
    ref = np.mean([w for _, w in out["closed form, paired"]])
    print(
        f"{args.reps} sets, {args.items} prompts, true A - B = {args.delta}, 25% labelled "
        f"on both systems (MC sd of a 0.95 coverage {np.sqrt(0.0475 / args.reps):.3f})"
    )
    print(f"{'method':54s} coverage  width  width/paired  s per set")
    for name, rows in out.items():
        cov = np.mean([c for c, _ in rows])
        w = np.mean([w for _, w in rows])
        gate = f"  gate failed {failed[name]}/{len(rows)}" if name in failed else ""
        print(
            f"{name:54s} {cov:8.3f} {w:6.3f} {w / ref:12.2f} {secs[name] / len(rows):10.4f}"
            f"  ({len(rows)} sets){gate}"
        )


if __name__ == "__main__":
    main()
