"""Judge-error-corrected ranking on PandaLM: judge votes + a small human subset, against
the ranking from all human votes.

PandaLM has 999 pairs of five generators' responses, a human majority verdict on every
pair (ties included) and two judges (gpt-3.5-turbo, PandaLM-7B) on the same pairs.  The
reference is Bradley-Terry (Davidson ties) on all 999 human verdicts.  For each of
``--subsets`` random draws of ``--share`` of the pairs as "labelled", four rankings:

- ``judge_error``: the judge-error model (NUTS): qualities of the *human* preference,
  each judge a noisy channel with its own confusion matrix, all pairs' verdicts plus the
  labelled pairs' human verdicts;
- ``ppi``: prediction-powered Bradley-Terry (PPI++) on the same inputs;
- ``humans``: Bradley-Terry on the labelled pairs' human verdicts alone;
- ``judges``: Bradley-Terry on both judges' verdicts alone (the same every draw).

Printed: Kendall tau of each ranking's point estimate against the reference's (mean and
its Monte-Carlo se over draws), the share of (draw, item) 95% intervals that cover the
reference quality (sum-to-zero scale), the mean interval width, and for the NUTS fits the
gate pass count and the time per fit.
``--judge-bias none`` fits the constant channel (one confusion matrix per judge) instead of
the default, whose judges may favour some generators' answers.
Run: python benchmarks/judge_error_pandalm.py [--subsets 50] [--share 0.2] [--judge-bias none]
"""

import argparse
import time
import warnings

import numpy as np
from scipy.stats import kendalltau

from judgebayes.datasets import pandalm_comparisons, pandalm_judged
from judgebayes.errors import ConvergenceWarning
from judgebayes.studies.ranking import PairwiseRanking


def summary(fit, ref):
    iv = fit.interval()
    lo, hi = iv["lower"].to_numpy(), iv["upper"].to_numpy()
    return {
        "tau": kendalltau(fit.point, ref).statistic,
        "cover": np.mean((lo <= ref) & (ref <= hi)),
        "width": np.mean(hi - lo),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--subsets", type=int, default=50)
    ap.add_argument("--share", type=float, default=0.2)
    ap.add_argument(
        "--judge-bias", default="auto", help="'auto' (the default channel) or 'none' (constant)"
    )
    a = ap.parse_args()
    ref = PairwiseRanking.from_frames(pandalm_comparisons("human")).fit("naive", random_seed=0)
    ref_theta = ref.point
    full = PairwiseRanking.from_frames(pandalm_judged(), human="human", instance="idx")
    n_inst = full.channel.n_instances
    n_lab = round(a.share * n_inst)
    judges = summary(full.fit("naive", random_seed=0), ref_theta)
    rows = {"judge_error": [], "ppi": [], "humans": [], "judges": []}
    passed, seconds = 0, []
    for s in range(a.subsets):
        rng = np.random.default_rng(s)
        mask = np.zeros(n_inst, dtype=bool)
        mask[rng.choice(n_inst, n_lab, replace=False)] = True
        sub = full.with_labelled(mask)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t0 = time.perf_counter()
            fit = sub.fit("judge_error", random_seed=s, judge_bias=a.judge_bias)
            seconds.append(time.perf_counter() - t0)
        passed += fit.diagnostics.passed
        rows["judge_error"].append(summary(fit, ref_theta))
        rows["ppi"].append(summary(sub.fit("ppi", random_seed=s), ref_theta))
        rows["humans"].append(summary(sub.human_only().fit("naive", random_seed=s), ref_theta))
        rows["judges"].append(judges)
    print(f"PandaLM: {n_inst} pairs, {n_lab} human-labelled per draw, {a.subsets} draws")
    ref_items = ", ".join(f"{i} {t:+.3f}" for i, t in zip(ref.data.items, ref_theta, strict=True))
    print(f"reference (all human votes): {ref_items}")
    print(f"{'ranking':12s} {'tau':>6s} {'se':>6s} {'cover95':>8s} {'width':>6s}")
    for name, rs in rows.items():
        tau = np.array([r["tau"] for r in rs])
        cover = np.mean([r["cover"] for r in rs])
        width = np.mean([r["width"] for r in rs])
        se = tau.std(ddof=1) / np.sqrt(tau.size) if tau.size > 1 else 0.0
        print(f"{name:12s} {tau.mean():6.3f} {se:6.3f} {cover:8.3f} {width:6.3f}")
    print(
        f"judge_error NUTS: gate passed {passed}/{a.subsets}; first fit {seconds[0]:.1f} s "
        f"(compile), then median {np.median(seconds[1:] or seconds):.1f} s"
    )


if __name__ == "__main__":
    main()
