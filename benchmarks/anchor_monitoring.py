"""The anchor design: who drifted, the judge or the system.

Own simulator (numpy): 12 weeks of 1,500 new items and 100 anchors (human labels fixed,
prevalence 0.7) re-judged every week.  Each item and anchor has its own chance that the
judge gets it right (Beta around the judge's rate, concentration 10: some items are
hard, so an anchor's weekly verdicts are not one binomial), drawn afresh every week.
The judge's sensitivity is 0.9 and specificity 0.85; the system's true pass rate 0.7.
Rows: no drift; the judge's sensitivity 0.9 -> 0.7 from week 6 (each item's chance scaled
down); the system's pass rate 0.7 -> 0.6 from week 6, judge steady; both.  The first 4
weeks are the reference.  A stream's judge (system) alarm is any alarm of that kind over
the 12 weeks; "by week 7" counts alarms in weeks 6-7.

    python benchmarks/anchor_monitoring.py [--streams 200] [--anchors 100]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

import judgebayes as jb

WEEKS, PER_WEEK, PREVALENCE, SENS, SPEC, DRIFT_WEEK = 12, 1500, 0.7, 0.9, 0.85, 6
CONCENTRATION = 1.0


def _chances(rng, size, rate):
    """Each item's own chance that the judge is right, around ``rate``."""
    return rng.beta(rate * CONCENTRATION, (1 - rate) * CONCENTRATION, size)


def stream(rng, anchors: int, judge_drift: bool, system_drift: bool) -> pd.DataFrame:
    """One stream's log: anchors' and new items' verdicts, one row each."""
    a_label = (rng.random(anchors) < PREVALENCE).astype(int)
    a_right = np.where(a_label == 1, _chances(rng, anchors, SENS), _chances(rng, anchors, SPEC))
    rows = []
    for week in range(1, WEEKS + 1):
        after = week >= DRIFT_WEEK
        scale_sens = 0.7 / 0.9 if (judge_drift and after) else 1.0
        right = np.where(a_label == 1, a_right * scale_sens, a_right)
        said = np.where(rng.random(anchors) < right, a_label, 1 - a_label)
        rows.append(
            pd.DataFrame(
                {
                    "week": week,
                    "item": np.arange(anchors),
                    "judge": said,
                    "human": a_label,
                    "anchor": True,
                }
            )
        )
        prev = 0.6 if (system_drift and after) else PREVALENCE
        label = (rng.random(PER_WEEK) < prev).astype(int)
        chance = np.where(
            label == 1, _chances(rng, PER_WEEK, SENS) * scale_sens, _chances(rng, PER_WEEK, SPEC)
        )
        said = np.where(rng.random(PER_WEEK) < chance, label, 1 - label)
        rows.append(
            pd.DataFrame(
                {
                    "week": week,
                    "item": anchors + np.arange(PER_WEEK),
                    "judge": said,
                    "human": np.nan,
                    "anchor": False,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


ROWS = (("no drift", False, False), ("judge drifts", True, False),
        ("system drifts", False, True), ("both drift", True, True))  # fmt: skip


def one(rng, anchors: int, judge_drift: bool, system_drift: bool) -> dict:
    log = stream(rng, anchors, judge_drift, system_drift)
    table = jb.monitor(log[~log.anchor], "judge", "human", "week", anchors=log[log.anchor],
                       item="item")  # fmt: skip
    by7 = np.arange(len(table)) < 7  # weeks 1-7
    return {
        "judge": bool(table["judge_alarm"].iloc[-1]),
        "system": bool(table["system_alarm"].iloc[-1]),
        "judge by 7": bool(table["judge_alarm"][by7].iloc[-1]),
        "system by 7": bool(table["system_alarm"][by7].iloc[-1]),
        "any": bool(table["judge_alarm"].iloc[-1] or table["system_alarm"].iloc[-1]),
    }


def main() -> None:
    global CONCENTRATION
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--streams", type=int, default=200)
    ap.add_argument("--anchors", type=int, default=100)
    ap.add_argument("--concentration", type=float, nargs="+", default=[10.0, 1.0, 0.3])
    args = ap.parse_args()
    print(f"{args.streams} streams a row, {args.anchors} anchors, alpha 0.05\n")
    print("| judge's self-agreement | drift | judge alarm | by week 7 | system alarm | any alarm |")
    print("|---|---|---|---|---|---|")
    for conc in args.concentration:
        CONCENTRATION = conc
        agree = 1 - 2 * (
            SENS * (1 - SENS) * PREVALENCE + SPEC * (1 - SPEC) * (1 - PREVALENCE)
        ) * conc / (conc + 1)
        for name, jd, sd in ROWS:
            rng = np.random.default_rng([int(conc * 10), jd, sd])
            res = pd.DataFrame([one(rng, args.anchors, jd, sd) for _ in range(args.streams)])
            m = res.mean()
            print(
                f"| {agree:.2f} | {name} | {m['judge']:.3f} | {m['judge by 7']:.3f} | "
                f"{m['system']:.3f} | {m['any']:.3f} |",
                flush=True,
            )
    sd = np.sqrt(0.05 * 0.95 / args.streams)
    print(f"\nMC sd of a rate near 0.05: {sd:.3f}; near 0.9: {np.sqrt(0.09 / args.streams):.3f}")


if __name__ == "__main__":
    main()
