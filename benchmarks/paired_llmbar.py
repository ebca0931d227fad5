"""A real prompt change on LLMBar, paired: coverage of the gold difference over label draws.

ChatGPT's plain and metrics-and-reference prompts on the same 885 LLMBar items
(``jb.datasets.llmbar_paired_items()``), GPT-4's agreement as the grader, the gold label on
every item.  Each of ``--draws`` random draws checks 30% of the items on both answers; per
method, whether the 95% interval of new - old (the 885 items' difference) holds the gold
difference, its width, and the NUTS fits that missed the convergence gate.

Run: python benchmarks/paired_llmbar.py [--draws 20]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import judgebayes as jb
from judgebayes.datasets import llmbar_paired_items

NEW, OLD = "ChatGPT Metrics_Reference", "ChatGPT Vanilla_NoRules"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=20)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    items = llmbar_paired_items()
    gold = items.groupby("system")["human"].mean()
    truth = gold[NEW] - gold[OLD]
    prompts = items["item"].unique()
    rows: dict[str, list] = {}
    missed = 0
    for r in range(args.draws):
        labelled = prompts[np.random.default_rng(r).random(prompts.size) < 0.3]
        f = items.assign(human=items["human"].where(items["item"].isin(labelled)))
        for name, method, kw in (
            ("closed form, paired", "closed_form", {"item": "item"}),
            ("exact, paired", "exact", {"item": "item"}),
            ("NUTS, paired", "nuts", {"item": "item"}),
            ("closed form, independent", "closed_form", {}),
            ("NUTS, independent", "nuts", {}),
        ):
            fit = jb.AccuracyStudy.from_items(f, system="system", **kw).fit(method, random_seed=r)
            if fit.diagnostics is not None and not fit.diagnostics.passed:
                missed += 1
            c = fit.contrasts().set_index(["a", "b"])
            lo, hi = (c.loc[(NEW, OLD), k] for k in ("lower", "upper"))
            rows.setdefault(name, []).append((lo <= truth <= hi, hi - lo))
    print(f"gold difference {truth:+.3f}; {args.draws} draws of 30% of the items")
    for name, v in rows.items():
        v = np.array(v, float)
        covered = int(v[:, 0].sum())
        print(f"{name:26s} covered {covered} / {len(v)}  mean width {v[:, 1].mean():.4f}")
    print(f"NUTS fits that missed the gate: {missed} of {2 * args.draws}")


if __name__ == "__main__":
    main()
