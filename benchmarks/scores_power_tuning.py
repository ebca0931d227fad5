"""The score closed form's width against the labels alone on HANNA, with and without power
tuning, and its coverage: rows labelled at random, 200 labellings a row.

    python benchmarks/scores_power_tuning.py --reps 200

The target is each generator's mean human rating over all its 96 stories (the items
estimand; the process interval is also shown against it, so its coverage is conservative).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import judgebayes as jb
from judgebayes.datasets import hanna_scores

SETUPS = [("RE", "Beluga-13B"), ("SU", "Mistral-7B"), ("EG", "ChatGPT")]


def row(crit: str, judge: str, frac: float, estimand: str, reps: int) -> str:
    st = hanna_scores(crit, judge)
    truth = st.groupby("system")["human_mean"].mean()
    fits = {"tuned": {}, "untuned": {"power_tuning": False}}
    width = {k: [] for k in (*fits, "labels_only")}
    cover = {k: [] for k in width}
    for r in range(reps):
        rated = np.random.default_rng(5000 + r).random(len(st)) < frac
        frame = st.assign(human=st["human_mean"].where(rated))
        study = jb.ScoreStudy.from_items(
            frame, score=judge, human="human", system="system", scale=(1, 5), estimand=estimand
        )
        ivs = {
            k: study.fit("closed_form", random_seed=r, **kw).interval() for k, kw in fits.items()
        }
        ivs["labels_only"] = study.fit("labels_only").interval()
        for k, iv in ivs.items():
            t = truth[iv.index]
            width[k].append(float((iv["upper"] - iv["lower"]).mean()))
            cover[k].append(float(((iv["lower"] <= t) & (t <= iv["upper"])).mean()))
    lo = np.mean(width["labels_only"])
    return (
        f"| {crit} / {judge} | {frac:.0%} | {estimand} | "
        f"{np.mean(cover['tuned']):.3f} / {np.mean(width['tuned']) / lo:.3f} | "
        f"{np.mean(cover['untuned']):.3f} / {np.mean(width['untuned']) / lo:.3f} | "
        f"{np.mean(cover['labels_only']):.3f} |"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--reps", type=int, default=200)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    print(
        "| set-up | labelled | estimand | closed form, tuned: coverage / width vs labels "
        "only | untuned | labels only: coverage |"
    )
    print("|---|---|---|---|---|---|")
    for estimand in ("items", "process"):
        for frac in (0.10, 0.15, 0.25):
            for crit, judge in SETUPS:
                print(row(crit, judge, frac, estimand, args.reps), flush=True)


if __name__ == "__main__":
    main()
