"""The variance split of repeated generations and judge runs: does it recover the components?

``jb.simulate.simulate_repeats`` (numpy, not the package's model): 150 prompts x 4 generations x 3
judge runs, logit pass probability 0.3 + 1.0 a_i + 0.7 b_ig with standard normal a, b; its
true components are integrated on a 4,000 x 4,000 quantile grid.  Printed per method: the
coverage of each component's 95% interval over the sets, the mean estimate against the
truth, the cluster-robust / posterior interval of the rate, and the time per set.

Run: python benchmarks/repeats.py [--reps 200] [--nuts-reps 20]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import judgebayes as jb


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--nuts-reps", type=int, default=20)
    a = ap.parse_args()
    t = jb.simulate.simulate_repeats(2, seed=0)[1]
    print("truth: " + ", ".join(f"{k} {v:.4f}" for k, v in t.items()))
    for method, reps in (("closed_form", a.reps), ("nuts", a.nuts_reps)):
        hits, est, secs, failed = [], [], [], 0
        for r in range(reps):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s = jb.variance_split(
                    jb.simulate.simulate_repeats(150, seed=r)[0], method=method, random_seed=r
                )
            secs.append(time.perf_counter() - t0)
            failed += method == "nuts" and not s.attrs["passed"]
            c = s.set_index("component")
            row = [c.loc[k, "lower"] <= t[k] <= c.loc[k, "upper"] for k in c.index]
            row.append(s.attrs["rate_lower"] <= t["rate"] <= s.attrs["rate_upper"])
            hits.append(row)
            est.append(c["variance"].to_numpy())
        h, e = np.mean(hits, 0), np.mean(est, 0)
        sd = np.sqrt(0.95 * 0.05 / reps)
        print(
            f"{method}: {reps} sets (MC sd {sd:.3f}); coverage prompt {h[0]:.3f}, generation "
            f"{h[1]:.3f}, judge run {h[2]:.3f}, rate {h[3]:.3f}; mean estimates "
            f"{e[0]:.4f} / {e[1]:.4f} / {e[2]:.4f}; median {np.median(secs):.2f} s a set"
            + (f"; gate failed {failed}" if method == "nuts" else "")
        )


if __name__ == "__main__":
    main()
