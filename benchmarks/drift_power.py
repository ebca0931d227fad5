"""The default drift alarm's power and false alarms: weekly batches of 1,500 verdicts with
40 random labels, the judge's sensitivity falling from 0.90 to 0.70 in week 6 (true rate
0.6, specificity 0.8), 25 weeks; null streams without the fall.

    python benchmarks/drift_power.py --streams 200
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
    first, false = [], 0
    for r in range(a.streams):
        frame, _ = stream(
            np.random.default_rng(10_000 + r), weeks=25, items=1500, labels=40, drift_at=6
        )
        t = jb.monitor(frame, judge="judge", human="human", time="week")
        hit = np.flatnonzero(t["alarm"].to_numpy())
        first.append(hit[0] if hit.size else 99)
        null, _ = stream(np.random.default_rng(20_000 + r), weeks=25, items=1500, labels=40)
        false += bool(jb.monitor(null, judge="judge", human="human", time="week")["alarm"].any())
    f = np.array(first)
    n = a.streams
    print("| streams | before the drift | by week 10 | by week 25 | null streams with an alarm |")
    print("|---|---|---|---|---|")
    print(
        f"| {n} | {np.mean(f < 6):.3f} | {np.mean((f >= 6) & (f <= 10)):.3f} | "
        f"{np.mean((f >= 6) & (f < 99)):.3f} | {false / n:.3f} |"
    )


if __name__ == "__main__":
    main()
