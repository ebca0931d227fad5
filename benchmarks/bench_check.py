"""The speed guard: each core call timed against its peer (or, where the peer is not
installed, a fixed numpy reference op) in the same process, the CPU-time ratio held to the
bound recorded in ``benchmarks/bench_bounds.toml``.

Each case runs the two sides interleaved, ``--reps`` times after one warm call, and takes
each side's median CPU time (``time.process_time``: the other jobs of a shared machine move
it less than wall time); the ratio is ours / theirs.  A ratio above its bound fails the run
(exit status 1) and names the case.  ``--write`` rewrites BENCHMARKS.md's speed table (the
lines between its ``bench-check`` markers) from the run.

    python benchmarks/bench_check.py [--fast] [--reps N] [--only NAME ...] [--write]
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BOUNDS = Path(__file__).with_name("bench_bounds.toml")
MARK_BEGIN = "<!-- bench-check: begin (python benchmarks/bench_check.py --write) -->"
MARK_END = "<!-- bench-check: end -->"


@dataclass(frozen=True)
class Case:
    """One timed comparison: ``setup()`` returns (ours, theirs, peer's name), two
    callables of no arguments doing the same job on the same inputs."""

    name: str
    call: str
    setup: Callable[[], tuple[Callable, Callable, str]]
    #: the peers ``setup`` tries, in order (the first importable one is timed; "numpy":
    #: the reference op)
    peers: tuple[str, ...] = ("numpy",)


def reference_op() -> Callable:
    """A fixed single-threaded numpy workload (sorting and exponentiating 200,000 numbers):
    the yardstick of a case whose peer is not installed, so the ratio still moves when our
    call does (no BLAS, whose idle threads would count as CPU time)."""
    x = np.random.default_rng(0).normal(size=200_000)

    def op():
        np.sort(x)
        np.exp(x).sum()

    return op


# ----------------------------------------------------------------------------- the cases
def _items(n: int):
    def setup():
        import judgebayes as jb

        f = jb.simulate.simulate_items(n, n_labelled=n // 10, seed=0).frame

        def ours():
            study = jb.AccuracyStudy.from_items(f, estimand="process")
            return study.fit("closed_form").interval()

        try:
            from ppi_py import ppi_mean_ci
        except ImportError:
            return ours, reference_op(), "numpy reference op"
        lab = f["human"].notna().to_numpy()

        def theirs():
            v = f["judge"].to_numpy(float)
            return ppi_mean_ci(f["human"].to_numpy()[lab], v[lab], v[~lab], alpha=0.05)

        return ours, theirs, "ppi_py PPI++"

    return setup


def _alpha(kind: str):
    def setup():
        import pandas as pd

        import judgebayes as jb

        if kind == "hanna":
            from judgebayes.datasets import hanna_scores

            df = hanna_scores("RE")[["human_1", "human_2", "human_3"]].astype(float)
        else:
            rng = np.random.default_rng(12)
            x = rng.integers(1, 6, (10_000, 5)).astype(float)
            x[rng.random(x.shape) < 0.2] = np.nan
            df = pd.DataFrame(x, columns=list("abcde"))
        raters = list(df.columns)

        def ours():
            return jb.agreement(
                df, raters=raters, coefficients=["krippendorff"], level="ordinal", interval="t"
            )

        try:
            import krippendorff
        except ImportError:
            return ours, reference_op(), "numpy reference op"
        data = df.to_numpy().T

        def theirs():
            return krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")

        return ours, theirs, "krippendorff"

    return setup


def _bradley_terry():
    import judgebayes as jb
    from judgebayes.datasets import pandalm_comparisons

    df = pandalm_comparisons("human")

    def ours():
        return jb.PairwiseRanking.from_frames(df, ties="half").fit("naive").interval()

    try:
        import evalica
    except ImportError:
        try:
            import choix
        except ImportError:
            return ours, reference_op(), "numpy reference op"
        names = sorted(set(df["first"]) | set(df["second"]))
        code = {n: i for i, n in enumerate(names)}
        decided = df[df["winner"].isin(names)]
        pairs = [
            (code[w], code[b if w == a else a])
            for a, b, w in zip(decided["first"], decided["second"], decided["winner"], strict=True)
        ]

        def theirs_choix():
            return choix.ilsr_pairwise(len(names), pairs, alpha=1e-6)

        return ours, theirs_choix, "choix ILSR"
    winner = df["winner"]
    pick = np.where(
        winner == df["first"],
        evalica.Winner.X,
        np.where(winner == df["second"], evalica.Winner.Y, evalica.Winner.Draw),
    ).tolist()

    def theirs():
        return evalica.bradley_terry(df["first"], df["second"], pick)

    return ours, theirs, "evalica"


def _monitor():
    import pandas as pd

    import judgebayes as jb

    rng = np.random.default_rng(3)
    weeks = np.repeat(np.arange(52), 500)
    y = rng.random(weeks.size) < 0.6
    judge = np.where(rng.random(weeks.size) < 0.9, y, ~y).astype(float)
    human = np.where(rng.random(weeks.size) < 0.08, y.astype(float), np.nan)
    frame = pd.DataFrame({"week": weeks, "judge": judge, "human": human})

    def ours():
        return jb.monitor(frame, judge="judge", human="human", time="week")

    return ours, reference_op(), "numpy reference op"


def _scores():
    import judgebayes as jb
    from judgebayes.datasets import hanna_scores

    df = hanna_scores("RE")
    rng = np.random.default_rng(0)
    frame = df.assign(human=np.where(rng.random(len(df)) < 0.1, df["human_mean"], np.nan))
    score = "Beluga-13B"

    def ours():
        study = jb.ScoreStudy.from_items(
            frame, score=score, human="human", system="system", estimand="process"
        )
        return study.fit("closed_form").interval()

    return ours, reference_op(), "numpy reference op"


CASES = [
    Case(
        "items_1000",
        "items closed form from the frame, 1,000 rows",
        _items(1000),
        ("ppi_py", "numpy"),
    ),
    Case(
        "items_5000",
        "items closed form from the frame, 5,000 rows",
        _items(5000),
        ("ppi_py", "numpy"),
    ),
    Case(
        "alpha_hanna",
        "Krippendorff's alpha alone (t interval), HANNA",
        _alpha("hanna"),
        ("krippendorff", "numpy"),
    ),
    Case(
        "alpha_10k",
        "Krippendorff's alpha alone (t interval), 10,000 x 5",
        _alpha("10k"),
        ("krippendorff", "numpy"),
    ),
    Case(
        "bt_pandalm",
        "naive Bradley-Terry with intervals, PandaLM 999 pairs",
        _bradley_terry,
        ("evalica", "choix", "numpy"),
    ),
    Case("monitor_52", "jb.monitor, 52 weeks x 500 verdicts", _monitor),
    Case("scores_hanna", "scores closed form (process), HANNA 10% labelled", _scores),
]


# ----------------------------------------------------------------------------- the runner
def cpu_median(
    ours: Callable, theirs: Callable, reps: int, clock: Callable[[], float] = time.process_time
) -> tuple[float, float]:
    """Each side's median seconds of ``clock`` (CPU time by default) over ``reps``
    interleaved calls, after one warm call."""
    ours(), theirs()
    a, b = [], []
    for _ in range(reps):
        t0 = clock()
        ours()
        t1 = clock()
        theirs()
        t2 = clock()
        a.append(t1 - t0)
        b.append(t2 - t1)
    return float(np.median(a)), float(np.median(b))


def bounds() -> dict[str, dict]:
    """The recorded ratios and bounds, by case name."""
    with BOUNDS.open("rb") as fh:
        return tomllib.load(fh)


def run(cases, reps: int, recorded: dict[str, dict]) -> list[dict]:
    """Time each case; a row per case with its ratio, bound and verdict."""
    rows = []
    for case in cases:
        ours, theirs, peer = case.setup()
        t_ours, t_peer = cpu_median(ours, theirs, reps)
        ratio = t_ours / max(t_peer, 1e-9)
        # no bound recorded for this case against this peer: a failure that says so
        entry = recorded.get(case.name, {}).get(peer.split()[0], {})
        bound = float(entry.get("bound", np.nan))
        rows.append(
            {
                "case": case.name,
                "call": case.call,
                "peer": peer,
                "ours_ms": 1000 * t_ours,
                "peer_ms": 1000 * t_peer,
                "ratio": ratio,
                "bound": bound,
                "ok": ratio <= bound,
            }
        )
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        "| call | against | judgebayes (ms CPU) | peer (ms CPU) | ratio | bound |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['call']} | {r['peer']} | {r['ours_ms']:.2f} | {r['peer_ms']:.2f} | "
            f"{r['ratio']:.2f} | {r['bound']:.2f} |"
        )
    return "\n".join(lines)


def write_benchmarks(text: str) -> None:
    path = ROOT / "BENCHMARKS.md"
    doc = path.read_text()
    i, j = doc.index(MARK_BEGIN) + len(MARK_BEGIN), doc.index(MARK_END)
    path.write_text(doc[:i] + "\n" + text + "\n" + doc[j:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fast", action="store_true", help="fewer repetitions (CI)")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--write", action="store_true", help="rewrite BENCHMARKS.md's table")
    args = ap.parse_args(argv)
    reps = args.reps or (7 if args.fast else 41)
    cases = [c for c in CASES if not args.only or c.name in args.only]
    rows = run(cases, reps, bounds())
    text = table(rows)
    print(text)
    if args.write:
        write_benchmarks(text)
    bad = [r for r in rows if not r["ok"]]
    for r in bad:
        why = (
            f"above its bound {r['bound']:.2f}"
            if np.isfinite(r["bound"])
            else f"and no bound is recorded for it against {r['peer']} in {BOUNDS.name}"
        )
        print(
            f"bench-check: {r['case']} ({r['call']}) takes {r['ratio']:.2f}x {r['peer']}'s CPU "
            f"time, {why}",
            file=sys.stderr,
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
