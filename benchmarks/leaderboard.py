"""Leaderboards: the rank intervals' simultaneous coverage and the Holm contrasts' false
separations on simulated boards, and the closed form's time on a board of 300 systems x
10,000 items.

    python benchmarks/leaderboard.py --boards 200
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

import judgebayes as jb

sys.path.insert(0, str(Path(__file__).parents[1]))
# the simulator shares no code with the package
from tests.simulators import irt_board

ABILITIES = np.array([1.5, 1.2, 1.2, 0.9, 0.5, 0.5, 0.5, 0.0, -0.5, -1.0])


def coverage(boards: int, **kw) -> tuple[float, float, float]:
    covered = separated = 0
    width = []
    for r in range(boards):
        frame, truth = irt_board(np.random.default_rng([7, r]), ABILITIES, **kw)
        t = jb.leaderboard(frame, cluster="cluster", baseline="m05").set_index("system")
        lo = stats.rankdata(-truth.round(12), method="min")
        hi = stats.rankdata(-truth.round(12), method="max")
        t = t.loc[truth.index]
        covered += bool(((t["rank_lower"] <= hi) & (lo <= t["rank_upper"])).all())
        separated += bool(t.loc[["m04", "m06"], "separated"].any())
        width.append(float((t["rank_upper"] - t["rank_lower"] + 1).mean()))
    return covered / boards, separated / boards, float(np.mean(width))


def scale() -> float:
    rng = np.random.default_rng(0)
    frame, _ = irt_board(rng, rng.normal(0, 1, 300), n_items=10_000)
    t0 = time.process_time()
    jb.leaderboard(frame)
    return time.process_time() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--boards", type=int, default=200)
    a = p.parse_args()
    warnings.simplefilter("ignore")
    sd = np.sqrt(0.95 * 0.05 / a.boards)
    print(f"{a.boards} boards of 10 systems (ties among them); Monte-Carlo sd {sd:.3f}")
    print("| items | all ranks covered | a tie separated (Holm) | mean rank-interval length |")
    print("|---|---|---|---|")
    for kw in ({"n_items": 300}, {"n_items": 400, "cluster_size": 8}):
        c, s, w = coverage(a.boards, **kw)
        label = f"{kw['n_items']}" + (
            f" in clusters of {kw['cluster_size']}" if "cluster_size" in kw else ""
        )
        print(f"| {label} | {c:.3f} | {s:.3f} | {w:.2f} |", flush=True)
    print(f"\n300 systems x 10,000 items (3M rows): {scale():.1f} s CPU, frame to table")


if __name__ == "__main__":
    main()
