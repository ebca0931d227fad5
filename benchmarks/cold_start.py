"""A NUTS fit's cold start in a new process, the first time and again: how long until the
first draw, and how much of it is compiling.

Each run is a fresh interpreter that fits the README's accuracy study by NUTS (seed 0) and
reports its import time, the compile time (PyMC model to nutpie's numba functions) and the
sampling time. PyTensor's own compile cache (in the home folder) serves the second
process; nutpie's numba wrapper functions are compiled in every process (numba cannot cache
them: they close over the model's generated functions), with ``cache=True`` passed to
``numba.cfunc`` or not.

    python benchmarks/cold_start.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CODE = r"""
import json, time
t0 = time.perf_counter()
import judgebayes as jb
import nutpie
from judgebayes.inference.nuts import sampling as S
orig, spent = S.cached_compile, {}
if CACHE:
    real = nutpie.compile_pymc_model
    nutpie.compile_pymc_model = lambda m, **k: real(m, cache=True, **k)
def timed(spec):
    t = time.perf_counter(); out = orig(spec); spent["compile"] = time.perf_counter() - t
    return out
S.cached_compile = timed
study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
t1 = time.perf_counter()
study.fit("nuts", random_seed=0)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "compile": spent["compile"],
                  "to first draw": t1 - t0 + spent["compile"], "fit": t2 - t1}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    print(
        "| numba cfunc cache | run | import (s) | compile (s) | to the first draw (s) | fit (s) |"
    )
    print("|---|---|---|---|---|---|")
    for cache in (False, True):
        for run in range(1, a.runs + 1):
            out = subprocess.run([sys.executable, "-c", CODE.replace("CACHE", str(cache))],
                                 capture_output=True, text=True, check=True)  # fmt: skip
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"| {'on' if cache else 'off'} | {run} | {r['import']:.2f} | "
                f"{r['compile']:.2f} | {r['to first draw']:.2f} | {r['fit']:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
