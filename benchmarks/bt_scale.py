"""Bradley-Terry at leaderboard scale: 1,000 items x 10,000,000 comparisons.

Each contender runs in a fresh process on the same simulated comparisons (seeded; the
simulation is not timed) and reports fit + 95% intervals seconds and peak memory (VmHWM):

* ``bias-aware``: judgebayes' bias-aware model (per-comparison length covariate and
  position) by Newton MAP + Laplace on all 10M rows, intervals identified by sum-to-zero;
* ``naive-counts``: judgebayes' naive BT on the collapsed win counts (one weighted row per
  ordered pair; the same posterior as the 10M rows) with Laplace intervals;
* ``evalica``: evalica.bradley_terry on the 10M rows (point estimates; its intervals are
  bootstraps, which would multiply the time);
* ``arena-rank``: arena_rank's BradleyTerry (JAX) with its sandwich intervals;
* ``choix``: choix.ilsr_pairwise (Luce spectral ranking to the MLE; point estimates only)
  on the (winner, loser) pairs.

Run: python benchmarks/bt_scale.py [--items 1000] [--comparisons 10000000]
[--only bias-aware naive-counts evalica arena-rank choix]
"""

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
n_items, n, how = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(7)
theta = rng.normal(0, 1, n_items)
first = rng.integers(0, n_items, n)
second = (first + rng.integers(1, n_items, n)) % n_items
xa, xb = rng.normal(0, 1, n), rng.normal(0, 1, n)  # standardised log lengths
eta = theta[first] - theta[second] + 0.4 * (xa - xb) + 0.2
y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
del eta
t0 = time.perf_counter()
if how == "bias-aware":
    from judgebayes.data.ranking import pairwise_from_arrays
    from judgebayes.studies.ranking import PairwiseRanking
    data = pairwise_from_arrays(first, second, y, n_items=n_items,
                                comparison_covariates={"length": (xa, xb)}, ties="drop")
    fit = PairwiseRanking(data).fit("laplace", prior="normal", random_seed=0)
    iv = fit.interval()
    est = iv["estimate"].to_numpy()
    extra = {"length": float(fit.bias_table().query("coefficient == 'length'")["estimate"].iloc[0])}
elif how == "naive-counts":
    from judgebayes.inference.ranking import newton as bt
    f, s, w, tot = bt.collapse_pairs(first, second, y, n_items)
    res = bt.fit_map(bt.bt_counts_design(f, s, w, tot, n_items))
    C = np.eye(n_items) - 1.0 / n_items  # sum-to-zero contrast
    cov = C @ res.covariance() @ C.T
    est = C @ res.theta
    lo, hi = est - 1.96 * np.sqrt(np.diag(cov)), est + 1.96 * np.sqrt(np.diag(cov))
    extra = {"pairs": int(f.size)}
elif how == "evalica":
    import evalica
    import pandas as pd
    pick = np.array([evalica.Winner.Y, evalica.Winner.X], dtype=object)
    res = evalica.bradley_terry(pd.Series(first), pd.Series(second), pick[y.astype(int)].tolist())
    s = res.scores.sort_index().to_numpy()
    est = np.log(s) - np.log(s).mean()
    extra = {"iterations": int(res.iterations)}
elif how == "choix":
    import choix
    won = np.where(y == 1, first, second)
    lost = np.where(y == 1, second, first)
    est = choix.ilsr_pairwise(n_items, np.column_stack([won, lost]), alpha=1e-4, tol=1e-8)
    est = est - est.mean()
    extra = {}
elif how == "arena-rank":
    import pandas as pd
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset
    df = pd.DataFrame({"model_a": first, "model_b": second,
                       "winner": np.where(y == 1, "model_a", "model_b")})
    ds = PairDataset.from_pandas(df)
    model = BradleyTerry(len(ds.competitors))
    out = model.compute_ratings_and_cis(ds, significance_level=0.05)
    r = (np.asarray(out["ratings"]) - model.init_rating) / model.alpha
    order = np.argsort(np.asarray(ds.competitors, dtype=int))
    est = (r - r.mean())[order]
    extra = {}
sec = time.perf_counter() - t0
with open("/proc/self/status") as fh:
    peak = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM")) / 1024
err = float(np.sqrt(np.mean((est - (theta - theta.mean())) ** 2)))
print(json.dumps({"seconds": sec, "peak_mib": peak, "rmse_theta": err, **extra}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--comparisons", type=int, default=10_000_000)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    names = args.only or ["bias-aware", "naive-counts", "evalica", "arena-rank", "choix"]
    print(f"{args.items} items x {args.comparisons:,} comparisons (length + position effects)")
    for how in names:
        p = subprocess.run(
            [sys.executable, "-c", CHILD, str(args.items), str(args.comparisons), how],
            capture_output=True,
            text=True,
        )
        if p.returncode:
            print(f"{how:13s} failed: {p.stderr.strip().splitlines()[-1]}")
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        rest = {k: v for k, v in r.items() if k not in ("seconds", "peak_mib", "rmse_theta")}
        print(
            f"{how:13s} {r['seconds']:7.1f} s  peak {r['peak_mib'] / 1024:5.2f} GiB  "
            f"RMSE(theta) {r['rmse_theta']:.4f}  {rest}"
        )


if __name__ == "__main__":
    main()
