"""The leaderboard's Laplace fit (``study.fit("laplace")``) against NUTS on the same
boards, its coverage over many boards, and its time on a board of 300 systems x 10,000
items, where NUTS is out of reach.

    python benchmarks/leaderboard_laplace.py --coverage 100   # simulated boards, 90%
    python benchmarks/leaderboard_laplace.py --versus-nuts    # same boards, both fits
    python benchmarks/leaderboard_laplace.py --large          # 300 x 10,000
    python benchmarks/leaderboard_laplace.py --judged         # a judged board, both fits
    python benchmarks/leaderboard_laplace.py --judged-coverage 40
    python benchmarks/leaderboard_laplace.py --judged-coverage 40 --judge-item-sd 1
    python benchmarks/leaderboard_laplace.py --judged-large 4 # 100 x 1,000 with a judge

The boards are simulated here with numpy (no package code): abilities evenly spaced over
[-1.5, 1.5], difficulties N(0, 1.3^2), one 0/1 outcome a cell; the truth is each system's
mean success probability over the board's items (the ``theta`` estimand).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb

SIZES = ((6, 80), (20, 200), (40, 300), (100, 1000))


def board(rng, systems: int, items: int) -> tuple[pd.DataFrame, np.ndarray]:
    """A frame of 0/1 outcomes and each system's mean success probability."""
    ability = np.linspace(-1.5, 1.5, systems)
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(0, 1.3, items)[None, :])))
    y = (rng.random(p.shape) < p).astype(float)
    frame = pd.DataFrame(
        {
            "system": np.repeat([f"m{s:03d}" for s in range(systems)], items),
            "item": np.tile(np.arange(items), systems),
            "score": y.ravel(),
        }
    )
    return frame, p.mean(axis=1)


def coverage(boards: int) -> None:
    print("| board | boards | 90% coverage (MC sd) | mean width | CPU per fit |")
    print("|---|---|---|---|---|")
    for systems, items in SIZES:
        hits, width, cpu = [], [], []  # hits: each board's share covered
        for r in range(boards):
            frame, truth = board(np.random.default_rng([7, systems, r]), systems, items)
            study = jb.LeaderboardStudy.from_frame(frame)
            c0 = time.process_time()
            fit = study.fit("laplace", random_seed=r)
            cpu.append(time.process_time() - c0)
            iv = fit.interval(0.1)
            hits.append(float(np.mean((iv["lower"] <= truth) & (truth <= iv["upper"]))))
            width.append(float((iv["upper"] - iv["lower"]).mean()))
        # a board's intervals share its items, so the Monte-Carlo sd is that of the boards'
        # shares, not of independent intervals
        cov, mc = np.mean(hits), np.std(hits, ddof=1) / np.sqrt(boards)
        print(f"| {systems} x {items} | {boards} | {cov:.3f} ({mc:.3f}) "
              f"| {np.mean(width):.4f} | {np.mean(cpu):.2f} s |")  # fmt: skip


def _compare(name, study, nuts_seed=0) -> None:
    c0 = time.process_time()
    lap = study.fit("laplace", random_seed=0)
    t_lap = time.process_time() - c0
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nuts = study.fit("nuts", random_seed=nuts_seed)
    t_nuts = time.process_time() - c0
    S = len(study.systems)
    cells = [name]
    for var in ("theta", "theta_process"):
        a, b = (f.draws(var).values.reshape(-1, S) for f in (lap, nuts))
        ratio, shift = a.std(0) / b.std(0), (a.mean(0) - b.mean(0)) / b.std(0)
        cells.append(f"{ratio.min():.2f}-{ratio.max():.2f}")
        cells.append(f"{np.abs(shift).max():.2f}")
    spread = [f.draws("sigma_item").values for f in (lap, nuts)]
    cells.append(" / ".join(f"{s.mean():.3f} ({s.std():.3f})" for s in spread))
    cells.append(f"{t_lap:.1f} s / {t_nuts:.0f} s ({t_nuts / t_lap:.0f}x)")
    cells.append(str(nuts.diagnostics.passed))
    print("| " + " | ".join(cells) + " |", flush=True)


