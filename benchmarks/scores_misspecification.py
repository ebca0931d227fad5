"""Judges that give scores, on data that break the models' assumptions: does each interval
cover, or does its check fire?

Every data set is simulated here with numpy (no package simulator or model).  Two systems
of 300 rows (B's outputs 0.4 sd better), 30% labelled at random; a 1-10 judge scores the
outputs' quality and humans rate (Likert 1-5) what the score shows plus their own noise,
so that one calibration of the human label on the score holds for both systems.
Conditions:

``control``      as described: every assumption holds
``kind``         the judge scores B's outputs 1.5 points higher at the same human level
``nonmonotone``  the judge gives the best outputs (human level 5) a 2
``scales``       the judge's scale compressed into 4-9 (naive's linear map is wrong)
``binary``       0/1 human labels (a pass likelier as the score rises): also PPI++ on
                 the verdict score >= 6

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

import judgebayes as jb

N, FRAC, QUALITY_GAP = 300, 0.3, 0.4
CONDITIONS = ("control", "kind", "nonmonotone", "scales", "binary")
CHECKS = ("calibration_transport", "monotone_calibration")


def draw(rng, condition, n):
    """Scores and human labels of ``n`` rows of each system: the judge scores the output's
    quality, humans rate what the score shows plus their own noise, so one calibration
    E[H | S] holds for both systems (the control); the conditions then break it.
    """
    out = []
    for k in (0, 1):
        q = rng.normal(0, 1, n) + QUALITY_GAP * k
        raw = 5.5 + 2.0 * q + rng.normal(0, 1.0, n)
        score = np.clip(np.round(raw), 1, 10)
        if condition == "binary":
            human = (rng.random(n) < 1 / (1 + np.exp(-(score - 5.5)))).astype(float)
        else:
            human = np.clip(np.round(1 + 4 * (score - 1) / 9 + rng.normal(0, 0.6, n)), 1, 5)
        if condition == "kind" and k == 1:  # B's outputs scored 1.5 points higher
            score = np.clip(np.round(raw + 1.5), 1, 10)
        if condition == "nonmonotone":
            score = np.where(human >= 5, 2.0, score)
        if condition == "scales":
            score = np.clip(np.round(4 + (score - 1) * 5 / 9), 4, 9)
        out.append((score, human))
    return out


def simulate(rng, condition):
    rows = []
    for s, (score, human) in zip(("A", "B"), draw(rng, condition, N), strict=True):
        lab = rng.random(N) < FRAC
        rows.append(
            pd.DataFrame(
                {"system": s, "score": score, "human": np.where(lab, human, np.nan), "t": human}
            )
        )
    return pd.concat(rows, ignore_index=True)


def process_truth(condition) -> np.ndarray:
    """Each system's process mean, from 4 million draws of the same simulator (Monte-Carlo
    sd below 0.001, a tenth of the narrowest interval's half-width).
    """
    rng = np.random.default_rng(99)
    return np.array([h.mean() for _, h in draw(rng, condition, 4_000_000)])


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
