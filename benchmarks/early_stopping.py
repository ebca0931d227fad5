"""Stopping an eval early: ``jb.plan.early_stop`` against a raw-score Bayesian rule (the rule
of UK AISI's optstop as its Inspect manager applies it: a Beta(1, 1) posterior on the judge's
pass rate, stop once the 95% credible interval is narrow enough, checked after every
sample, no judge correction), on the same simulated runs.

Own simulator (numpy): an eval of N = 1000 samples run in random order; each sample's true
label is 1 with the row's rate (the target is the set's true pass rate, the mean of the
1000 labels); a biased judge (sensitivity 0.9, specificity 0.8); each sample labelled by a
human with probability 0.1 or 0.3.  Rules: stop once the interval's width is at most 0.1
(or 0.2), or once it lies wholly above or below the claim 0.7; no stop before 10 samples.  Coverage
is of the set's true pass rate by the interval at the stop (nominal 0.95); saved is
N - samples run (a fixed-size run saves 0); labels are those used up to the stop.  Beside
them, the labels' own sequence (the judge ignored), and the sequence one would get by
betting directly on the pseudo-outcome
f + R / pi (y - f) (mapped to [0, 1], without replacement), which the package does not use
(judgebayes/inference/stopping.py says why).

    python benchmarks/early_stopping.py [--sets 200]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

import judgebayes as jb
from judgebayes.inference.sequences import betting_sequence

N, SENS, SPEC, MIN = 1000, 0.9, 0.8, 10


def one_run(rng, rate, pi, sens=SENS, spec=SPEC):
    y = (rng.random(N) < rate).astype(float)
    f = np.where(y == 1, rng.random(N) < sens, rng.random(N) > spec).astype(float)
    lab = np.where(rng.random(N) < pi, y, np.nan)
    return y, f, lab


def first_stop(lo, hi, width, claim):
    """The first look (0-based) at which the interval stops the run, else the last."""
    n = np.arange(1, lo.size + 1)
    stop = (hi - lo <= width) if width is not None else (lo > claim) | (hi < claim)
    stop &= n >= MIN
    return int(np.argmax(stop)) if stop.any() else lo.size - 1


def raw_bayes(f, width, claim):
    """Beta(1, 1) posterior on the judge's verdicts; 95% equal-tailed credible interval."""
    k = np.cumsum(f)
    n = np.arange(1, f.size + 1)
    lo = stats.beta.ppf(0.025, 1 + k, 1 + n - k)
    hi = stats.beta.ppf(0.975, 1 + k, 1 + n - k)
    at = first_stop(lo, hi, width, claim)
    return lo[at], hi[at], at + 1


def wrong(lo, hi, truth, claim):
    """The interval settled the claim on the wrong side of the set's true rate."""
    return claim is not None and ((lo > claim >= truth) or (hi < claim <= truth))


def labels_alone(y, lab, width, claim):
    """The betting sequence on the labels alone (the judge ignored), read after each sample."""
    has = ~np.isnan(lab)
    lo, hi = betting_sequence(y[has], N, 0.05)
    m = np.cumsum(has) - 1
    lo = np.where(m >= 0, lo[np.maximum(m, 0)], 0.0)
    hi = np.where(m >= 0, hi[np.maximum(m, 0)], 1.0)
    at = first_stop(lo, hi, width, claim)
    return lo[at], hi[at], at + 1


def pseudo_outcome(f, lab, pi, width, claim):
    """The betting sequence on z = f + R/pi (y - f), mapped to [0, 1] and back."""
    has = ~np.isnan(lab)
    z = f + np.where(has, (np.nan_to_num(lab) - f) / pi, 0.0)
    low, span = 1.0 - 1.0 / pi, 2.0 / pi - 1.0
    lo, hi = betting_sequence((z - low) / span, N, 0.05)
    lo, hi = np.clip(low + span * lo, 0, 1), np.clip(low + span * hi, 0, 1)
    at = first_stop(lo, hi, width, claim)
    return lo[at], hi[at], at + 1


def row(rate, pi, width, claim, sets, judge=(SENS, SPEC)):
    rule = int(100 * (width or 0))
    good = [] if judge == (SENS, SPEC) else [int(100 * judge[0])]
    rng = np.random.default_rng([11, int(rate * 10), int(pi * 10), rule, *good])
    keys = ("cov", "saved", "labels", "early", "wrong", "b_cov", "b_saved", "b_wrong", "l_saved")
    keys += ("z_cov",)
    out = {k: [] for k in keys}
    for _ in range(sets):
        y, f, lab = one_run(rng, rate, pi, *judge)
        truth = y.mean()
        d = jb.plan.early_stop(f, lab, population=N, label_prob=pi, width=width, claim=claim)
        out["cov"].append(d.lower <= truth <= d.upper)
        out["saved"].append(d.saved)
        out["labels"].append(d.n_labelled)
        out["early"].append(d.saved > 0)
        out["wrong"].append(wrong(d.lower, d.upper, truth, claim))
        lo, hi, n = raw_bayes(f, width, claim)
        out["b_cov"].append(lo <= truth <= hi)
        out["b_wrong"].append(wrong(lo, hi, truth, claim))
        out["b_saved"].append(N - n)
        lo, hi, n = labels_alone(y, lab, width, claim)
        out["l_saved"].append(N - n)
        lo, hi, n = pseudo_outcome(f, lab, pi, width, claim)
        out["z_cov"].append(lo <= truth <= hi)
    return {k: float(np.mean(v)) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=200)
    ap.add_argument("--judges", choices=("both", "biased", "good"), default="both")
    args = ap.parse_args()
    sets = args.sets
    sd = np.sqrt(0.95 * 0.05 / sets)
    print(f"{sets} runs a row; Monte-Carlo sd of a 0.95 coverage {sd:.3f}\n")
    print(
        "| judge | true rate | label prob | stop when | coverage | saved | labels used "
        "| stopped early | claim settled wrongly | raw Bayes: coverage | raw Bayes: saved "
        "| raw Bayes: claim settled wrongly | labels alone: saved "
        "| pseudo-outcome betting: coverage |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    if args.judges in ("both", "biased"):
        rows += [
            ((SENS, SPEC), rate, pi, width, claim)
            for width, claim in ((0.1, None), (0.2, None), (None, 0.7))
            for rate in (0.6, 0.8)
            for pi in (0.1, 0.3)
        ]
    if args.judges in ("both", "good"):  # a judge that rarely errs: where it helps
        rows += [
            ((0.97, 0.97), 0.8, pi, width, claim)
            for width, claim in ((0.2, None), (None, 0.7))
            for pi in (0.1, 0.3)
        ]
    for judge, rate, pi, width, claim in rows:
        r = row(rate, pi, width, claim, sets, judge)
        rule = f"width <= {width}" if width else f"claim {claim} settled"
        w, bw = (f"{r['wrong']:.3f}", f"{r['b_wrong']:.3f}") if claim else ("-", "-")
        print(
            f"| {judge[0]} / {judge[1]} | {rate} | {pi} | {rule} | {r['cov']:.3f} | "
            f"{r['saved']:.0f} | {r['labels']:.0f} | {r['early']:.2f} | {w} | {r['b_cov']:.3f} | "
            f"{r['b_saved']:.0f} | {bw} | {r['l_saved']:.0f} | {r['z_cov']:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
