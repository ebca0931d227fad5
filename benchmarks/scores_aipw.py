"""The score closed form's process-mean interval against ppi-aipw's (isotonic AIPW, one
call per system) and the labels alone, on the same random labellings of HANNA.

    python benchmarks/scores_aipw.py --reps 200

For each set-up of ``benchmarks/scores_hanna.py`` with one judge and each labelled share
(10%, 15%, 25%): the mean width of each method's 95% interval over the systems and
labellings where ppi-aipw gave one, the width ratios, and the coverage of each system's
mean over its scored stories (the process intervals are read against it, so a process
interval that covers more than 0.95 is not a fault).  The last columns split the closed
form's excess over ppi-aipw: its t quantile on the labels' degrees of freedom against the
normal one (ppi-aipw's), and the rest (the calibration's jackknife variance).
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scores_hanna import CONFIGS, frame_for

import judgebayes as jb
from judgebayes.datasets.base import data_dir

SHARES = (0.10, 0.15, 0.25)


def aipw(frame, judge, lab, systems):
    """ppi-aipw's isotonic interval per system (NaN where it fails)."""
    from ppi_aipw import mean_inference

    lo, hi = np.full(len(systems), np.nan), np.full(len(systems), np.nan)
    for i, s in enumerate(systems):
        m = (frame["system"] == s).to_numpy()
        sc, y, li = frame.loc[m, judge].to_numpy(), frame.loc[m, "truth"].to_numpy(), lab[m]
        try:
            lo[i], hi[i] = mean_inference(y[li], sc[li], sc[~li], method="isotonic", alpha=0.05).ci
        except (ValueError, np.linalg.LinAlgError):
            pass
    return lo, hi


def row(name: str, share: float, reps: int) -> str:
    crit, judges = CONFIGS[name]
    hanna = pd.read_csv(data_dir() / "hanna" / "hanna_judgments.csv")
    frame = frame_for(hanna, crit, judges)
    frame = frame[frame[judges].notna().all(axis=1)].reset_index(drop=True)
    systems = list(dict.fromkeys(frame["system"]))
    truth = frame.groupby("system")["truth"].mean().reindex(systems).to_numpy()
    rng = np.random.default_rng([7, round(share * 100)])
    width = {k: [] for k in ("closed form", "ppi-aipw", "labels only")}
    hit = {k: [] for k in width}
    t_over_z = []
    for r in range(reps):
        lab = np.zeros(len(frame), bool)
        lab[rng.choice(len(frame), round(share * len(frame)), replace=False)] = True
        frame["human"] = frame["truth"].where(lab)
        study = jb.ScoreStudy.from_items(
            frame, score=judges, human="human", system="system", scale=(1, 5), estimand="process"
        )
        fit = study.fit("closed_form", random_seed=r)
        ivs = {
            "closed form": fit.interval(),
            "labels only": study.fit("labels_only").interval(),
        }
        cells = {k: (iv["lower"].to_numpy(), iv["upper"].to_numpy()) for k, iv in ivs.items()}
        cells["ppi-aipw"] = aipw(frame, judges[0], lab, systems)
        ok = np.logical_and.reduce([np.isfinite(hi - lo) for lo, hi in cells.values()])
        for k, (lo, hi) in cells.items():
            width[k] += list((hi - lo)[ok])
            hit[k] += list(((lo <= truth) & (truth <= hi))[ok])
        n_lab = np.bincount(pd.factorize(frame["system"])[0][lab], minlength=len(systems))
        t_over_z += list((stats.t.ppf(0.975, n_lab - 1) / stats.norm.ppf(0.975))[ok])
    w = {k: float(np.mean(v)) for k, v in width.items()}
    c = {k: float(np.mean(v)) for k, v in hit.items()}
    ratio = w["closed form"] / w["ppi-aipw"]
    tz = float(np.mean(t_over_z))
    return (
        f"| {name} | {share:.0%} | {c['closed form']:.3f} / {w['closed form']:.3f} | "
        f"{c['ppi-aipw']:.3f} / {w['ppi-aipw']:.3f} | {c['labels only']:.3f} / "
        f"{w['labels only']:.3f} | {ratio:.3f} | {w['closed form'] / w['labels only']:.3f} | "
        f"{tz:.3f} | {ratio / tz:.3f} |"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--reps", type=int, default=200)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    print(
        "| set-up | labelled | closed form (process): coverage / width | ppi-aipw | labels "
        "only | closed form / ppi-aipw | closed form / labels only | t / z | the rest |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (_, judges) in CONFIGS.items():
        if len(judges) == 1:
            for share in SHARES:
                print(row(name, share, args.reps), flush=True)


if __name__ == "__main__":
    main()
