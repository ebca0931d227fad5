"""Rank intervals of a leaderboard by judgebayes and by what practitioners use, on the same
simulated boards in the same process.

    python benchmarks/leaderboard_peers.py --boards 200

Boards of 10 systems x 300 items (``tests.simulators.irt_board``, ties among the
abilities, as ``benchmarks/leaderboard.py``).  Rank intervals, 95%:

* judgebayes: ``jb.leaderboard`` (simultaneous, max-T over a bootstrap of the items);
* HELM-style: a bootstrap over the items (1,000 resamples), each system's 2.5% and 97.5%
  quantiles of its bootstrap rank (each system's own interval);
* LMArena's rule with arena-rank: every item turned into battles between every pair of
  systems (the higher score wins, equal scores tie), arena-rank's Bradley-Terry with its
  sandwich intervals, and the rank interval [1 + the systems whose lower bound is above
  this one's upper, S - the systems whose upper bound is below this one's lower].

Printed per method: the share of boards where every system's true rank (a tie may take
any of its ranks) lies in its interval, the share of systems whose own does, the mean
interval length, and the CPU time per board.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb
from tests.simulators import irt_board

ABILITIES = np.array([1.5, 1.2, 1.2, 0.9, 0.5, 0.5, 0.5, 0.0, -0.5, -1.0])


def helm(x: np.ndarray, reps: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Each system's 95% percentile interval of its rank over item resamples."""
    n = x.shape[1]
    ranks = np.empty((reps, x.shape[0]))
    for b in range(reps):
        m = x[:, rng.integers(0, n, n)].mean(axis=1)
        ranks[b] = stats.rankdata(-m, method="min")
    return np.quantile(ranks, 0.025, axis=0), np.quantile(ranks, 0.975, axis=0)


def arena(x: np.ndarray, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """LMArena's rank rule on arena-rank's Bradley-Terry intervals of the item battles."""
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    a, b = np.triu_indices(x.shape[0], 1)
    da, db = x[a], x[b]  # (pairs, items)
    winner = np.where(da > db, "model_a", np.where(da < db, "model_b", "tie"))
    df = pd.DataFrame(
        {
            "model_a": np.repeat(np.asarray(names)[a], x.shape[1]),
            "model_b": np.repeat(np.asarray(names)[b], x.shape[1]),
            "winner": winner.ravel(),
        }
    )
    ds = PairDataset.from_pandas(df, min_pair_count=1)
    model = BradleyTerry(len(ds.competitors))
    out = model.compute_ratings_and_cis(ds, significance_level=0.05)
    order = [ds.competitors.index(n) for n in names]
    lo = np.asarray(out["rating_lower"])[order]
    hi = np.asarray(out["rating_upper"])[order]
    above = lo[:, None] > hi[None, :]  # [s, t]: s's lower bound above t's upper
    return 1 + above.sum(axis=0), len(names) - above.sum(axis=1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--boards", type=int, default=200)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    res = {
        k: {"all": 0, "each": 0, "length": [], "cpu": 0.0} for k in ("judgebayes", "HELM", "arena")
    }
    for r in range(args.boards):
        frame, truth = irt_board(np.random.default_rng([7, r]), ABILITIES)
        x = frame.pivot(index="system", columns="item", values="score")
        names = list(x.index)
        t_lo = stats.rankdata(-truth.round(12), method="min")
        t_hi = stats.rankdata(-truth.round(12), method="max")
        c0 = time.process_time()
        t = jb.leaderboard(frame).set_index("system").loc[names]
        c1 = time.process_time()
        h = helm(x.to_numpy(), 1000, np.random.default_rng(r))
        c2 = time.process_time()
        ar = arena(x.to_numpy(), names)
        c3 = time.process_time()
        got = {
            "judgebayes": (t["rank_lower"].to_numpy(), t["rank_upper"].to_numpy(), c1 - c0),
            "HELM": (*h, c2 - c1),
            "arena": (*ar, c3 - c2),
        }
        for k, (lo, hi, cpu) in got.items():
            ok = (lo <= t_hi) & (t_lo <= hi)
            res[k]["all"] += bool(ok.all())
            res[k]["each"] += int(ok.sum())
            res[k]["length"].append(float(np.mean(hi - lo + 1)))
            res[k]["cpu"] += cpu
    n = args.boards
    sd = np.sqrt(0.0475 / n)
    print(f"{n} boards of 10 systems x 300 items (Monte-Carlo sd of a 95% share {sd:.3f})")
    print("| method | every rank covered | each system's covered | mean length | CPU per board |")
    print("|---|---|---|---|---|")
    for k, v in res.items():
        print(
            f"| {k} | {v['all'] / n:.3f} | {v['each'] / (10 * n):.3f} | "
            f"{np.mean(v['length']):.2f} | {1000 * v['cpu'] / n:.0f} ms |"
        )


if __name__ == "__main__":
    main()
