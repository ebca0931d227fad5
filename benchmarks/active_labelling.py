"""Which items to label next, on real judges: labels needed for a 0.10-wide 95% interval,
active (the judge's uncertainty) against uniform labelling, with coverage.

LLMBar: GPT-4's verdict ("output 1 is better", plain prompt) on the 419 instances of the
natural and adversarial subsets; uncertainty = the share of its 14 other prompting
strategies that pick the other output (repeated runs of one judge); the truth is the gold
label.  HANNA: a judge LLM's mean rating over its four Eval-Prompts on the stories it
rated, uncertainty = the spread of those four ratings, the truth the three humans' mean
rating (1-5), on one criterion.

Each draw: a first round of 20% of the budget (at least 30 labels) at random, then the
rest in one round drawn by ``label_next`` (uncertainty-driven, mixed with uniform at the
predicted-best share, the uncertainty also in the working model) or uniformly (``mix=1``)
with the same working model or with the judge alone, all read by ``active_estimate``
(cross-fitted working models; the active draws also with one fold, the model from the
labels before each round alone); beside
them ppi_py's PPI++ on the same number of uniform labels (its interval is for the process
mean, so wider).  The
estimand is the mean over the N items, known here.

    python benchmarks/active_labelling.py [--draws 200] [--rounds R]
    python benchmarks/active_labelling.py --coverage-at 200 --rounds 5 --draws 1000
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb
from judgebayes.datasets import hanna_scores
from judgebayes.workflows.label_next import design_round


def llmbar() -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """GPT-4's plain-prompt verdict; uncertainty = the share of its 14 other prompting
    strategies (CoT, Swap, Metrics, Reference, Rating, few-shot, ...) that pick the other
    output: repeated runs of one judge."""
    d = jb.datasets.load_llmbar_judgments()
    g = d[d["evaluator"] == "GPT-4"]
    w = g.pivot_table(index=["subset", "idx"], columns="strategy", values="winner_orig_order")
    w = w[w["Vanilla"].notna()]
    gold = g.groupby(["subset", "idx"])["label"].first().loc[w.index]
    base = w["Vanilla"]
    others = w.drop(columns=["Vanilla"])
    differ = others.apply(lambda c: (c != base) & c.notna())
    u = differ.sum(axis=1) / others.notna().sum(axis=1)
    f = (base == 1).to_numpy(float)
    y = (gold == 1).to_numpy(float)
    return f, y, u.to_numpy(float), f"LLMBar (GPT-4, {len(f)} pairs)"


def hanna(judge: str = "Mistral-7B", criterion: str = "CH") -> tuple:
    """A judge's mean rating over its four prompts (the score), their spread (the
    uncertainty) and the humans' mean rating, on the stories all four prompts rated."""
    cols = [hanna_scores(criterion, (judge,), prompt=p).set_index("story_id") for p in (1, 2, 3, 4)]
    scores = pd.concat([c[judge] for c in cols], axis=1).dropna()
    human = cols[0].loc[scores.index, "human_mean"].to_numpy(float)
    f = scores.mean(axis=1).to_numpy(float)
    u = scores.std(axis=1).to_numpy(float)
    return f, human, u, f"HANNA ({judge}, {criterion}, {len(f)} stories, mean rating 1-5)"


def oracle_ratio(f, y, u) -> float:
    """Uniform labelling on the score alone against the best design (the oracle): the
    working model on the score and its uncertainty fitted on all items, and each item's
    error scale known within quintiles of the uncertainty, the score or the model's
    prediction (the best of the three); uniform needs (line variance) / (model variance) x
    E[s^2] / E[s]^2 times the best design's labels."""
    line = np.var(y - np.polyval(np.polyfit(f, y, 1), f))
    z = (u - u.mean()) / u.std()
    X = np.column_stack([np.ones_like(f), f, z, f * z])
    fitted = X @ np.linalg.lstsq(X, y, rcond=None)[0]
    e = y - fitted
    best = 1.0
    for by in (u, f, fitted):
        q = pd.qcut(by, 5, labels=False, duplicates="drop")
        s = np.sqrt(pd.Series(e**2).groupby(q).transform("mean").to_numpy())
        best = max(best, np.mean(s**2) / np.mean(s) ** 2)
    return float(line / np.var(e) * best)


