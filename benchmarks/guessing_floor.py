"""Multiple-choice boards (a guessing floor): the one-parameter model's coverage, the
``guessing_floor`` check's rate, and the guessing board.

Own simulator (numpy, tests/simulators.py's ``multiple_choice_board``): nine systems with
abilities from -3 to 2, 300 items of four options (a floor of 0.25), difficulties normal
with sd 1.5; the same boards without the floor (a vanishing one) for the check's false
alarms.  The one-parameter model is fitted by Laplace (its draws are what the check reads);
the guessing board by NUTS on the first ``--nuts-sets`` boards.  Coverage is of each
system's rate on these items by the 90% interval, pooled over systems.

    python benchmarks/guessing_floor.py [--sets 200] [--nuts-sets 20]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebayes.studies.leaderboard import GuessingBoard, RaschBoard
from tests.simulators import multiple_choice_board

ABILITIES = np.linspace(-3, 2, 9)


def no_floor(rng, abilities, n_items):
    """The same board with a vanishing floor (these items' rates returned, as with one)."""
    return multiple_choice_board(rng, abilities, n_items=n_items, options=10**9)


def one(cls, method, frame, truth, seed):
    study = cls.from_items(frame, system="system", item="item", score="score")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = study.fit(method, random_seed=seed)
        flagged = not study.check(fit)["guessing_floor"].passed
    iv = fit.interval(0.1)
    covered = ((iv["lower"] <= truth) & (truth <= iv["upper"])).to_numpy()
    return covered, flagged


def rows(cls, method: str, sets: int) -> dict:
    """Coverage, the check's rate and the sets, by board (with a floor, without one)."""
    out = {}
    for name, simulate in (("floor", multiple_choice_board), ("no floor", no_floor)):
        cov, flag = [], []
        for s in range(sets):
            frame, truth = simulate(np.random.default_rng([7, s]), ABILITIES, n_items=300)
            c, f = one(cls, method, frame, truth, s)
            cov.append(c)
            flag.append(f)
        if sets:
            out[name] = (np.concatenate(cov).mean(), np.mean(flag), sets)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=200)
    ap.add_argument("--nuts-sets", type=int, default=20)
    args = ap.parse_args()
    rasch = rows(RaschBoard, "laplace", args.sets)
    guess = rows(GuessingBoard, "nuts", args.nuts_sets)
    print("| board | model | sets | 90% coverage of the rates | MC sd | check fires |")
    print("|---|---|---|---|---|---|")
    for model, table in (("Rasch (Laplace)", rasch), ("GuessingBoard (NUTS)", guess)):
        for name, (c, f, n) in table.items():
            sd = np.sqrt(0.9 * 0.1 / (9 * max(n, 1)))
            print(f"| {name} | {model} | {n} | {c:.3f} | {sd:.3f} | {f:.3f} |", flush=True)


if __name__ == "__main__":
    main()
