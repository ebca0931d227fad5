"""Sweeps serially, in 2 local processes and on a Dask LocalCluster(2), in one run.

The sweep is the repeated-split protocol (Lee et al.) on bundled LLMBar verdicts: one
judge's items, grouped by subset (8 groups), ``--splits`` calibration/test splits per group,
each group one batched fit of all its splits (or, with ``--splits-per-fit N``, fits of N
splits: more, smaller tasks), by ``--method`` (``nuts``: nutpie runs a fit's chains in
threads on both cores; ``laplace``: one thread).  Every run uses the same seed, so the tables
must be identical (checked here, and in tests/inference/test_executors.py on a smaller sweep); the
script prints wall times and the speed-up over serial.

The serial baseline is what a user gets with ``executor=None``: for NUTS, nutpie's chain
threads already use both cores.  ``--one-core-serial`` adds a serial run pinned to one core
(``os.sched_setaffinity``; nutpie then runs a fit's chains one after the other): the ratio
against it is what the executor adds per core when the fit, not its chains, is the unit of
parallel work, as on a cluster of one-core workers.

``--warm`` compiles the model in every process before the timed runs (a long sweep's steady
state): one untimed fit of the same size in this process, and the same on every cluster
worker through ``Client.run``.  Every fit of a sweep has the same number of splits (all
groups have ``--splits``, or batches of ``--splits-per-fit`` when it divides ``--splits``),
and the compile cache is keyed by the data's shapes, so one fit warms them all.  The process
pool forks from this process after the serial runs and starts compiled either way.

On a real cluster the same code runs against a scheduler address:
``Client("tcp://scheduler:8786")`` (or a dask-jobqueue / dask-kubernetes cluster object)
in place of the LocalCluster's client.

Usage: python benchmarks/executors.py [--splits 100] [--splits-per-fit 25] [--judge ChatGPT]
[--method nuts] [--one-core-serial] [--warm]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

from judgebayes.datasets import llmbar_accuracy_items
from judgebayes.workflows.split_protocol import split_protocol

warnings.filterwarnings("ignore")


def _pin(cpus: set[int]) -> None:
    """Every thread of this process on ``cpus`` (``sched_setaffinity(0)`` moves only the
    calling thread; the sampler's and BLAS's threads from earlier runs stay where they were)."""
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except ProcessLookupError:  # a thread that ended meanwhile
            pass
    os.sched_setaffinity(0, cpus)


def _warm(judge: str, n_splits: int, method: str) -> float:
    """One untimed fit of ``n_splits`` splits (the sweep's fit size): compiles the model."""
    t0 = time.perf_counter()
    items = llmbar_accuracy_items(judge)
    first = items[items["subset"] == items["subset"].iloc[0]]
    split_protocol(first, n_splits=n_splits, calibration_fraction=0.1, methods=(method,))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=100)
    ap.add_argument("--splits-per-fit", type=int, default=None)
    ap.add_argument("--judge", default="ChatGPT")
    ap.add_argument("--method", default="nuts", choices=("nuts", "laplace"))
    ap.add_argument("--one-core-serial", action="store_true")
    ap.add_argument("--warm", action="store_true")
    a = ap.parse_args()
    cores = os.sched_getaffinity(0)
    items = llmbar_accuracy_items(a.judge)
    kw = dict(group="subset", n_splits=a.splits, calibration_fraction=0.1, seed=0)
    kw.update(methods=(a.method,), splits_per_fit=a.splits_per_fit)
    size = a.splits_per_fit or a.splits
    print(
        f"{os.cpu_count()} cores; {items['subset'].nunique()} groups x {a.splits} splits, "
        f"{size} per fit, {a.method}{'; warmed' if a.warm else ''}"
    )
    if a.warm:
        print(f"  warm-up here: {_warm(a.judge, size, a.method):.1f} s")
    times, tables, cpu = {}, {}, {}
    runs = [("serial", None)] + ([("serial, 1 core", {min(cores)})] if a.one_core_serial else [])
    for name, pin in runs:
        _pin(pin or cores)
        c0, t0 = time.process_time(), time.perf_counter()
        tables[name] = split_protocol(items, **kw).splits
        times[name] = time.perf_counter() - t0
        cpu[name] = time.process_time() - c0
    _pin(cores)  # the pool's and the cluster's processes get every core
    t0 = time.perf_counter()
    tables["processes(2)"] = split_protocol(items, executor=2, **kw).splits
    times["processes(2)"] = time.perf_counter() - t0
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        start = time.perf_counter() - t0
        if a.warm:
            w = client.run(_warm, a.judge, size, a.method)
            print(f"  warm-up on the workers: {', '.join(f'{v:.1f} s' for v in w.values())}")
        t1 = time.perf_counter()
        tables["LocalCluster(2)"] = split_protocol(items, executor=client, **kw).splits
        times["LocalCluster(2)"] = time.perf_counter() - t1
    base = [n for n, _ in runs]
    for name, t in times.items():
        same = (
            ""
            if name == "serial"
            else ("identical" if tables[name].equals(tables["serial"]) else "DIFFERENT")
        )
        ratios = "  ".join(f"{times[b] / t:4.2f}x over {b}" for b in base)
        print(f"  {name:16s} {t:7.1f} s  {ratios}  {same}")
    print(f"  (LocalCluster start-up {start:.1f} s, not counted above)")
    for name in base:
        print(f"  {name}: {cpu[name]:.1f} s of CPU in {times[name]:.1f} s wall")


if __name__ == "__main__":
    main()
