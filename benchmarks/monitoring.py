"""Evaluation as it runs: false alarms over whole trajectories, detection delay against
glide's monitor, the without-replacement sequence against confseq's betting sequence, on
the same simulated streams in the same process.

Streams come from the test module's simulator (weekly verdicts, 500 items and 40 random
labels a week, rate 0.6, judge sensitivity 0.9 and specificity 0.8), which shares no code
with the package.

    python benchmarks/monitoring.py [--streams 1000]

confseq 0.0.11 needs Boost headers to build and still spells ``np.float_``: the bench
environment installs it with the ``boost-headers`` wheel (see the Makefile) and the alias
is set here before it is imported.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb
from judgebayes.inference import sequences as sq
from tests.workflows.test_monitor import running_rate, stream


def _first(mask) -> int | None:
    idx = np.flatnonzero(np.asarray(mask, dtype=bool))
    return int(idx[0]) if idx.size else None


def _glide_alarm(frame, threshold: float, level: float) -> int | None:
    """glide's classical monitor on the judge's hits among the human positives (its
    sensitivity), alarming once the running sensitivity is shown below ``threshold``."""
    from glide.monitors import AsymptoticClassicalRM

    lab = frame[frame["human"] == 1]
    hits = (lab["judge"] == 1).to_numpy(float)
    result = AsymptoticClassicalRM().detect(
        hits,
        lab["week"].to_numpy(),
        higher_is_better=True,
        threshold=threshold,
        confidence_level=level,
    )
    seq = result.confidence_sequence
    return _first(seq.test_null_hypothesis(threshold, alternative="smaller"))


def _fixed_sample_misses(frame, truth) -> bool:
    """ppi_py's PPI++ 95% interval recomputed after every week (what a dashboard does)."""
    from ppi_py import ppi_mean_ci

    miss = False
    for w in range(int(frame["week"].max()) + 1):
        sub = frame[frame["week"] <= w]
        lab = sub["human"].notna().to_numpy()
        f = sub["judge"].to_numpy(float)
        lo, hi = ppi_mean_ci(sub["human"].to_numpy()[lab], f[lab], f[~lab], alpha=0.05)
        miss |= not (float(np.ravel(lo)[0]) <= truth[w] <= float(np.ravel(hi)[0]))
    return miss


def no_drift(streams: int, seed: int) -> None:
    from truescore import confidence_sequence

    rng = np.random.default_rng(seed)
    miss = {"ppi_cs": 0, "fixed": 0, "truescore_eb": 0}
    alarms = {"reference": 0, "floor 0.85": 0, "floor 0.9 (at the truth)": 0, "glide 0.85": 0}
    widths = {"ppi_cs": [], "truescore_eb": []}
    for _ in range(streams):
        frame, y = stream(rng, rate_slope=0.01)
        truth = running_rate(frame, y)
        t = jb.monitor(frame, judge="judge", human="human", time="week")
        miss["ppi_cs"] += bool(np.any((t["lower"] > truth) | (truth > t["upper"])))
        widths["ppi_cs"].append(float(t["upper"].iloc[-1] - t["lower"].iloc[-1]))
        alarms["reference"] += bool(t["alarm"].any())
        for floor, key in ((0.85, "floor 0.85"), (0.9, "floor 0.9 (at the truth)")):
            tf = jb.monitor(
                frame, judge="judge", human="human", time="week", floors={"sensitivity": floor}
            )
            alarms[key] += bool(tf["alarm"].any())
        alarms["glide 0.85"] += _glide_alarm(frame, 0.85, 0.95) is not None
        miss["fixed"] += _fixed_sample_misses(frame, truth)
        # truescore's empirical-Bernstein sequence on the labels alone (its target is the
        # labelled items' mean; the running rate of all items is the closest estimand)
        lab = frame["human"].notna().to_numpy()
        cs = confidence_sequence(frame["human"].to_numpy()[lab], alpha=0.05)
        ends = np.cumsum(frame.loc[lab, "week"].value_counts().sort_index().to_numpy()) - 1
        lo, hi = cs.lower_bounds[ends], cs.upper_bounds[ends]
        miss["truescore_eb"] += bool(np.any((lo > truth) | (truth > hi)))
        widths["truescore_eb"].append(float(hi[-1] - lo[-1]))
    sd = np.sqrt(0.05 * 0.95 / streams)
    print(f"\n### No drift: {streams} streams of 20 weekly looks (MC sd of a 5% rate {sd:.3f})")
    print("| sequence / alarm | false alarms over the trajectory | final width |")
    print("|---|---|---|")
    for k, v in miss.items():
        w = f"{np.mean(widths[k]):.3f}" if k in widths else "-"
        print(f"| {k} (misses the running rate) | {v / streams:.3f} | {w} |")
    for k, v in alarms.items():
        print(f"| drift alarm, {k} | {v / streams:.3f} | - |")