def versus_nuts() -> None:
    print("| board | theta sd, Laplace / NUTS | largest mean gap (NUTS sds) | theta_process "
          "sd ratio | its largest gap | sigma_item, Laplace / NUTS | CPU, Laplace / NUTS | "
          "NUTS gate |\n|---|---|---|---|---|---|---|---|")  # fmt: skip
    for systems, items in SIZES[:3]:
        frame, _ = board(np.random.default_rng([8, systems]), systems, items)
        _compare(f"simulated {systems} x {items}", jb.LeaderboardStudy.from_frame(frame))
    from judgebayes.datasets import livecodebench_generation

    lcb = livecodebench_generation()
    study = jb.LeaderboardStudy.from_frame(
        lcb, system="model", item="question_id", score="n_correct", trials="n_samples"
    )
    name = f"LiveCodeBench {len(study.systems)} x {len(study.data.items)} (10 samples a cell)"
    _compare(name, study)


def large() -> None:
    frame, truth = board(np.random.default_rng(9), 300, 10_000)
    study = jb.LeaderboardStudy.from_frame(frame)
    c0 = time.process_time()
    fit = study.fit("laplace", random_seed=0)
    t_lap = time.process_time() - c0
    c0 = time.process_time()
    jb.leaderboard(frame)
    t_cf = time.process_time() - c0
    iv = fit.interval(0.1)
    hit = float(np.mean((iv["lower"] <= truth) & (truth <= iv["upper"])))
    print(f"300 x 10,000: Laplace {t_lap:.0f} s CPU ({fit.info['newton_solves']} Newton "
          f"solves), the closed form's table {t_cf:.1f} s; 90% intervals cover {hit:.3f} "
          f"of 300 (MC sd 0.017); sigma_item {fit.info['psi_mode']['sigma_item']:.3f}")  # fmt: skip


def judged_board(rng, systems: int, items: int, labelled: float = 0.1, item_sd: float = 0.0):
    """:func:`board` read by a judge (sensitivity 0.85, specificity 0.75) with human labels
    on a random ``labelled`` share of the rows.  With ``item_sd`` the judge's rates vary
    by item instead (logit rates N(logit 0.85 or 0.75, item_sd^2), one draw an item, the
    same for every system: an item that confuses the judge confuses it on every answer),
    which the model, whose rates are one per system, does not allow."""
    frame, truth = board(rng, systems, items)
    y = frame["score"].to_numpy()
    shift = np.zeros((2, y.size))
    if item_sd:  # (2, rows): the rows are system-major, so each item's draw is tiled
        shift = np.tile(rng.normal(0, item_sd, (2, items)), systems)
    sens = 1 / (1 + np.exp(-(np.log(0.85 / 0.15) + shift[0])))
    spec = 1 / (1 + np.exp(-(np.log(0.75 / 0.25) + shift[1])))
    says = np.where(y == 1, rng.random(y.size) < sens, rng.random(y.size) > spec)
    human = np.where(rng.random(y.size) < labelled, y, np.nan)
    return frame.assign(score=says.astype(float), human=human), truth


def judged() -> None:
    """The judged board's Laplace fit (items integrated one by one) against NUTS."""
    systems, items = 40, 300
    frame, _ = judged_board(np.random.default_rng(5), systems, items)
    study = jb.LeaderboardStudy.from_frame(frame, human="human")
    c0 = time.process_time()
    lap = study.fit("laplace", random_seed=0)
    t_lap = time.process_time() - c0
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nuts = study.fit("nuts", random_seed=0)
    t_nuts = time.process_time() - c0
    print(f"judged {systems} x {items}, 10% labelled: Laplace against NUTS "
          f"(CPU {t_lap:.0f} s / {t_nuts:.0f} s, {t_nuts / t_lap:.1f}x; NUTS gate "
          f"{nuts.diagnostics.passed}; {lap.info['psi_ess']} of {lap.info['points']} "
          "points effective)")  # fmt: skip
    print("| quantity | sd, Laplace / NUTS | mean gap, median (NUTS sds) | largest gap |")
    print("|---|---|---|---|")
    for var in ("theta", "theta_process", "sensitivity", "specificity"):
        a, b = (f.draws(var).values.reshape(-1, systems) for f in (lap, nuts))
        gap, ratio = (a.mean(0) - b.mean(0)) / b.std(0), a.std(0) / b.std(0)
        print(f"| {var} | {ratio.min():.2f}-{ratio.max():.2f} | {np.median(gap):+.2f} | "
              f"{np.abs(gap).max():.2f} |")  # fmt: skip
    for var in ("sigma_item", "tau_sensitivity", "tau_specificity"):
        a, b = (f.draws(var).values for f in (lap, nuts))
        print(f"| {var} | Laplace {a.mean():.3f}, NUTS {b.mean():.3f} (sd {b.std():.3f}) | | |")


