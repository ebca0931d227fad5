"""Judges that give scores, on data that break the models' assumptions: does each interval
cover, or does its check fire?

Every data set is simulated here with numpy (no package simulator or model).  Two systems
of 300 rows (B's outputs 0.4 sd better), 30% labelled at random.  Conditions:

``control``      a 1-10 judge reading the Likert 1-5 human level with noise: every
                 assumption holds
``kind``         the judge scores B's outputs 1.5 points higher at the same human level
``nonmonotone``  the judge gives the best outputs (human level 5) a 2
``scales``       a 1-10 judge against humans on 1-5, the judge's scale compressed into
                 4-9 (naive's linear map is wrong)
``binary``       a 1-10 judge against 0/1 labels: also PPI++ on the verdict score >= 6

Rule per method and condition: coverage of the 95% interval (the rows' mean for
``items``, the process mean by quadrature for the rest) at least 0.95 - 2.5 Monte-Carlo
sd, or the check that tests the method's assumption fires in at least 80% of the broken
sets and at most 10% of the controls.  NUTS runs on the first ``--nuts-reps`` sets.

Run: python benchmarks/scores_misspecification.py [--reps 200] [--nuts-reps 40]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

import judgebayes as jb

N, FRAC, QUALITY_GAP = 300, 0.3, 0.4
CONDITIONS = ("control", "kind", "nonmonotone", "scales", "binary")
CHECKS = ("calibration_transport", "monotone_calibration")


def simulate(rng, condition):
    rows = []
    for k, s in enumerate(("A", "B")):
        q = rng.normal(0, 1, N) + QUALITY_GAP * k
        if condition == "binary":
            human = (rng.random(N) < 1 / (1 + np.exp(-1.5 * q))).astype(float)
            raw = 5.5 + 1.5 * q + rng.normal(0, 0.3, N)
        else:
            human = np.clip(np.round(3 + q + rng.normal(0, 0.5, N)), 1, 5)
            raw = 5.5 + 2.0 * (human - 3) + rng.normal(0, 1.5, N)
        if condition == "kind" and s == "B":
            raw = raw + 1.5
        score = np.clip(np.round(raw), 1, 10)
        if condition == "nonmonotone":
            score = np.where(human >= 5, 2.0, score)
        if condition == "scales":
            score = np.clip(np.round(4 + (raw - 1) * 5 / 9), 4, 9)
        lab = rng.random(N) < FRAC
        rows.append(
            pd.DataFrame(
                {"system": s, "score": score, "human": np.where(lab, human, np.nan), "t": human}
            )
        )
    return pd.concat(rows, ignore_index=True)


def process_truth(condition) -> np.ndarray:
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    out = []
    for k in (0, 1):
        m = x + QUALITY_GAP * k
        if condition == "binary":
            out.append(np.sum(w / (1 + np.exp(-1.5 * m))))
        else:
            cuts = np.array([1.5, 2.5, 3.5, 4.5])
            above = stats.norm.sf((cuts[None, :] - 3 - m[:, None]) / 0.5).sum(1)
            out.append(np.sum(w * (1 + above)))
    return np.array(out)


def run(reps: int, nuts_reps: int) -> pd.DataFrame:
    rows = []
    for condition in CONDITIONS:
        rng = np.random.default_rng(CONDITIONS.index(condition))
        ptruth = process_truth(condition)
        acc: dict[str, dict] = {}
        fired = dict.fromkeys(CHECKS, 0)
        t0 = time.time()
        for r in range(reps):
            frame = simulate(rng, condition)
            items_truth = frame.groupby("system", sort=False)["t"].mean().to_numpy()
            kw = dict(score="score", human="human", system="system")
            study = jb.ScoreStudy.from_items(frame, **kw)
            proc = jb.ScoreStudy.from_items(frame, estimand="process", **kw)
            fits = {
                "closed_form (items)": (study.fit(random_seed=r), items_truth),
                "closed_form (process)": (proc.fit(random_seed=r), ptruth),
                "ppi_plus_plus": (study.fit("ppi_plus_plus"), ptruth),
                "naive": (study.fit("naive"), ptruth),
            }
            if condition == "binary":
                thr = frame.assign(score=(frame["score"] >= 6).astype(float))
                v = jb.ScoreStudy.from_items(thr, **kw)
                fits["ppi_plus_plus (verdict >= 6)"] = (v.fit("ppi_plus_plus"), ptruth)
            if r < nuts_reps:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    nuts = study.fit("nuts", random_seed=r)
                    fits["nuts (items)"] = (nuts, items_truth)
                    no_shift = jb.ScoreStudy.from_items(frame, system_shift=False, **kw)
                    fits["nuts, system_shift=False (items)"] = (
                        no_shift.fit("nuts", random_seed=r),
                        items_truth,
                    )
            report = study.check()
            for c in CHECKS:
                fired[c] += not report[c].passed
            for name, (fit, truth) in fits.items():
                tab = fit.interval()
                a = acc.setdefault(name, {"hit": [], "width": []})
                a["hit"] += list((tab["lower"] <= truth) & (truth <= tab["upper"]))
                a["width"].append(float((tab["upper"] - tab["lower"]).mean()))
        for name, a in acc.items():
            hit = np.asarray(a["hit"], float)
            sd = np.sqrt(0.95 * 0.05 / hit.size)
            rows.append(
                {
                    "condition": condition,
                    "method": name,
                    "coverage": round(hit.mean(), 3),
                    "mc_sd": round(sd, 4),
                    "covers": bool(hit.mean() >= 0.95 - 2.5 * sd),
                    "width": round(float(np.mean(a["width"])), 3),
                    "sets": hit.size // 2,
                    **{f"fires[{c}]": round(fired[c] / reps, 3) for c in CHECKS},
                }
            )
        print(pd.DataFrame(rows[-len(acc) :]).to_string(index=False), f"{time.time() - t0:.0f} s")
    return pd.DataFrame(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--nuts-reps", type=int, default=40)
    a = p.parse_args()
    print(run(a.reps, a.nuts_reps).to_string(index=False))


if __name__ == "__main__":
    main()
