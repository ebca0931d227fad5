"""Warm and cold fit times of the defaults against the defaults they replaced.

For each case, the new default and the old one on the same data: the cold time is a fresh
``python`` process (import, build, compile, sample; one run), the warm time the median of
``--repeats`` refits in this process after a first fit (compiles excluded).

* several judges, 400 items x 3 judges, 30% labelled: ``exact`` (vote-count posterior,
  the default now) against ``nuts`` (the latent-class model, the default before);
* a judge-error ranking of PandaLM size (999 pairs, 2 judges, 20% human-labelled): the
  channel whose judges may favour items (default now) against the constant channel;
* two systems on the same 400 prompts (``item=``): paired NUTS against the closed form;
* two systems x 400 items, 100 labelled each, one judge: NUTS with the judge's rates
  pooled across systems (the default now) against shared rates (the default before);
* the same items with a length covariate: the covariate model against the plain one.

Run: python benchmarks/default_fits.py [--repeats 3] [--cases ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings

_TWO_SYSTEMS = """
import numpy as np, pandas as pd, judgebayes as jb
rng = np.random.default_rng(0)
frames = []
for s, spec in (("A", 0.8), ("B", 0.6)):
    x = rng.normal(0.5 if s == "B" else -0.5, 1, 400)
    h = rng.random(400) < 0.6
    v = np.where(h, rng.random(400) < 0.85, rng.random(400) >= spec)
    human = np.where(np.arange(400) < 100, h.astype(float), np.nan)
    frames.append(pd.DataFrame({"system": s, "judge": v.astype(int), "human": human,
                                "length": 200 + 60 * x}))
frame = pd.concat(frames, ignore_index=True)
"""
CASES = {
    "several judges": """
import numpy as np, judgebayes as jb
sim = jb.simulate.simulate_items(400, theta=0.6, sensitivity=[0.85, 0.8, 0.75],
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
frame, _, _ = jb.simulate.simulate_paired(400, seed=0)
study = jb.AccuracyStudy.from_items(frame, system="system", item="prompt")
FIT = lambda m, s: study.fit(m, random_seed=s)
""",
    "several systems, one judge": _TWO_SYSTEMS
    + """
FIT = lambda m, s: jb.AccuracyStudy.from_items(frame, system="system", judge_rates=m).fit(
    "nuts", random_seed=s)
""",
    "item covariate": _TWO_SYSTEMS
    + """
FIT = lambda m, s: jb.AccuracyStudy.from_items(
    frame, system="system", covariates=None if m == "none" else m).fit("nuts", random_seed=s)
""",
}
METHODS = {
    "several judges": ("exact", "nuts"),
    "judge-error ranking, PandaLM": ("auto", "none"),
    "two systems, same prompts": ("nuts", "closed_form"),
    "several systems, one judge": ("pooled", "shared"),
    "item covariate": ("length", "none"),
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
    ap.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'case':30s} {'method':12s} {'warm s':>8s} {'cold s':>8s}")
    for case in a.cases:
        setup = CASES[case]
        for method in METHODS[case]:
            w = warm(setup, method, a.repeats)
            c = cold(setup, method)
            print(f"{case:30s} {method:12s} {w:8.2f} {c:8.1f}", flush=True)


if __name__ == "__main__":
    main()
