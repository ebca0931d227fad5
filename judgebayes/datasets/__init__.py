"""Bundled real judge data with human / gold labels, and loaders returning tidy frames.

LLMBar (MIT licence; see ``llmbar/LICENSE`` and ``llmbar/ATTRIBUTION.md``): pairwise
instruction-following instances with a gold winner, judged by six LLMs under fifteen
prompting strategies in both presentation orders.  Nothing is downloaded: the files ship
inside the package.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import TYPE_CHECKING

from judgebayes.schema import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "LLMBAR_EVALUATORS",
    "LLMBAR_SUBSETS",
    "llmbar_accuracy_items",
    "load_llmbar_instances",
    "load_llmbar_judgments",
]

LLMBAR_SUBSETS = (
    "LLMBar_Natural",
    "LLMBar_Adversarial_Neighbor",
    "LLMBar_Adversarial_GPTInst",
    "LLMBar_Adversarial_GPTOut",
    "LLMBar_Adversarial_Manual",
    "Processed_MT-Bench",
    "Processed_FairEval",
    "Processed_LLMEval2",
)
LLMBAR_EVALUATORS = ("GPT-4", "ChatGPT", "ChatGPT-0301", "PaLM2", "LLaMA2", "Falcon")


def _llmbar_file(name: str):
    return resources.files("judgebayes.datasets").joinpath("llmbar", name)


def load_llmbar_judgments() -> pd.DataFrame:
    """All LLMBar judge verdicts, one row per instance x evaluator x strategy.

    Columns
    -------
    subset : str
        One of :data:`LLMBAR_SUBSETS`.
    idx : int
        Instance index within the subset (row of ``<subset>.dataset.json``).
    evaluator : str
        Judge LLM, one of :data:`LLMBAR_EVALUATORS`.
    strategy : str
        Prompting strategy (Vanilla, Vanilla_NoRules, CoT, Swap, Metrics_Reference, ...).
    label : int
        Gold winner, 1 or 2.
    winner_orig_order : float
        Judge's pick (1 or 2) with output 1 shown first; NaN where unusable.
    winner_swapped_order : float
        Judge's pick with output 2 shown first, mapped back to the original index.
    len_chars_1, len_chars_2, len_words_1, len_words_2 : int
        Lengths of the two outputs.
    """
    import pandas as pd

    with _llmbar_file("llmbar_judgments.csv").open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh)


def load_llmbar_instances(subset: str) -> pd.DataFrame:
    """The instances of one LLMBar subset: ``idx, input, output_1, output_2, label``."""
    import pandas as pd

    if subset not in LLMBAR_SUBSETS:
        raise InputError(
            f"unknown LLMBar subset {subset!r}; choose one of {list(LLMBAR_SUBSETS)}",
            field="subset",
            value=subset,
        )
    with _llmbar_file(f"{subset}.dataset.json").open("r", encoding="utf-8") as fh:
        rows = json.load(fh)
    df = pd.DataFrame(rows)
    df.insert(0, "idx", range(len(df)))
    return df


def _default_strategy(subset: str) -> str:
    # the processed (human-labelled) sets were only run with the rule-free prompts
    return "Vanilla_NoRules" if subset.startswith("Processed_") else "Vanilla"


def llmbar_accuracy_items(evaluator: str = "GPT-4", strategy: str | None = None) -> pd.DataFrame:
    """Item-level frame for "output 1 is better" as judged by one evaluator.

    Parameters
    ----------
    evaluator : str
        Judge LLM.
    strategy : str, optional
        Prompting strategy; default the plain prompt (Vanilla, or Vanilla_NoRules on the
        Processed_* subsets, which have no Vanilla runs).

    Returns
    -------
    DataFrame
        Columns ``subset, idx, strategy, human`` (1 if the gold label says output 1 is
        better, else 0) and ``judge`` (1 / 0 from the original presentation order; NaN
        where the judge's output was unusable: those rows are kept so that they can be
        counted as missing).
    """
    import numpy as np

    if evaluator not in LLMBAR_EVALUATORS:
        raise InputError(
            f"unknown LLMBar evaluator {evaluator!r}; choose one of {list(LLMBAR_EVALUATORS)}",
            field="evaluator",
            value=evaluator,
        )
    d = load_llmbar_judgments()
    d = d[d["evaluator"] == evaluator]
    want = d["subset"].map(_default_strategy) if strategy is None else strategy
    d = d[d["strategy"] == want]
    if d.empty:
        raise InputError(
            f"no LLMBar verdicts for evaluator {evaluator!r} with strategy {strategy!r}",
            field="strategy",
            value=strategy,
        )
    out = d[["subset", "idx", "strategy"]].copy()
    out["human"] = (d["label"] == 1).astype(int)
    w = d["winner_orig_order"]
    out["judge"] = np.where(w.isna(), np.nan, (w == 1).astype(float))
    order = {s: i for i, s in enumerate(LLMBAR_SUBSETS)}
    return (
        out.assign(_o=out["subset"].map(order))
        .sort_values(["_o", "idx"])
        .drop(columns="_o")
        .reset_index(drop=True)
    )
