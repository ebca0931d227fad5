"""Coverage of the scores closed form when whole clusters are labelled: prompts with several
responses each, a prompt effect on the human score and a prompt effect on the judge's
leniency (so the residuals of one prompt move together), and the labels taken on a few
whole prompts rather than spread over them.

The simulator is written here, not taken from the package.

    python benchmarks/scores_cluster_labelling.py [--sets 400]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb

#: (prompts, responses per prompt, prompts labelled whole, share labelled at random instead)
DESIGNS = [
    (12, 25, 3, None),
    (12, 25, 6, None),
    (30, 10, 8, None),
    (12, 25, None, 0.25),
]


def one_set(rng, prompts, per, whole, share):
    """Human scores 1-5 (a prompt effect sd 0.6, a response noise sd 0.8); the judge's
    1-10 score twice the human's plus a prompt's leniency (sd 1.0) and noise (sd 1.2)."""
    prompt = np.repeat(np.arange(prompts), per)
    human = np.clip(
        np.round(3 + rng.normal(0, 0.6, prompts)[prompt] + rng.normal(0, 0.8, prompt.size)), 1, 5
    )
    lenient = rng.normal(0, 1.0, prompts)[prompt]
    score = np.clip(np.round(2 * human + lenient + rng.normal(0, 1.2, prompt.size)), 1, 10)
    if whole is not None:
        lab = np.isin(prompt, rng.choice(prompts, whole, replace=False))
    else:
        lab = rng.random(prompt.size) < share
    frame = pd.DataFrame({"prompt": prompt, "score": score, "human": np.where(lab, human, np.nan)})
    return frame, human.mean()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=400)
    args = ap.parse_args()
    truth = 3.0  # the human score is 3 plus noise symmetric about 0, rounded and clipped
    sd = np.sqrt(0.95 * 0.05 / args.sets)
    print(f"{args.sets} sets a row; Monte-Carlo sd {sd:.4f}; the process mean {truth:.4f}")
    print("| prompts x responses | labelled | estimand | coverage (95%) | mean width | warned |")
    print("|---|---|---|---|---|---|")
    for i, (prompts, per, whole, share) in enumerate(DESIGNS):
        for estimand in ("items", "process"):
            rng = np.random.default_rng(100 + i)
            hits, widths, warned = 0, [], 0
            for _ in range(args.sets):
                frame, items_truth = one_set(rng, prompts, per, whole, share)
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    study = jb.ScoreStudy.from_items(
                        frame, score="score", human="human", cluster="prompt", estimand=estimand
                    )
                    iv = study.fit().interval().iloc[0]
                warned += any(issubclass(x.category, jb.errors.JudgeBayesWarning) for x in w)
                t = items_truth if estimand == "items" else truth
                hits += bool(iv["lower"] <= t <= iv["upper"])
                widths.append(iv["upper"] - iv["lower"])
            how = f"{whole} whole prompts" if whole is not None else f"{share:.0%} at random"
            print(
                f"| {prompts} x {per} | {how} | {estimand} | {hits / args.sets:.3f} | "
                f"{np.mean(widths):.3f} | {warned / args.sets:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
