"""The Bayesian leaderboard: coverage and width against the closed form on simulated
boards, its fit times on LiveCodeBench, and a held-out model's accuracy from a few items.

    python benchmarks/leaderboard_bayes.py --boards 30
    python benchmarks/leaderboard_bayes.py --judged --boards 30
    python benchmarks/leaderboard_bayes.py --real      # needs ../shared/data
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb

ABILITY = np.linspace(-1.0, 1.5, 6)


def board(rng, n_items=80):
    """One-parameter boards simulated here (no package code): each system's mean success
    probability over the items (the items estimand) and over the items' population
    (the process estimand, by 80-node Gauss-Hermite over the difficulties' normal)."""
    b = rng.normal(0, 1.3, n_items)
    p = 1 / (1 + np.exp(-(ABILITY[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(float)
    x, w = np.polynomial.hermite_e.hermegauss(80)
    process = (1 / (1 + np.exp(-(ABILITY[:, None] - 1.3 * x[None, :])))) @ (w / w.sum())
    names = [f"m{k}" for k in range(ABILITY.size)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, n_items),
            "item": np.tile(np.arange(n_items), ABILITY.size),
            "score": y.ravel(),
        }
    )
    return frame, pd.Series(p.mean(1), index=names), pd.Series(process, index=names)


def simulated(boards: int) -> None:
    rows = {"nuts items": [], "nuts process": [], "closed form process": []}
    t_nuts = []
    for r in range(boards):
        frame, items, process = board(np.random.default_rng([3, r]))
        study = jb.LeaderboardStudy.from_frame(frame)
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = study.fit("nuts", random_seed=r)
        t_nuts.append(time.process_time() - t0)
        cf = study.fit("closed_form")
        for name, f, var, truth in (
            ("nuts items", fit, "theta", items),
            ("nuts process", fit, "theta_process", process),
            ("closed form process", cf, "theta_process", process),
        ):
            iv = f.interval(0.1, var=var)
            rows[name].append(
                (
                    float(((iv["lower"] <= truth) & (truth <= iv["upper"])).mean()),
                    float((iv["upper"] - iv["lower"]).mean()),
                )
            )
    print(f"{boards} boards of 6 systems x 80 items, 90% intervals")
    print("| interval | coverage | mean width |\n|---|---|---|")
    for name, v in rows.items():
        a = np.array(v)
        print(f"| {name} | {a[:, 0].mean():.3f} | {a[:, 1].mean():.3f} |")
    print(f"NUTS CPU per fit (median): {np.median(t_nuts):.1f} s")


def judged(boards: int) -> None:
    """Judged boards (tests/simulators.judged_board: sensitivity 0.85, specificity 0.75,
    0.4 on m01's answers, a fifth of the rows labelled at random): the corrected process
    interval against the truth, beside the judge's raw rate."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from tests.simulators import judged_board  # shares no code with the package

    hit, raw_hit, width, total = 0, 0, [], 0
    for r in range(boards):
        frame, truth = judged_board(np.random.default_rng([5, r]), ABILITY, n_items=150,
                                    labelled=0.2)  # fmt: skip
        study = jb.LeaderboardStudy.from_frame(frame, human="human")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = study.fit("nuts", random_seed=r)
        iv = fit.interval(0.1, var="theta_process").loc[truth.index]
        hit += int(((iv["lower"] <= truth) & (truth <= iv["upper"])).sum())
        width.append(float((iv["upper"] - iv["lower"]).mean()))
        raw = pd.Series(study.data.observed_rate(), index=study.systems).loc[truth.index]
        raw_hit += int((abs(raw - truth) < (iv["upper"] - iv["lower"]) / 2).sum())
        total += len(truth)
    print(f"{boards} judged boards of 6 x 150, a fifth labelled, 90% process intervals:")
    print(f"coverage {hit / total:.3f}, mean width {np.mean(width):.3f}; the raw rate within "
          f"the same half-width of the truth {raw_hit / total:.3f}")  # fmt: skip


def real() -> None:
    from judgebayes.datasets import livecodebench_generation

    lcb = livecodebench_generation()
    cols = {"system": "model", "item": "question_id", "score": "n_correct",
            "trials": "n_samples"}  # fmt: skip
    held = ["Claude-3-Haiku", "GPT-3.5-Turbo-0125", "DSCoder-6.7b-Ins", "Command-R+",
            "StarCoder2-7b"]  # fmt: skip
    study = jb.LeaderboardStudy.from_frame(lcb[~lcb["model"].isin(held)], **cols)
    t0, c0 = time.perf_counter(), time.process_time()
    fit = study.fit("nuts", random_seed=0)
    print(f"LiveCodeBench, {len(study.systems)} models x {len(study.data.items)} problems: "
          f"{time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU, "
          f"gate passed {fit.diagnostics.passed}")  # fmt: skip
    print(study.check(fit).table[["unit", "observed", "expected", "p_value"]].to_string())
    rng = np.random.default_rng(0)
    items = list(study.data.items)
    print("| model | all 400 | 40 planned | 40 random |\n|---|---|---|---|")
    for m in held:
        rows = lcb[lcb["model"] == m].set_index("question_id")
        truth = rows["n_correct"].sum() / rows["n_samples"].sum()
        out = [f"{truth:.3f}"]
        for chosen in (fit.plan_items(40), list(rng.choice(items, 40, replace=False))):
            r = rows.loc[chosen]
            e = fit.new_system(r["n_correct"], trials=r["n_samples"])
            out.append(f"{e['estimate']:.3f} [{e['lower']:.3f}, {e['upper']:.3f}]")
        print(f"| {m} | " + " | ".join(out) + " |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=30)
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--judged", action="store_true")
    args = ap.parse_args()
    if args.real:
        real()
    elif args.judged:
        judged(args.boards)
    else:
        simulated(args.boards)
