"""The engines' speed on whatever PyMC / ArviZ stack this interpreter has, in one process.

Run it once per stack on the same machine and day, and put the two columns side by side:

    python benchmarks/stack.py            # this checkout's venv (PyMC 6, ArviZ 1)
    OLD/bin/python benchmarks/stack.py    # a venv of an older checkout (PyMC 5, ArviZ 0.x)

It uses only the API both share (``study.fit``), so the same file times either checkout.
Every row is the median of repeated runs after one warm-up (compiles excluded), except the
cold row: a new process that imports, compiles and samples.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

import judgebayes as jb

warnings.filterwarnings("ignore")


def _median(fn, runs: int) -> float:
    out = []
    for i in range(runs):
        t0 = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    import arviz
    import pymc

    print(
        f"python {sys.version.split()[0]}, pymc {pymc.__version__}, arviz {arviz.__version__}, "
        f"{os.cpu_count()} cores"
    )
    sim = jb.simulate.simulate_accuracy(
        np.linspace(0.3, 0.7, 9), 0.7, 0.9, 1000, m0=100, m1=100, reps=3, random_seed=1
    )
    data = list(zip(sim.k.ravel(), sim.tp.ravel(), sim.tn.ravel(), strict=True))

    def study(i):
        k, tp, tn = data[i % len(data)]
        return jb.AccuracyStudy.from_counts(
            k=int(k), n=1000, tn=int(tn), m0=100, tp=int(tp), m1=100
        )

    rows = []

    def row(name, fn, runs):
        fn(0)  # warm-up: compiles
        rows.append((name, _median(fn, runs)))
        print(f"{name}: {rows[-1][1]:.4f} s", flush=True)

    row("binary NUTS, warm refit (4 x 1000)", lambda i: study(i).fit("nuts", random_seed=i), 15)
    row(
        "binary NUTS, pm.sample per dataset",
        lambda i: study(i).fit("nuts", random_seed=i, sampler={"backend": "pymc"}),
        3,
    )
    # README's example: Laplace's importance check accepts it (it refuses much of the grid
    # above, on both stacks: k-hat 0.8-1.0 where the posterior of (theta, q0, q1) is skewed)
    readme = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    row("binary Laplace, warm (4000 draws)", lambda i: readme.fit("laplace", random_seed=i), 15)
    row("binary exact (64 nodes, 4000 draws)", lambda i: study(i).fit("exact", random_seed=i), 15)
    row("binary closed form", lambda i: study(i).fit("closed_form"), 200)
    items = jb.simulate.simulate_items(5000, n_labelled=500, seed=1).frame
    istudy = jb.AccuracyStudy.from_items(items)
    row("items closed form, 5,000 items", lambda i: istudy.fit("closed_form"), 200)
    row("items Laplace (numpy density)", lambda i: istudy.fit("laplace", random_seed=i), 10)
    row("items exact", lambda i: istudy.fit("exact", random_seed=i), 20)
    rk = jb.simulate.controlled_benchmark(seed=0).ranking()
    row(
        "ranking Laplace, normal prior (30 items)",
        lambda i: rk.fit("laplace", random_seed=i, warn=False),
        20,
    )
    code = (
        "import judgebayes as jb; jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, "
        "tp=90, m1=100).fit('nuts', random_seed=0)"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=True, capture_output=True)
    print(f"cold first NUTS fit, new process: {time.perf_counter() - t0:.2f} s")
    warm, pms = rows[0][1], rows[1][1]
    print(f"warm refit vs pm.sample: {pms / warm:.1f}x")


if __name__ == "__main__":
    main()
