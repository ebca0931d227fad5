"""The drift alarm's power and false alarms, on every channel (the default) and on the
labels alone: weekly batches of 1,500 verdicts with 40 random labels, the judge's
sensitivity falling from 0.90 to 0.70 in week 6 (true rate 0.6, specificity 0.8), over 12
and 25 weeks; null streams without the fall.

    python benchmarks/drift_power.py --streams 400
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

import judgebayes as jb

sys.path.insert(0, str(Path(__file__).parents[1]))
# the simulator shares no code with the package
from tests.simulators import stream


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--streams", type=int, default=200)
    a = p.parse_args()
    warnings.simplefilter("ignore")
    n = a.streams
    print("| alarm | weeks | streams | before the drift | by week 10 | by the last week | "
          "null streams with an alarm |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for weeks in (12, 25):
        for source in ("all", "labels"):
            first, false = [], 0
            for r in range(n):
                frame, _ = stream(np.random.default_rng(10_000 + r), weeks=weeks, items=1500,
                                  labels=40, drift_at=5)  # fmt: skip
                t = jb.monitor(frame, judge="judge", human="human", time="week",
                               drift_from=source)  # fmt: skip
                hit = np.flatnonzero(t["alarm"].to_numpy())
                first.append(hit[0] if hit.size else 99)  # week index 0..; drift at index 5
                null, _ = stream(np.random.default_rng(20_000 + r), weeks=weeks, items=1500,
                                 labels=40)  # fmt: skip
                t0 = jb.monitor(null, judge="judge", human="human", time="week",
                                drift_from=source)  # fmt: skip
                false += bool(t0["alarm"].any())
            f = np.array(first)
            print(
                f"| {source} | {weeks} | {n} | {np.mean(f < 5):.3f} | "
                f"{np.mean((f >= 5) & (f <= 9)):.3f} | {np.mean((f >= 5) & (f < 99)):.3f} | "
                f"{false / n:.3f} |",
                flush=True,
            )
    print(f"\nMC sd: {np.sqrt(0.05 * 0.95 / n):.3f} near 0.05, {np.sqrt(0.16 / n):.3f} near 0.8")


if __name__ == "__main__":
    main()
