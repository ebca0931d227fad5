"""Active labelling when some requested labels never come back: coverage of
``jb.active_estimate(lost=...)``.

Own simulator (numpy): 1,000 items, a judge's score p ~ Beta(2, 3), the human label
y ~ Bernoulli(p) below a score of 0.55 and Bernoulli(0.95) above it (a judge that
under-rates its confident passes, which a working model linear in the score misses); two
rounds planned by ``jb.plan.label_next`` (60 expected labels each).
About 30% of each round's requested labels are lost, either at random or on hard items
(lost with probability 0.6 where the judge's score is above 0.55 and 0.1 below: the
answers labellers skip).  Rows: the returned share taken over the round
(``lost="at_random"``), within bins of the judge's score (``lost="by_score"``), and the
lost items simply left out of the rounds (their probabilities as planned).  Nominal 95%.

    python benchmarks/active_nonresponse.py [--sets 200]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb

REMEDIES = ("at_random", "by_score", "left out")


def loss_rate(p: np.ndarray, how: str) -> np.ndarray:
    return np.full(p.size, 0.3) if how == "at random" else np.where(p > 0.55, 0.6, 0.1)


def one(seed: int, how: str) -> list[float]:
    """Coverage of each remedy on one simulated log (NaN where refused)."""
    rng = np.random.default_rng([11, seed])
    p = rng.beta(2, 3, 1000)
    y = (rng.random(1000) < np.where(p > 0.55, 0.95, p)).astype(float)
    frame = pd.DataFrame({"judge": p, "human": np.nan, "round": np.nan})
    for r in (1, 2):
        plan = jb.plan.label_next(frame, "judge", "human", 60, random_seed=seed * 10 + r)
        frame[f"p{r}"] = plan["prob"].to_numpy()
        drawn = plan["label_now"].to_numpy(bool) & frame["round"].isna().to_numpy()
        back = drawn & (rng.random(1000) >= loss_rate(p, how))
        frame.loc[drawn, "round"] = r
        frame.loc[back, "human"] = y[back]
    kw = {"round": "round", "probs": ["p1", "p2"]}
    out = []
    for remedy in REMEDIES:
        data, lost = frame, remedy
        if remedy == "left out":
            data = frame.assign(round=frame["round"].where(frame["human"].notna()))
            lost = "refuse"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = jb.active_estimate(data, "judge", "human", lost=lost, **kw)
            out.append(float(e["lower"] <= y.mean() <= e["upper"]))
        except jb.InputError:  # refused (the off-plan check, an empty score bin)
            out.append(np.nan)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=200)
    n = ap.parse_args().sets
    sd = np.sqrt(0.95 * 0.05 / n)
    print(f"{n} sets a row; Monte-Carlo sd {sd:.3f}")
    print("| labels lost | remedy | coverage (95%) of the sets not refused | refused |")
    print("|---|---|---|---|")
    for how in ("at random", "on hard items"):
        res = np.array([one(s, how) for s in range(n)], dtype=float)
        for j, remedy in enumerate(REMEDIES):
            name = f"`lost='{remedy}'`" if remedy != "left out" else "left out, as planned"
            refused = np.isnan(res[:, j]).mean()
            print(f"| {how} | {name} | {np.nanmean(res[:, j]):.3f} | {refused:.3f} |", flush=True)


if __name__ == "__main__":
    main()
