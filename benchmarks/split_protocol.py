"""Split protocol: all splits of a group in one batched model vs one fit per split.

On one LLMBar subset (ChatGPT on LLMBar_Adversarial_Neighbor, 10% calibration) with S
splits, in one process:

* judgebayes: ``split_protocol`` fits the S splits at once (NUTS, 4 chains x 1000 draws +
  1000 tune; Laplace blockwise), compiled once.
* baseline: the same splits one at a time through ``AccuracyStudy.fit`` (NUTS with the same
  settings, the compiled model reused through nutpie ``with_data``; Laplace with the cached
  compiled functions), i.e. the per-split loop a user would write with the study API.

Both are timed after a warm-up fit, so compile time is excluded from both.  The
intervals of the two routes are compared split by split (they target the same posterior).

Usage: python benchmarks/split_protocol.py [--splits 20]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

import numpy as np

from judgebayes import datasets
from judgebayes.errors import JudgeBayesError
from judgebayes.inference.nuts import quiet_engine_warnings
from judgebayes.studies.accuracy import AccuracyStudy
from judgebayes.workflows.split_protocol import split_masks, split_protocol


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=100)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    items = datasets.llmbar_accuracy_items("ChatGPT")
    items = items[items["subset"] == "LLMBar_Adversarial_Neighbor"].reset_index(drop=True)
    s, frac, nuts = args.splits, 0.1, {"draws": 1000, "tune": 1000, "chains": 4}
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; S = {s}")

    # warm-up (compiles both routes)
    split_protocol(items, n_splits=s, calibration_fraction=frac, seed=99, sampler=nuts)
    masks = split_masks(items["human"].to_numpy(), s, frac, seed=0)
    studies = [AccuracyStudy.from_frames(items[~m], items[m]) for m in masks]
    with quiet_engine_warnings():
        studies[0].fit("nuts", random_seed=0, sampler=nuts)
        studies[0].fit("laplace", random_seed=0)

    t0 = time.perf_counter()
    res = split_protocol(items, n_splits=s, calibration_fraction=frac, seed=0, sampler=nuts)
    batched = time.perf_counter() - t0
    rows = res.splits.set_index(["method", "split"])

    t0 = time.perf_counter()
    per = {"nuts": [], "laplace": []}
    with quiet_engine_warnings():
        for i, st in enumerate(studies):
            for m in per:
                kw = {"sampler": nuts} if m == "nuts" else {}
                try:
                    per[m].append(st.fit(m, random_seed=i, **kw).interval().iloc[0])
                except JudgeBayesError:  # a refused split (flat direction, mirror) is skipped
                    per[m].append(None)
    loop = time.perf_counter() - t0
    for m in per:
        d = [
            max(
                abs(rows.loc[(m, i), "lower"] - r["lower"]),
                abs(rows.loc[(m, i), "upper"] - r["upper"]),
            )
            for i, r in enumerate(per[m])
            if r is not None and np.isfinite(rows.loc[(m, i), "lower"])
        ]
        print(
            f"{m}: max |interval end difference| batched vs per split = {max(d):.3f} "
            f"over {len(d)} splits ({sum(r is None for r in per[m])} refused per split)"
        )
    g = res.groups.iloc[0]
    print(f"batched gate: R-hat {g['nuts_r_hat']:.3f}, {int(g['nuts_divergences'])} divergences")
    print(f"batched (NUTS + Laplace + closed form, {s} splits): {batched:.2f} s")
    print(f"per-split loop (NUTS + Laplace):                {loop:.2f} s")
    print(f"ratio: {loop / batched:.1f}x")


if __name__ == "__main__":
    main()
