"""Time-to-answer against the peers, from the same frame, in one process.

1. Naive Bradley-Terry: ``PairwiseRanking.from_frames(df).fit("naive").interval()``
   against ``evalica.bradley_terry`` (point scores) on PandaLM's human votes (999 pairs, 5
   generators, ties as half wins) and on 20 systems x 20,000 simulated comparisons.
2. The items design's closed form: ``AccuracyStudy.from_items(df).fit("closed_form")
   .interval()`` against ``ppi_py.ppi_mean_ci`` (PPI++) with its arrays taken from the same
   frame, at 1,000, 5,000 and 50,000 items with a tenth labelled.

Each timing is the median of ``--reps`` calls, the two sides interleaved so that a busy
moment of the machine hits both; the ratio is ours / the peer's.

    python benchmarks/speed_peers.py [--reps 300]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from bench_check import cpu_median  # the script's own folder is on the path

import judgebayes as jb
from judgebayes.datasets import pandalm_comparisons


def _median_pair(ours, theirs, reps: int) -> tuple[float, float]:
    """Each side's median wall milliseconds, interleaved (bench_check's timer)."""
    t_ours, t_peer = cpu_median(ours, theirs, reps, clock=time.perf_counter)
    return 1000 * t_ours, 1000 * t_peer


def _comparisons(n_systems: int, n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n_systems)
    a = rng.integers(0, n_systems, n)
    b = (a + rng.integers(1, n_systems, n)) % n_systems
    y = rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))
    names = np.array([f"m{i}" for i in range(n_systems)])
    return pd.DataFrame(
        {"first": names[a], "second": names[b], "winner": np.where(y, names[a], names[b])}
    )


def bradley_terry(reps: int) -> None:
    import evalica

    for label, df in (
        ("PandaLM human votes (999 pairs, 5 systems)", pandalm_comparisons("human")),
        ("20 systems x 20,000 comparisons", _comparisons(20, 20_000)),
    ):
        winner = df["winner"]
        pick = np.where(
            winner == df["first"],
            evalica.Winner.X,
            np.where(winner == df["second"], evalica.Winner.Y, evalica.Winner.Draw),
        )

        def ours(df=df):
            rk = jb.PairwiseRanking.from_frames(df, ties="half")
            return rk.fit("naive").interval()

        def theirs(df=df, pick=pick):
            return evalica.bradley_terry(df["first"], df["second"], pick.tolist())

        t_ours, t_peer = _median_pair(ours, theirs, reps)
        print(
            f"naive BT, {label}: judgebayes {t_ours:.2f} ms, evalica {t_peer:.2f} ms, "
            f"ratio {t_ours / t_peer:.2f}"
        )


def items_closed_form(reps: int) -> None:
    from ppi_py import ppi_mean_ci

    for n in (1000, 5000, 50_000):
        f = jb.simulate.simulate_items(n, n_labelled=n // 10, seed=0).frame

        def ours(f=f):
            study = jb.AccuracyStudy.from_items(f, estimand="process")
            return study.fit("closed_form").interval()

        def theirs(f=f):
            lab = f["human"].notna().to_numpy()
            v = f["judge"].to_numpy(float)
            return ppi_mean_ci(f["human"].to_numpy()[lab], v[lab], v[~lab], alpha=0.05)

        t_ours, t_peer = _median_pair(ours, theirs, reps)
        print(
            f"items closed form, {n} items ({n // 10} labelled): judgebayes {t_ours:.3f} ms, "
            f"ppi_py PPI++ {t_peer:.3f} ms, ratio {t_ours / t_peer:.2f}"
        )


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=300)
    args = p.parse_args()
    bradley_terry(args.reps)
    items_closed_form(args.reps)