def drift(streams: int, seed: int, weeks: int = 30, at: int = 5) -> None:
    rng = np.random.default_rng(seed)
    delays: dict[str, list] = {
        "ours, reference": [],
        "ours, floor 0.85": [],
        "glide, threshold 0.85": [],
        "ours, floor 0.80": [],
        "glide, threshold 0.80": [],
    }
    miss = 0
    for _ in range(streams):
        frame, y = stream(rng, weeks=weeks, drift_at=at)
        t = jb.monitor(frame, judge="judge", human="human", time="week")
        truth = running_rate(frame, y)
        miss += bool(np.any((t["lower"] > truth) | (truth > t["upper"])))
        delays["ours, reference"].append(_first(t["alarm"]))
        for floor in (0.85, 0.80):
            tf = jb.monitor(
                frame, judge="judge", human="human", time="week", floors={"sensitivity": floor}
            )
            delays[f"ours, floor {floor:.2f}"].append(_first(tf["alarm"]))
            delays[f"glide, threshold {floor:.2f}"].append(_glide_alarm(frame, floor, 0.95))
    print(
        f"\n### Sensitivity 0.90 -> 0.70 at week {at}: {streams} streams of {weeks} weeks "
        f"(sequence misses the running rate in {miss / streams:.3f})"
    )
    print(
        "| monitor | found by week 30 | median delay (weeks) | 90th percentile | before the drift |"
    )
    print("|---|---|---|---|---|")
    for k, v in delays.items():
        found = np.array([d for d in v if d is not None and d >= at]) - at
        early = sum(d is not None and d < at for d in v)
        q = np.percentile(found, [50, 90]) if found.size else [np.nan, np.nan]
        print(
            f"| {k} | {found.size / streams:.3f} | {q[0]:.0f} | {q[1]:.0f} | "
            f"{early / streams:.3f} |"
        )
    # paired: on how many streams is ours (floor) no later than glide at the same threshold
    for floor in ("0.85", "0.80"):
        ours = delays[f"ours, floor {floor}"]
        theirs = delays[f"glide, threshold {floor}"]
        later = sum(
            (o is None and g is not None) or (o is not None and g is not None and o > g)
            for o, g in zip(ours, theirs, strict=True)
        )
        print(f"\nfloor {floor}: ours later than glide on {later} of {streams} streams")


def without_replacement(seed: int, sequences: int = 50, N: int = 1000, n: int = 500) -> None:
    np.float_ = np.float64  # noqa: NPY201  (confseq 0.0.11 still names the NumPy 1 alias)
    from confseq.betting import betting_cs

    rng = np.random.default_rng(seed)
    print(f"\n### Without replacement: N = {N}, {n} labels, {sequences} orders per rate")
    print(
        "| rate | max (ours - confseq) width over all times | mean width ratio ours / "
        "confseq | with a 0.9-accurate judge | coverage (ours, 1000 orders) | ms ours | "
        "ms confseq |"
    )
    print("|---|---|---|---|---|---|---|")
    for rate in (0.1, 0.3, 0.5):
        pop = (rng.random(N) < rate).astype(float)
        f = np.where(pop == 1, rng.random(N) < 0.9, rng.random(N) > 0.9).astype(float)
        worst, ratios, powered, t_ours, t_theirs = -np.inf, [], [], 0.0, 0.0
        for _ in range(sequences):
            order = rng.permutation(N)
            x = pop[order][:n]
            t0 = time.perf_counter()
            lo, hi = sq.betting_sequence(x, N, 0.05)
            t_ours += time.perf_counter() - t0
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cl, cu = betting_cs(x, N=N, alpha=0.05, running_intersection=True)
            t_theirs += time.perf_counter() - t0
            worst = max(worst, float(np.max((hi - lo) - (cu - cl))))
            ratios.append(np.mean((hi - lo) / (cu - cl)))
            z = (x - f[order][:n] + 1) / 2
            pl, ph = sq.betting_sequence(z, N, 0.05, resolution=2)
            powered.append(np.mean((2 * ph - 2 * pl) / (cu - cl)))
        covered = 0
        for _ in range(1000):
            x = pop[rng.permutation(N)][:n]
            lo, hi = sq.betting_sequence(x, N, 0.05)
            covered += bool(np.all((lo <= pop.mean()) & (pop.mean() <= hi)))
        print(
            f"| {rate} | {worst:+.4f} | {np.mean(ratios):.3f} | {np.mean(powered):.3f} | "
            f"{covered / 1000:.3f} | {1000 * t_ours / sequences:.1f} | "
            f"{1000 * t_theirs / sequences:.1f} |"
        )


def speed(seed: int) -> None:
    from glide.monitors import AsymptoticPPRM

    frame, _ = stream(np.random.default_rng(seed), weeks=52)
    reps = 20
    t0 = time.perf_counter()
    for _ in range(reps):
        jb.monitor(frame, judge="judge", human="human", time="week")
    ours = (time.perf_counter() - t0) / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        AsymptoticPPRM().detect(
            frame["human"].to_numpy(float),
            frame["judge"].to_numpy(float),
            frame["week"].to_numpy(),
            higher_is_better=True,
            threshold=0.5,
            confidence_level=0.95,
        )
    theirs = (time.perf_counter() - t0) / reps
    print(
        f"\n52 weeks x 500 items: jb.monitor {1000 * ours:.1f} ms (sequence + drift alarm), "
        f"glide AsymptoticPPRM {1000 * theirs:.1f} ms; ratio {ours / theirs:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=1000)
    args = ap.parse_args()
    no_drift(args.streams, 1)
    drift(args.streams, 2)
    without_replacement(3)
    speed(4)


if __name__ == "__main__":
    main()