def oracle_bounds() -> None:
    """The most any design on a judge's scores could save (:func:`oracle_ratio`): for
    every HANNA judge and criterion, and for LLMBar's GPT-4."""
    from judgebayes.datasets import HANNA_CRITERIA, HANNA_JUDGES

    rows = [
        (c, j, oracle_ratio(*hanna(j, c)[:3]))
        for c, j in itertools.product(HANNA_CRITERIA, HANNA_JUDGES)
    ]
    ratio = np.array([r[2] for r in rows])
    worst = rows[int(np.argmax(ratio))]
    print(
        f"\nHANNA, oracle bound over {len(rows)} judge x criterion pairs: uniform / best "
        f"design {ratio.min():.3f}-{ratio.max():.3f} (largest {worst[1]}, {worst[0]}), "
        f"i.e. at most {1 - 1 / ratio.max():.1%} fewer labels"
    )
    r = oracle_ratio(*llmbar()[:3])
    print(f"LLMBar (GPT-4), oracle bound: uniform / best design {r:.3f}, {1 - 1 / r:.1%} fewer")


def draw_rounds(f, y, u, n, rng, kind: str, rounds: int):
    """The labels of one draw of ``kind`` as ``active_estimate`` reads them: "active" (the
    uncertainty in the design and the working model), "uniform, same model" (uniform
    draws, the same working model) or "uniform" (uniform draws, the working model on the
    judge alone); a first round at random, the rest of the budget ``n`` in ``rounds - 1``
    equal rounds, each planned on the labels before it.  Returns (frame, probs)."""
    model_u = None if kind == "uniform" else u
    N = f.size
    yy, rd = np.full(N, np.nan), np.full(N, np.nan)
    first = max(round(0.2 * n), 30)  # MIN_LABELS at random before leaning on u
    pick = rng.choice(N, first, replace=False)
    yy[pick], rd[pick] = y[pick], 1
    frame = pd.DataFrame({"f": f, "p1": first / N, "u": 0.0 if model_u is None else model_u})
    for k in range(2, rounds + 1):
        budget = (n - first) / (rounds - 1)
        mix = None if kind == "active" else 1.0
        r = design_round(f, yy, model_u, budget, mix=mix, rng=rng)
        yy[r["new"]], rd[r["new"]] = y[r["new"]], k
        frame[f"p{k}"] = r["prob"]
    frame["h"], frame["round"] = yy, rd
    return frame, [f"p{k}" for k in range(1, rounds + 1)]


def one_draw(f, y, u, n, rng, kind: str, rounds: int = 2):
    """Width, coverage and labels of one draw (:func:`draw_rounds`); "active, one fold"
    is the active draw read with each round's working model from the labels before it
    alone."""
    folds = 1 if kind == "active, one fold" else 10
    frame, probs = draw_rounds(f, y, u, n, rng, kind.removesuffix(", one fold"), rounds)
    e = jb.active_estimate(
        frame, "f", "h", round="round", probs=probs, uncertainty="u", folds=folds
    )
    return e["upper"] - e["lower"], e["lower"] <= y.mean() <= e["upper"], int(e["labels"])


def coverage_at(f, y, u, n: int, rounds: int, draws: int, weights=None) -> None:
    """Coverage of the normal interval and the sd of the standardised error at one budget,
    active and uniform (same model) draws, each read with 10 folds and with one (and the
    rounds' fixed ``weights``, if given); seeds apart from the table's."""
    for kind in ("active", "uniform, same model"):
        z = {10: [], 1: []}
        for i in range(draws):
            frame, probs = draw_rounds(f, y, u, n, np.random.default_rng((70, n, i)), kind, rounds)
            for folds, out in z.items():
                e = jb.active_estimate(
                    frame, "f", "h", round="round", probs=probs, uncertainty="u", folds=folds,
                    weights=weights,
                )  # fmt: skip
                out.append((e["estimate"] - y.mean()) / e["se"])
        for folds, out in z.items():
            out = np.asarray(out)
            print(
                f"{kind}, {n} labels, {rounds} rounds, {folds} fold(s): coverage "
                f"{np.mean(np.abs(out) < 1.959964):.3f}, standardised error mean "
                f"{out.mean():.3f} sd {out.std():.3f} over {draws} draws"
            )


