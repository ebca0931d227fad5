"""Active labelling when some requested labels never come back: coverage of
``jb.active_estimate(lost="at_random")``.

Own simulator (numpy): 1,000 items, a judge's score p ~ Beta(2, 2), the human label
y ~ Bernoulli(p); two rounds planned by ``jb.plan.label_next`` (60 expected labels each);
30% of each round's requested labels lost at random.  Rows: the returned share taken
(``lost="at_random"``) and the lost items simply left out of the rounds (their
probabilities as planned).  Nominal 95%.

    python benchmarks/active_nonresponse.py [--sets 200]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb


def one(seed: int, loss: float = 0.3) -> tuple[bool, float, bool]:
    rng = np.random.default_rng([11, seed])
    p = rng.beta(2, 2, 1000)
    y = (rng.random(1000) < p).astype(float)
    frame = pd.DataFrame({"judge": p, "human": np.nan, "round": np.nan})
    for r in (1, 2):
        plan = jb.plan.label_next(frame, "judge", "human", 60, random_seed=seed * 10 + r)
        frame[f"p{r}"] = plan["prob"].to_numpy()
        drawn = plan["label_now"].to_numpy(bool) & frame["round"].isna().to_numpy()
        back = drawn & (rng.random(1000) >= loss)
        frame.loc[drawn, "round"] = r
        frame.loc[back, "human"] = y[back]
    kw = {"round": "round", "probs": ["p1", "p2"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        taken = jb.active_estimate(frame, "judge", "human", lost="at_random", **kw)
        left = frame.assign(round=frame["round"].where(frame["human"].notna()))
        try:
            naive = jb.active_estimate(left, "judge", "human", **kw)
        except jb.InputError:  # refused: the rounds hold fewer labels than their plans drew
            naive = None
    truth = y.mean()
    covered = np.nan if naive is None else float(naive["lower"] <= truth <= naive["upper"])
    return bool(taken["lower"] <= truth <= taken["upper"]), covered, naive is None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=200)
    n = ap.parse_args().sets
    res = np.array([one(s) for s in range(n)], dtype=float)
    sd = np.sqrt(0.95 * 0.05 / n)
    print("| lost labels (30% at random) | coverage (95%) | MC sd | refused |")
    print("|---|---|---|---|")
    print(f"| returned share taken (`lost='at_random'`) | {res[:, 0].mean():.3f} | {sd:.3f} | 0 |")
    print(
        f"| lost items left out, probabilities as planned | {np.nanmean(res[:, 1]):.3f} "
        f"(of the sets not refused) | {sd:.3f} | {res[:, 2].mean():.3f} |"
    )


if __name__ == "__main__":
    main()
