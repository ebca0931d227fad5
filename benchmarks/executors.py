"""Sweeps serially, in 2 local processes and on a Dask LocalCluster(2), in one run.

The sweep is the repeated-split protocol (Lee et al.) on bundled LLMBar verdicts: one
judge's items, grouped by subset (8 groups), ``--splits`` calibration/test splits per group,
each group one batched fit of all its splits, by ``--method`` (``nuts``: nutpie already runs
a fit's chains on both cores; ``laplace``: one thread).  The three runs use the same seed, so
their tables must be identical (checked here, and in tests/test_executors.py on a smaller
sweep); the script prints wall times and the speed-up over serial.

On a real cluster the same code runs against a scheduler address:
``Client("tcp://scheduler:8786")`` (or a dask-jobqueue / dask-kubernetes cluster object)
in place of the LocalCluster's client.

``--one-core-serial`` pins the serial run to one core (``os.sched_setaffinity``; nutpie
then runs a fit's chains one after the other), and restores both cores before the pool
and the cluster start: the ratio is then what the executor adds per core when the fit,
not its chains, is the unit of parallel work (as on a cluster whose workers have one core
each).  Without it the serial run already uses both cores through nutpie's chain threads,
and no executor can add much on 2 cores.

``--warm`` runs the same sweep once, untimed, serially and on the cluster before the timed
runs, so every process has compiled the model (a long sweep's steady state; the process
pool forks after the serial run and starts compiled either way).  It must be the same
sweep: a group's batched model has one replicate per split, and the compile cache is keyed
by the data's shapes, so a one-split warm-up compiles a different model.

Usage: python benchmarks/executors.py [--splits 100] [--judge ChatGPT] [--method nuts]
[--one-core-serial] [--warm]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

from judgebayes.datasets import llmbar_accuracy_items
from judgebayes.workflows.split_protocol import split_protocol

warnings.filterwarnings("ignore")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=100)
    ap.add_argument("--judge", default="ChatGPT")
    ap.add_argument("--method", default="nuts", choices=("nuts", "laplace"))
    ap.add_argument("--one-core-serial", action="store_true")
    ap.add_argument("--warm", action="store_true")
    a = ap.parse_args()
    cores = os.sched_getaffinity(0)
    if a.one_core_serial:
        os.sched_setaffinity(0, {min(cores)})
    items = llmbar_accuracy_items(a.judge)
    kw = dict(group="subset", n_splits=a.splits, calibration_fraction=0.1, seed=0)
    kw["methods"] = (a.method,)
    print(
        f"{os.cpu_count()} cores; {items['subset'].nunique()} groups x {a.splits} splits, "
        f"{a.method}{'; serial run pinned to one core' if a.one_core_serial else ''}"
    )
    if a.warm:
        split_protocol(items, **kw)
    c0 = time.process_time()
    times, tables = {}, {}
    t0 = time.perf_counter()
    tables["serial"] = split_protocol(items, **kw).splits
    times["serial"] = time.perf_counter() - t0
    cpu = time.process_time() - c0
    os.sched_setaffinity(0, cores)  # the pool's and the cluster's processes get every core
    t0 = time.perf_counter()
    tables["processes(2)"] = split_protocol(items, executor=2, **kw).splits
    times["processes(2)"] = time.perf_counter() - t0
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        if a.warm:
            split_protocol(items, executor=client, **kw)
        t1 = time.perf_counter()
        tables["LocalCluster(2)"] = split_protocol(items, executor=client, **kw).splits
        times["LocalCluster(2)"] = time.perf_counter() - t1
    start = t1 - t0
    for name, t in times.items():
        same = (
            ""
            if name == "serial"
            else ("identical" if tables[name].equals(tables["serial"]) else "DIFFERENT")
        )
        print(f"  {name:16s} {t:7.1f} s  speed-up {times['serial'] / t:4.2f}x  {same}")
    print(f"  (LocalCluster start-up {start:.1f} s, not counted above)")
    print(f"  serial run: {cpu:.1f} s of CPU in {times['serial']:.1f} s wall")


if __name__ == "__main__":
    main()
