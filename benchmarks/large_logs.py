"""A 10,000,000-row Parquet verdict log reduced to counts: DuckDB (judgebayes) vs pandas.

Each contender runs in a fresh process on the same file (peak memory is the process's
resident high-water mark, VmHWM, imports included: about 130 MiB of it is Python + pandas +
duckdb): ``reduce_items`` (one DuckDB GROUP BY, labels normalised after grouping) against
``pandas.read_parquet`` of the same columns + groupby.  Both return the same counts
(checked).  ``--pairs``: a pairwise log instead (1,000 items, two judges, ties, a free-text
column), ``reduce_pairs`` against pandas' groupby of the same columns.
Run: python benchmarks/large_logs.py [--rows N] [--pairs [--items 1000]]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
path, how = sys.argv[1], sys.argv[2]
cols = dict(judge="verdict", human="gold", system="model", stratum="topic")
if how == "duckdb":
    from judgebayes.data.large import reduce_items
    out = reduce_items(path, **cols, threads=2)
    counts = out.groupby(["model", "verdict"])["n"].sum()
else:
    import pandas as pd
    df = pd.read_parquet(path, columns=["model", "topic", "verdict", "gold"])
    out = df.groupby(["model", "topic", "verdict", "gold"], dropna=False).size()
    counts = out.groupby(level=["model", "verdict"]).sum()
seconds = time.perf_counter() - t0
# VmHWM, not ru_maxrss: the latter survives exec and would count the parent's pages
with open("/proc/self/status") as f:
    peak = next(int(x.split()[1]) for x in f if x.startswith("VmHWM")) / 1024  # MiB
total = int(out["n"].sum()) if how == "duckdb" else int(out.sum())
print(json.dumps({"seconds": seconds, "peak_mib": peak, "rows": total, "groups": len(out)}))
"""


CHILD_PAIRS = r"""
import json, sys, time
t0 = time.perf_counter()
path, how = sys.argv[1], sys.argv[2]
if how == "duckdb":
    from judgebayes.data.large import reduce_pairs
    out = reduce_pairs(path, judge="judge", threads=2)
    total, ties, groups = int(out["n"].sum()), int(out["n_tie"].sum()), len(out)
else:
    import pandas as pd
    df = pd.read_parquet(path, columns=["first", "second", "winner", "judge"])
    out = df.groupby(["first", "second", "judge", "winner"], dropna=False).size()
    total = int(out.sum())
    ties = int(out[out.index.get_level_values("winner").isna()].sum())
    groups = len(out.groupby(level=["first", "second", "judge"]))
seconds = time.perf_counter() - t0
with open("/proc/self/status") as f:
    peak = next(int(x.split()[1]) for x in f if x.startswith("VmHWM")) / 1024  # MiB
print(json.dumps({"seconds": seconds, "peak_mib": peak, "rows": total, "groups": groups,
                  "ties": ties}))
"""


def make_pairs_log(path, rows, seed=0, n_items=1000):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n_items)
    ids = np.array([f"model-{i:04d}" for i in range(n_items)])
    writer = None
    chunk = 1_000_000
    for start in range(0, rows, chunk):
        m = min(chunk, rows - start)
        a = rng.integers(0, n_items, m)
        b = (a + rng.integers(1, n_items, m)) % n_items
        u = rng.random(m)
        won_first = u < 0.9 / (1 + np.exp(-(theta[a] - theta[b])))
        winner = np.where(u > 0.9, None, np.where(won_first, ids[a], ids[b]))
        table = pa.table(
            {
                "first": ids[a],
                "second": ids[b],
                "winner": pa.array(winner, type=pa.string()),
                "judge": np.where(rng.random(m) < 0.5, "gpt-4", "claude"),
                "explanation": np.full(m, "Assistant A follows the instruction more closely."),
            }
        )
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def make_log(path, rows, seed=0):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    models = np.array([f"model-{i:03d}" for i in range(100)])
    topics = np.array(["code", "math", "chat", "writing", "safety"])
    writer = None
    chunk = 1_000_000
    for start in range(0, rows, chunk):
        m = min(chunk, rows - start)
        truth = rng.random(m) < 0.6
        verdict = np.where(truth, rng.random(m) < 0.9, rng.random(m) < 0.3)
        gold = np.where(rng.random(m) < 0.05, np.where(truth, "yes", "no"), None)
        table = pa.table(
            {
                "item_id": np.arange(start, start + m),
                "model": models[rng.integers(0, 100, m)],
                "topic": topics[rng.integers(0, 5, m)],
                "verdict": np.where(verdict, "PASS", "FAIL"),
                "gold": pa.array(gold, type=pa.string()),
                "explanation": np.full(m, "The response follows the instruction."),
            }
        )
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--pairs", action="store_true", help="a pairwise log (reduce_pairs)")
    ap.add_argument("--items", type=int, default=1000, help="--pairs: items compared")
    args = ap.parse_args()
    child = CHILD_PAIRS if args.pairs else CHILD
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "verdicts.parquet")
        t = time.perf_counter()
        if args.pairs:
            make_pairs_log(path, args.rows, n_items=args.items)
        else:
            make_log(path, args.rows)
        size = os.path.getsize(path) / 2**20
        print(
            f"log: {args.rows:,} rows, {size:.0f} MiB Parquet, written in "
            f"{time.perf_counter() - t:.1f} s"
        )
        res = {}
        for how in ("duckdb", "pandas"):
            out = subprocess.run(
                [sys.executable, "-c", child, path, how], capture_output=True, text=True, check=True
            )
            res[how] = json.loads(out.stdout)
            r = res[how]
            print(
                f"{how:7s} {r['seconds']:6.2f} s  peak {r['peak_mib']:7.0f} MiB  "
                f"{r['groups']} groups, {r['rows']:,} rows"
            )
        assert res["duckdb"]["rows"] == res["pandas"]["rows"] == args.rows
        if args.pairs:  # the same ordered pairs per judge, the same ties
            assert res["duckdb"]["groups"] == res["pandas"]["groups"]
            assert res["duckdb"]["ties"] == res["pandas"]["ties"]
        print(
            f"duckdb / pandas: time {res['duckdb']['seconds'] / res['pandas']['seconds']:.2f}x, "
            f"peak memory {res['duckdb']['peak_mib'] / res['pandas']['peak_mib']:.2f}x"
        )


if __name__ == "__main__":
    main()
