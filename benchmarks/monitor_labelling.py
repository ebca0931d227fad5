"""``jb.monitor`` when each period's labels are not a random sample of it: the sequence's
misses and the within-period labelling warning.

Own simulator (numpy): 12 weeks of 1,500 items whose true label follows the arrival order
(logit of the positive rate an AR(1) walk along the items, correlation 0.995 from one item
to the next, sd 1), a judge with sensitivity 0.9 and specificity 0.8, 40 labels a week:
on the week's first 40 arrivals, on one batch of 40 consecutive items, or on 40 items
drawn at random (the design the sequence assumes); and the same three on items that
arrive in random order (no drift within a week).  A stream misses when the sequence
excludes the running rate of the items so far at any week.

    python benchmarks/monitor_labelling.py [--streams 200]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb

WEEKS, PER_WEEK, LABELS = 12, 1500, 40


def stream(rng, design: str, drifting: bool) -> tuple[bool, bool]:
    n = WEEKS * PER_WEEK
    if drifting:
        e = rng.normal(0, np.sqrt(1 - 0.995**2), n)
        x = np.empty(n)
        x[0] = rng.normal()
        for i in range(1, n):
            x[i] = 0.995 * x[i - 1] + e[i]
    else:
        x = rng.normal(0, 1, n)
    t = (rng.random(n) < 1 / (1 + np.exp(-(0.4 + x)))).astype(int)
    f = np.where(t == 1, rng.random(n) < 0.9, rng.random(n) < 0.2).astype(int)
    human = np.full(n, np.nan)
    for w in range(WEEKS):
        lo = w * PER_WEEK
        if design == "first 40":
            pick = np.arange(lo, lo + LABELS)
        elif design == "one batch":
            start = lo + LABELS * int(rng.integers(PER_WEEK // LABELS))
            pick = np.arange(start, start + LABELS)
        else:
            pick = lo + rng.choice(PER_WEEK, LABELS, replace=False)
        human[pick] = t[pick]
    frame = pd.DataFrame(
        {"week": np.repeat(np.arange(WEEKS), PER_WEEK), "judge": f, "human": human}
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = jb.monitor(frame, "judge", "human", "week")
    running = np.cumsum(t)[PER_WEEK - 1 :: PER_WEEK] / np.arange(PER_WEEK, n + 1, PER_WEEK)
    lower, upper = table["lower"].to_numpy(), table["upper"].to_numpy()
    missed = bool(np.any((running < lower) | (running > upper)))
    warned = any("not a random sample of their period" in str(w.message) for w in caught)
    return missed, warned


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=200)
    n = ap.parse_args().streams
    print("| items within a week | labels | streams | sequence misses | warning |")
    print("|---|---|---|---|---|")
    for drifting in (True, False):
        for design in ("first 40", "one batch", "random 40"):
            rng = np.random.default_rng([3, int(drifting), len(design)])
            res = np.array([stream(rng, design, drifting) for _ in range(n)])
            kind = "drift along arrivals" if drifting else "in random order"
            print(f"| {kind} | {design} | {n} | {res[:, 0].mean():.3f} | {res[:, 1].mean():.3f} |")


if __name__ == "__main__":
    main()
