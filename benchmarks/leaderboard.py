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
from judgebayes.inference import leaderboard as lb
from judgebayes.workflows.leaderboard import _matrix, judge_corrected

sys.path.insert(0, str(Path(__file__).parents[1]))
# the simulator shares no code with the package
from tests.simulators import irt_board, judged_board

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


def judged(n_systems: int, n_items: int, labelled: float, boards: int) -> str:
    """Judged boards with ties: abilities on 10 levels (each shared by several systems), a
    judge with errors (tests.simulators.judged_board) corrected by ``labelled`` of the rows.
    One markdown row: every rank covered at once, per-system coverage, tiers splitting two
    equal systems, pairs the paired t test separates at 99% (each alone) that a tier merges.
    """
    levels = np.linspace(-1.5, 1.5, 10)
    from scipy.sparse.csgraph import connected_components

    covered, hits, total, split, pairs99, merged99 = 0, 0, 0, 0, 0, 0
    c_split = c_merged = n_equal = 0
    for r in range(boards):
        rng = np.random.default_rng([11, n_systems, n_items, r])
        abilities = levels[np.arange(n_systems) % 10]
        frame, truth = judged_board(rng, abilities, n_items=n_items, labelled=labelled)
        t = jb.leaderboard(frame, score="score", human="human", bootstrap=500)
        t = t.set_index("system").loc[truth.index]
        lo = stats.rankdata(-truth.round(12), method="min")
        hi = stats.rankdata(-truth.round(12), method="max")
        covered += bool(((t["rank_lower"] <= hi) & (lo <= t["rank_upper"])).all())
        hits += int(((t["lower"] <= truth) & (truth <= t["upper"])).sum())
        total += len(truth)
        tier = t["tier"].to_numpy()
        equal = np.equal.outer(truth.round(12).to_numpy(), truth.round(12).to_numpy())
        split += int(np.triu(equal & np.not_equal.outer(tier, tier), 1).sum())
        n_equal += int(np.triu(equal, 1).sum())
        # the other partition: components of "the intervals cannot order them"
        above = t.attrs["surely_above"]
        sep = np.array([[b in above[a] for b in truth.index] for a in truth.index])
        comp = connected_components(~(sep | sep.T), directed=False)[1]
        # each pair alone: the paired t test on the same judge-corrected pseudo-scores
        x, names, g, _, h, _ = _matrix(frame, "system", "item", "score", None, "human")
        b = lb.board(judge_corrected(x, h, names, "human")[0], g, bootstrap=0)
        order = [names.index(s) for s in truth.index]
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.abs(b.diff / b.diff_se)[np.ix_(order, order)]
        alone = np.triu(z > stats.t.ppf(0.995, b.df), 1)
        pairs99 += int(alone.sum())
        merged99 += int((alone & np.equal.outer(tier, tier)).sum())
        c_split += int(np.triu(equal & np.not_equal.outer(comp, comp), 1).sum())
        c_merged += int((alone & np.equal.outer(comp, comp)).sum())
    return (
        f"| {n_systems} x {n_items}, {labelled:.0%} labelled | {covered / boards:.3f} | "
        f"{hits / total:.3f} | {split} of {n_equal} | {merged99} of {pairs99} | {c_split} / "
        f"{c_merged} |"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--boards", type=int, default=200)
    p.add_argument("--judged", action="store_true")
    a = p.parse_args()
    warnings.simplefilter("ignore")
    if a.judged:
        print("| board | all ranks covered | per-system coverage | equal systems in "
              "different tiers | pairs apart at 99% alone in one tier | the same two counts "
              "for connected tiers |")  # fmt: skip
        print("|---|---|---|---|---|---|")
        for n_s, n_i, lab, b in ((20, 200, 0.2, a.boards), (50, 1000, 0.1, a.boards // 2),
                                 (200, 5000, 0.05, max(a.boards // 10, 5))):  # fmt: skip
            print(judged(n_s, n_i, lab, b), flush=True)
        return
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
