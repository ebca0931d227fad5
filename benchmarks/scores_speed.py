"""Judges that give scores: time per call on HANNA (11 systems x 96 stories, a fifth rated),
judgebayes against CJE, ppi_py and ppi-aipw in the same process.

Each method runs on the same labelling; the figure is the median of ``--repeats`` calls
after one warm-up call (so NUTS is a warm refit: its model compiled once).  The peers take
one system per call, so their time is the sum over the 11 systems.

Run: python benchmarks/scores_speed.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings

import numpy as np

import judgebayes as jb
from judgebayes.datasets import hanna_scores


def timed(fn, repeats: int) -> float:
    fn()  # warm-up (a compile, caches)
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return float(np.median(out))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=20)
    a = p.parse_args()
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    from cje import calibrated_mean_ci
    from ppi_aipw import mean_inference
    from ppi_py import ppi_mean_ci

    stories = hanna_scores("RE", "Beluga-13B")
    rated = np.random.default_rng(0).random(len(stories)) < 0.2
    stories["human"] = stories["human_mean"].where(rated)
    kw = dict(score="Beluga-13B", human="human", system="system", scale=(1, 5))
    study = jb.ScoreStudy.from_items(stories, item="prompt_id", **kw)
    groups = [
        (g["Beluga-13B"].to_numpy(), g["human"].to_numpy()) for _, g in stories.groupby("system")
    ]

    def cje():
        for s, h in groups:
            calibrated_mean_ci(s, (h - 1) / 4)

    def ppi():
        for s, h in groups:
            m = ~np.isnan(h)
            ppi_mean_ci(h[m], s[m], s[~m], alpha=0.05)

    def aipw():
        for s, h in groups:
            m = ~np.isnan(h)
            mean_inference(h[m], s[m], s[~m], method="isotonic", alpha=0.05)

    rows = {
        "judgebayes closed_form (from the frame)": lambda: (
            jb.ScoreStudy.from_items(stories, item="prompt_id", **kw).fit().interval()
        ),
        "judgebayes closed_form (fit only)": lambda: study.fit().interval(),
        "judgebayes nuts (warm)": lambda: study.fit("nuts", random_seed=1).interval(),
        "CJE calibrated_mean_ci x 11": cje,
        "ppi_py ppi_mean_ci x 11": ppi,
        "ppi-aipw mean_inference(isotonic) x 11": aipw,
    }
    secs = {}
    for name, fn in rows.items():
        reps = max(3, a.repeats // 4) if "nuts" in name or "CJE" in name else a.repeats
        secs[name] = timed(fn, reps)
    base = secs["judgebayes closed_form (from the frame)"]
    for name, s in secs.items():
        print(f"{name:42s} {1000 * s:10.1f} ms   {s / base:8.2f}x the closed form")


if __name__ == "__main__":
    main()
