"""Cross-validated agreement with gold of LLMBar judges, before and after correction.

LLMBar's five LLMBar subsets (419 pairs, both presentation orders), 5-fold CV by pair, for
each of the six judges: the order-averaged verdicts, the bias-aware posterior decision with
the constant and with the length-aware gold prior, the same with the instance effect (NUTS
per fold; the two orders share a deviation of the discrimination), the ranking paper's
logistic baseline and the gold prior alone.
Run: python benchmarks/judge_bias_cv.py [--judges GPT-4 ChatGPT] [--no-instance]
"""

import argparse
import time

import pandas as pd

from judgebayes.datasets import LLMBAR_EVALUATORS, llmbar_both_orders
from judgebayes.workflows.judge_bias import LLMBAR_BIAS_SUBSETS, cross_validated_agreement


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--judges", nargs="*", default=list(LLMBAR_EVALUATORS))
    ap.add_argument("--no-instance", action="store_true")
    a = ap.parse_args()
    rows = []
    for ev in a.judges:
        v = llmbar_both_orders(ev)
        v = v[v["subset"].isin(LLMBAR_BIAS_SUBSETS)]
        row = {"judge": ev}
        for name, kw in (("constant", {"gold_prior": "constant"}), ("length", {})):
            r = cross_validated_agreement(v, seed=0, **kw).set_index("subset").loc["all"]
            row[f"bias_aware[{name}]"] = r["bias_aware"]
        row.update(r[["order_averaged", "logistic", "prior_only"]].to_dict())
        if not a.no_instance:
            t0 = time.perf_counter()
            r = cross_validated_agreement(v, seed=0, instance_effect=True)
            row["bias_aware[length+instance]"] = r.set_index("subset").loc["all", "bias_aware"]
            row["instance_seconds"] = time.perf_counter() - t0
        rows.append(row)
        print(pd.DataFrame([row]).round(3).to_string(index=False), flush=True)
    print(pd.DataFrame(rows).round(3).to_string(index=False))


if __name__ == "__main__":
    main()
