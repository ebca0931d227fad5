"""Warm and cold fit times of the defaults against the defaults they replaced.

For each case, the new default and the old one on the same data: the cold time is a fresh
``python`` process (import, build, compile, sample; one run), the warm time the median of
``--repeats`` refits in this process after a first fit (compiles excluded).

* several judges, 400 items x 3 judges, 30% labelled: ``exact`` (vote-count posterior,
  the default now) against ``nuts`` (the latent-class model, the default before);
* a judge-error ranking of PandaLM size (999 pairs, 2 judges, 20% human-labelled): the
  channel whose judges may favour items (default now) against the constant channel;
* two systems on the same 400 prompts (``item=``): paired NUTS against the closed form.

Run: python benchmarks/default_fits.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings

CASES = {
    "several judges": """
import numpy as np, judgebayes as jb
sim = jb.simulate_items(400, theta=0.6, sensitivity=[0.85, 0.8, 0.75],
                        specificity=[0.8, 0.75, 0.7], n_labelled=120, seed=0)
study = jb.AccuracyStudy.from_items(sim.frame, judge=["judge_1", "judge_2", "judge_3"])
FIT = lambda m, s: study.fit(m, random_seed=s)
""",
    "judge-error ranking, PandaLM": """
import numpy as np, judgebayes as jb
from judgebayes.datasets import pandalm_judged
full = jb.PairwiseRanking.from_frames(pandalm_judged(), human="human", instance="idx")
mask = np.random.default_rng(0).random(full.channel.n_instances) < 0.2
sub = full.with_labelled(mask)
FIT = lambda m, s: sub.fit("judge_error", random_seed=s, judge_bias=m, warn=False)
""",
    "two systems, same prompts": """
import judgebayes as jb
frame, _, _ = jb.simulate_paired(400, seed=0)
study = jb.AccuracyStudy.from_items(frame, system="system", item="prompt")
FIT = lambda m, s: study.fit(m, random_seed=s)
""",
}
METHODS = {
    "several judges": ("exact", "nuts"),
    "judge-error ranking, PandaLM": ("auto", "none"),
    "two systems, same prompts": ("nuts", "closed_form"),
}


def cold(setup: str, method: str) -> float:
    code = f"import time\nt0 = time.perf_counter()\n{setup}\nFIT({method!r}, 0)\n"
    code += "print(time.perf_counter() - t0)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return float(out.stdout.strip().splitlines()[-1])


def warm(setup: str, method: str, repeats: int) -> float:
    ns: dict = {}
    exec(setup, ns)
    ns["FIT"](method, 0)
    times = []
    for s in range(1, repeats + 1):
        t0 = time.perf_counter()
        ns["FIT"](method, s)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'case':30s} {'method':12s} {'warm s':>8s} {'cold s':>8s}")
    for case, setup in CASES.items():
        for method in METHODS[case]:
            w = warm(setup, method, a.repeats)
            c = cold(setup, method)
            print(f"{case:30s} {method:12s} {w:8.2f} {c:8.1f}", flush=True)


if __name__ == "__main__":
    main()
