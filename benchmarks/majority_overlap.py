"""``truth="majority"`` when most labelled items have one rater: coverage and the warning.

Own simulator (numpy only): N items of one system, a judge (sensitivity 0.85, specificity
0.80) on every item, 200 items labelled, three raters each wrong on a share ``err`` of the
items; a share ``overlap`` of the labelled items rated by all three, the rest by one rater
drawn at random.  The estimand is the N items' true rate; the closed form's 95% interval
takes the raters' majority as the truth.  The warning fires when at least half of the
labelled items have one rater, unless the items several raters labelled bound a rater's
error below 8%; the check ``label_agreement`` fails the fit when the raters agree less
than Krippendorff's bar on the items several rated.

    python benchmarks/majority_overlap.py [--sets 400]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb

RATERS = ["r0", "r1", "r2"]


def simulate(rng, overlap, err, n=1000, labelled=200, prevalence=0.6):
    t = (rng.random(n) < prevalence).astype(int)
    judge = np.where(t == 1, rng.random(n) < 0.85, rng.random(n) < 0.20).astype(int)
    rated = np.full((n, 3), np.nan)
    lab = rng.choice(n, labelled, replace=False)
    all_three = rng.random(labelled) < overlap
    for i, every in zip(lab, all_three, strict=True):
        who = range(3) if every else [int(rng.integers(3))]
        for r in who:
            rated[i, r] = t[i] if rng.random() >= err else 1 - t[i]
    frame = pd.DataFrame(rated, columns=RATERS).assign(judge=judge)
    return frame, t.mean()


def run(sets, overlap, err, seed=0):
    covered, warned, failed = [], [], []
    for s in range(sets):
        frame, truth = simulate(np.random.default_rng([seed, s]), overlap, err)
        study = jb.AccuracyStudy.from_items(frame, judge="judge", human=RATERS, truth="majority")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = study.fit("closed_form")
            iv = fit.interval(0.05)
            report = study.check(fit)
        lo, hi = float(iv["lower"].iloc[0]), float(iv["upper"].iloc[0])
        covered.append(lo <= truth <= hi)
        warned.append(any("have one rater" in str(w.message) for w in caught))
        failed.append(any(r.check == "label_agreement" for r in report.failures))
    return np.mean(covered), np.mean(warned), np.mean(failed), np.mean(np.maximum(warned, failed))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=400)
    sets = ap.parse_args().sets
    print(
        "| rated by all three | rater error | coverage (95%) | MC sd | warning | check fails "
        "| either |"
    )
    print("|---|---|---|---|---|---|---|")
    for overlap, err in (
        (0.2, 0.15),
        (0.05, 0.15),
        (0.0, 0.15),
        (1.0, 0.15),
        (1.0, 0.02),
        (0.2, 0.02),
        (0.2, 0.05),
        (0.2, 0.08),
    ):
        cov, warn, fail, either = run(sets, overlap, err)
        sd = np.sqrt(0.95 * 0.05 / sets)
        print(
            f"| {overlap:.0%} | {err:.2f} | {cov:.3f} | {sd:.3f} | {warn:.3f} | {fail:.3f} "
            f"| {either:.3f} |"
        )


if __name__ == "__main__":
    main()
