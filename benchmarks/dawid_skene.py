"""Item-level (Dawid-Skene) panel model against crowd-kit's DawidSkene, same data, one run.

The Dawid-Skene setting: 200 outputs of one generator (valid with probability 0.7), 8 judges
with TPR ~ U(0.65, 0.95) and TNR ~ U(0.50, 0.90), 30 outputs with a human label.  Per seed:
mean absolute error of each judge's TPR and TNR against the per-judge rates that drew the
verdicts, for judgebayes' ``nuts_items`` (posterior means; the 30 human labels enter the
likelihood) and crowd-kit's DawidSkene (EM; the human labels as ``true_labels``), plus the
error of the generator's precision and the fit time (judgebayes warm: the first fit
compiles).
Run: python benchmarks/dawid_skene.py [--seeds 13]
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from judgebayes.errors import ConvergenceWarning
from judgebayes.studies.panel import ValidatorPanel


def simulate(seed, n=200, judges=8, gold=30):
    rng = np.random.default_rng(seed)
    tpr = rng.uniform(0.65, 0.95, judges)
    tnr = rng.uniform(0.50, 0.90, judges)
    valid = rng.random(n) < 0.7
    p = np.where(valid[:, None], tpr[None, :], 1 - tnr[None, :])
    verdict = rng.random((n, judges)) < p
    human = np.full(n, None, dtype=object)
    lab = rng.choice(n, gold, replace=False)
    human[lab] = np.where(valid[lab], "valid", "invalid")
    rows = pd.DataFrame(
        {
            "output": np.repeat(np.arange(n), judges),
            "generator": "gen",
            "validator": np.tile([f"j{j}" for j in range(judges)], n),
            "verdict": np.where(verdict.ravel(), "valid", "invalid"),
            "human": np.repeat(human, judges),
        }
    )
    return rows, tpr, tnr, valid.mean()


def crowdkit_rates(rows):
    from crowdkit.aggregation import DawidSkene

    data = rows.rename(columns={"output": "task", "validator": "worker", "verdict": "label"})
    gold = rows.dropna(subset=["human"]).drop_duplicates("output")
    true = pd.Series(gold["human"].to_numpy(), index=gold["output"].to_numpy())
    t0 = time.perf_counter()
    ds = DawidSkene(n_iter=100).fit(data[["task", "worker", "label"]], true_labels=true)
    sec = time.perf_counter() - t0
    err = ds.errors_  # index (worker, label), columns: true label
    workers = sorted(data["worker"].unique(), key=lambda w: int(w[1:]))
    tpr = np.array([err.loc[(w, "valid"), "valid"] for w in workers])
    tnr = np.array([err.loc[(w, "invalid"), "invalid"] for w in workers])
    prec = float(ds.priors_["valid"])
    return tpr, tnr, prec, sec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=13)
    a = ap.parse_args()
    res = []
    print("seed | judgebayes TPR/TNR err, precision err, gate, s | crowd-kit TPR/TNR err, s")
    for seed in range(a.seeds):
        rows, tpr, tnr, prev = simulate(seed)
        panel = ValidatorPanel.from_items(rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t0 = time.perf_counter()
            fit = panel.fit("nuts_items", random_seed=seed)
            sec = time.perf_counter() - t0
        order = np.argsort([int(v[1:]) for v in panel.data.validators])
        e_p = np.abs(fit.tpr[order] - tpr).mean()
        e_n = np.abs(fit.tnr[order] - tnr).mean()
        e_g = abs(float(fit.estimate()[0]) - prev)
        ck_p, ck_n, ck_g, ck_sec = crowdkit_rates(rows)
        c_p, c_n = np.abs(ck_p - tpr).mean(), np.abs(ck_n - tnr).mean()
        res.append((e_p, e_n, e_g, fit.diagnostics.passed, sec, c_p, c_n, abs(ck_g - prev), ck_sec))
        print(
            f"{seed:4d} | {e_p:.3f} / {e_n:.3f}, {e_g:.3f}, "
            f"{'pass' if fit.diagnostics.passed else 'FAIL'}, {sec:5.1f} | "
            f"{c_p:.3f} / {c_n:.3f}, {ck_sec:.2f}",
            flush=True,
        )
    r = np.array(res, dtype=float)
    print(
        f"mean over {len(r)} seeds: judgebayes TPR err {r[:, 0].mean():.3f}, TNR err "
        f"{r[:, 1].mean():.3f}, precision err {r[:, 2].mean():.3f}, gate passed "
        f"{int(r[:, 3].sum())}/{len(r)}, warm fit median {np.median(r[1:, 4]):.1f} s | "
        f"crowd-kit TPR err {r[:, 5].mean():.3f}, TNR err {r[:, 6].mean():.3f}, precision "
        f"err {r[:, 7].mean():.3f}, {np.median(r[:, 8]):.2f} s"
    )


if __name__ == "__main__":
    main()
