"""The score closed form's width against the labels alone on HANNA, with and without power
tuning, and its coverage: rows labelled at random, 200 labellings a row.

    python benchmarks/scores_power_tuning.py --reps 200
    python benchmarks/scores_power_tuning.py --every --reps 40

``--every``: every criterion x judge x Eval-Prompt of HANNA (6 x 5 x 4) at 10%, 15% and 25%
labels, the tuned closed form's width (items and process) over the labels-only interval's
on the same labellings; it prints each set-up's ratios and the largest.

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


def every(reps: int) -> None:
    """The width ratios on every HANNA set-up (module docstring)."""
    from judgebayes.datasets.hanna import HANNA_CRITERIA, HANNA_JUDGES

    worst: dict[str, tuple[float, str]] = {}
    print("| criterion / judge / prompt | labelled | items / labels only | process / labels only |")
    print("|---|---|---|---|")
    for crit in HANNA_CRITERIA:
        for judge in HANNA_JUDGES:
            for prompt in (1, 2, 3, 4):
                st = hanna_scores(crit, judge, prompt=prompt)
                for frac in (0.10, 0.15, 0.25):
                    w = {k: [] for k in ("items", "process", "labels_only")}
                    for r in range(reps):
                        rated = np.random.default_rng([7000, r]).random(len(st)) < frac
                        frame = st.assign(human=st["human_mean"].where(rated))
                        for est in ("items", "process"):
                            study = jb.ScoreStudy.from_items(
                                frame,
                                score=judge,
                                human="human",
                                system="system",
                                scale=(1, 5),
                                estimand=est,
                            )
                            iv = study.fit("closed_form", random_seed=r).interval()
                            w[est].append(float((iv["upper"] - iv["lower"]).mean()))
                        iv = study.fit("labels_only").interval()
                        w["labels_only"].append(float((iv["upper"] - iv["lower"]).mean()))
                    lo = np.mean(w["labels_only"])
                    ratio = {k: np.mean(w[k]) / lo for k in ("items", "process")}
                    name = f"{crit} / {judge} / p{prompt}"
                    for k, v in ratio.items():
                        if v > worst.get(k, (0.0, ""))[0]:
                            worst[k] = (v, f"{name} at {frac:.0%}")
                    print(
                        f"| {name} | {frac:.0%} | {ratio['items']:.3f} | {ratio['process']:.3f} |",
                        flush=True,
                    )
    for k, (v, where) in worst.items():
        print(f"largest {k} ratio: {v:.3f} ({where})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--every", action="store_true")
    args = p.parse_args()
    warnings.simplefilter("ignore")
    if args.every:
        every(args.reps)
        return
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