def ppi_width(f, y, n, rng):
    from ppi_py import ppi_mean_ci

    pick = rng.choice(f.size, n, replace=False)
    rest = np.setdiff1d(np.arange(f.size), pick)
    lo, hi = ppi_mean_ci(y[pick], f[pick], f[rest], alpha=0.05)
    return float(np.ravel(hi)[0] - np.ravel(lo)[0])


def labels_for(widths: dict[int, float], target: float) -> float:
    """Budget at which the mean width reaches ``target`` (linear between grid points)."""
    ns = sorted(widths)
    for a, b in itertools.pairwise(ns):
        if widths[a] >= target >= widths[b]:
            return a + (b - a) * (widths[a] - target) / (widths[a] - widths[b])
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2, help="labelling rounds, the first at random")
    ap.add_argument("--coverage-at", type=int, help="only the coverage study at this budget")
    ap.add_argument("--weights", help="with --coverage-at: the rounds' fixed weights, 0,1,...")
    args = ap.parse_args()
    if args.coverage_at:
        w = None if args.weights is None else [float(x) for x in args.weights.split(",")]
        coverage_at(*llmbar()[:3], args.coverage_at, args.rounds, args.draws, w)
        return
    oracle_bounds()
    sd = np.sqrt(0.0475 / args.draws)
    print(f"{args.draws} draws per budget; MC sd of a 95% coverage {sd:.3f}")
    for f, y, u, name in (llmbar(), hanna()):
        t0 = time.perf_counter()
        grid = [int(x) for x in np.linspace(0.1, 0.7, 13) * f.size]
        kinds = ("active", "active, one fold", "uniform, same model", "uniform")
        width = {k: {} for k in kinds} | {"ppi++ (ppi_py)": {}}
        cover = {k: [] for k in kinds}
        for n in grid:
            for kind in kinds:  # the same seeds for every design: paired draws
                out = [
                    one_draw(f, y, u, n, np.random.default_rng((7, n, i)), kind, args.rounds)
                    for i in range(args.draws)
                ]
                width[kind][n] = float(np.mean([o[0] for o in out]))
                cover[kind].append(float(np.mean([o[1] for o in out])))
            rng = np.random.default_rng((8, n))
            ppi = [ppi_width(f, y, n, rng) for _ in range(50)]
            width["ppi++ (ppi_py)"][n] = float(np.mean(ppi))
        print(f"\n### {name}  ({time.perf_counter() - t0:.0f} s)")
        print("| budget | " + " | ".join(f"{n}" for n in grid) + " |")
        print("|---|" + "---|" * len(grid))
        for kind, w in width.items():
            print(f"| width, {kind} | " + " | ".join(f"{w[n]:.3f}" for n in grid) + " |")
        for kind, c in cover.items():
            print(f"| coverage, {kind} | " + " | ".join(f"{x:.3f}" for x in c) + " |")
        need = {k: labels_for(w, 0.10) for k, w in width.items()}
        print(
            "\nlabels for a 0.10-wide interval: "
            + ", ".join(
                f"{k} {v:.0f}" if np.isfinite(v) else f"{k} not within 70% of the items"
                for k, v in need.items()
            )
            + f"; active / uniform {need['active'] / need['uniform']:.3f}"
            + f"; active / uniform with the same model {need['active'] / need[kinds[2]]:.3f}"
        )
        for base in kinds[2:]:
            never = all(width["active"][n] <= width[base][n] * 1.01 for n in grid)
            print(f"active never more than 1% wider than {base} at any budget: {never}")


if __name__ == "__main__":
    main()