def judged_large(boards: int) -> None:
    """Judged 100 x 1,000 boards by Laplace alone (NUTS would take hours)."""
    for r in range(boards):
        frame, truth = judged_board(np.random.default_rng(10 + r), 100, 1000)
        study = jb.LeaderboardStudy.from_frame(frame, human="human")
        c0 = time.process_time()
        fit = study.fit("laplace", random_seed=r)
        t_lap = time.process_time() - c0
        iv = fit.interval(0.1)
        hit = float(np.mean((iv["lower"] <= truth) & (truth <= iv["upper"])))
        info = fit.info
        print(f"judged 100 x 1,000, board {r}: Laplace {t_lap:.0f} s CPU "
              f"({info['newton_solves']} solves, {info['psi_ess']} of 16 points effective); "
              f"90% intervals cover {hit:.3f} of 100; spreads {info['psi_mode']}",
              flush=True)  # fmt: skip


def judged_coverage(boards: int, item_sd: float = 0.0) -> None:
    """90% intervals of judged boards' Laplace fits over many boards: ``theta`` against
    each system's mean over the board's items, ``theta_process`` against its mean over
    the items' N(0, 1.3^2) population (Gauss-Hermite, 80 nodes)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    print("| board | boards fitted | refused | `theta`: coverage (MC sd), width | "
          "`theta_process`: coverage (MC sd), width | CPU per fit |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for systems, items in ((10, 200), (20, 200))[: 1 if item_sd else 2]:
        hits: dict[str, list] = {"theta": [], "theta_process": []}
        width: dict[str, list] = {"theta": [], "theta_process": []}
        cpu, refused = [], 0
        ability = np.linspace(-1.5, 1.5, systems)
        process = (1 / (1 + np.exp(-(ability[:, None] - 1.3 * nodes)))) @ weights / weights.sum()
        for r in range(boards):
            rng = np.random.default_rng([17, systems, r])
            frame, truth = judged_board(rng, systems, items, item_sd=item_sd)
            study = jb.LeaderboardStudy.from_frame(frame, human="human")
            c0 = time.process_time()
            try:
                fit = study.fit("laplace", random_seed=r)
            except jb.errors.MethodRefused:
                refused += 1
                continue
            cpu.append(time.process_time() - c0)
            for var, t in (("theta", truth), ("theta_process", process)):
                iv = fit.interval(0.1, var=var)
                hits[var].append(float(np.mean((iv["lower"] <= t) & (t <= iv["upper"]))))
                width[var].append(float((iv["upper"] - iv["lower"]).mean()))
        cells = [f"{systems} x {items}", str(len(cpu)), str(refused)]
        for var in hits:  # the Monte-Carlo sd is that of the boards' shares
            h = np.asarray(hits[var])
            mc = h.std(ddof=1) / np.sqrt(h.size)
            cells.append(f"{h.mean():.3f} ({mc:.3f}), {np.mean(width[var]):.3f}")
        cells.append(f"{np.mean(cpu):.1f} s")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--coverage", type=int, default=0, metavar="BOARDS")
    ap.add_argument("--versus-nuts", action="store_true")
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--judged", action="store_true")
    ap.add_argument("--judged-coverage", type=int, default=0, metavar="BOARDS")
    ap.add_argument("--judge-item-sd", type=float, default=0.0, metavar="SD")
    ap.add_argument("--judged-large", type=int, default=0, metavar="BOARDS")
    args = ap.parse_args()
    if args.coverage:
        coverage(args.coverage)
    if args.versus_nuts:
        versus_nuts()
    if args.large:
        large()
    if args.judged:
        judged()
    if args.judged_coverage:
        judged_coverage(args.judged_coverage, args.judge_item_sd)
    if args.judged_large:
        judged_large(args.judged_large)
