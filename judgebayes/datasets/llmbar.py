"""LLMBar (MIT licence, princeton-nlp/LLMBar; read from the shared data folder's
``llmbar/``): pairwise instruction-following instances with a gold winner, judged by six
LLMs under fifteen prompting strategies in both presentation orders.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from judgebayes.datasets.base import check_choice, data_path, read_csv
from judgebayes.errors import InputError

__all__ = [
    "LLMBAR_EVALUATORS",
    "LLMBAR_SUBSETS",
    "llmbar_accuracy_items",
    "llmbar_both_orders",
    "llmbar_paired_items",
    "llmbar_version_stream",
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


def load_llmbar_judgments(*, data_dir=None) -> pd.DataFrame:
    """All LLMBar judge verdicts, one row per instance x evaluator x strategy
    (``llmbar/llmbar_judgments.csv`` of the shared data folder, :func:`data_path`).

    Notes
    -----
    The columns:

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
    return read_csv("llmbar", "llmbar_judgments.csv", data_dir)


def load_llmbar_instances(subset: str, *, data_dir=None) -> pd.DataFrame:
    """The instances of one LLMBar subset: ``idx, input, output_1, output_2, label``."""
    check_choice(subset, LLMBAR_SUBSETS, "subset", "LLMBar subset")
    with data_path("llmbar", f"{subset}.dataset.json", data_dir).open(encoding="utf-8") as fh:
        rows = json.load(fh)
    df = pd.DataFrame(rows)
    df.insert(0, "idx", range(len(df)))
    return df


def _default_strategy(subset: str) -> str:
    # the processed (human-labelled) sets were only run with the rule-free prompts
    return "Vanilla_NoRules" if subset.startswith("Processed_") else "Vanilla"


def _plain_prompt_rows(evaluator: str, strategy: str | None, data_dir) -> pd.DataFrame:
    check_choice(evaluator, LLMBAR_EVALUATORS, "evaluator", "LLMBar evaluator")
    d = load_llmbar_judgments(data_dir=data_dir)
    d = d[d["evaluator"] == evaluator]
    want = d["subset"].map(_default_strategy) if strategy is None else strategy
    d = d[d["strategy"] == want]
    if d.empty:
        raise InputError(
            f"no LLMBar verdicts for evaluator {evaluator!r} with strategy {strategy!r}",
            field="strategy",
            value=strategy,
        )
    return d


def _subset_order(df: pd.DataFrame, *keys: str) -> pd.DataFrame:
    order = {s: i for i, s in enumerate(LLMBAR_SUBSETS)}
    return (
        df.assign(_o=df["subset"].map(order))
        .sort_values(["_o", *keys])
        .drop(columns="_o")
        .reset_index(drop=True)
    )


def llmbar_accuracy_items(
    evaluator: str = "GPT-4", strategy: str | None = None, *, data_dir=None
) -> pd.DataFrame:
    """Item-level frame for "output 1 is better" as judged by one evaluator.

    Parameters
    ----------
    evaluator : str
        Judge LLM.
    strategy : str, optional
        Prompting strategy; default the plain prompt (Vanilla, or Vanilla_NoRules on the
        Processed_* subsets, which have no Vanilla runs).
    data_dir : str or Path, optional
        The shared data folder (default: :func:`~judgebayes.datasets.base.data_dir`).

    Returns
    -------
    DataFrame
        Columns ``subset, idx, strategy, human`` (1 if the gold label says output 1 is
        better, else 0) and ``judge`` (1 / 0 from the original presentation order; NaN
        where the judge's output was unusable: those rows are kept so that they can be
        counted as missing).
    """
    d = _plain_prompt_rows(evaluator, strategy, data_dir)
    out = d[["subset", "idx", "strategy"]].copy()
    out["human"] = (d["label"] == 1).astype(int)
    w = d["winner_orig_order"]
    out["judge"] = np.where(w.isna(), np.nan, (w == 1).astype(float))
    return _subset_order(out, "idx")


def llmbar_both_orders(
    evaluator: str = "GPT-4", strategy: str | None = None, *, data_dir=None
) -> pd.DataFrame:
    """One evaluator's verdicts in both presentation orders, one row per instance x order.

    Parameters
    ----------
    evaluator : str
        Judge LLM, one of :data:`LLMBAR_EVALUATORS`.
    strategy : str, optional
        Prompting strategy; default the plain prompt (Vanilla, or Vanilla_NoRules on the
        Processed_* subsets).
    data_dir : str or Path, optional
        The shared data folder (default: :func:`~judgebayes.datasets.base.data_dir`).

    Returns
    -------
    DataFrame
        Columns ``subset, idx, strategy, order`` ("original": output 1 shown first;
        "swapped": output 2 shown first), ``shown_first`` (1 or 2), ``label`` (gold
        winner, 1 or 2), ``pick`` (the judge's pick as an original output index, 1 or 2;
        NaN where unusable: kept, so that it can be counted), ``len_words_1, len_words_2,
        len_chars_1, len_chars_2``.
    """
    d = _plain_prompt_rows(evaluator, strategy, data_dir)
    keep = ["subset", "idx", "strategy", "label"]
    keep += ["len_words_1", "len_words_2", "len_chars_1", "len_chars_2"]
    parts = []
    for order, col, first in (
        ("original", "winner_orig_order", 1),
        ("swapped", "winner_swapped_order", 2),
    ):
        part = d[keep].copy()
        part.insert(3, "order", order)
        part.insert(4, "shown_first", first)
        part.insert(6, "pick", d[col].to_numpy(float))
        parts.append(part)

    return _subset_order(pd.concat(parts, ignore_index=True), "idx", "shown_first")


def llmbar_paired_items(
    systems: tuple[tuple[str, str], ...] = (
        ("ChatGPT", "Vanilla_NoRules"),
        ("ChatGPT", "Metrics_Reference"),
    ),
    grader: tuple[str, str] = ("GPT-4", "Metrics_Reference"),
    *,
    data_dir=None,
) -> pd.DataFrame:
    """Two (or more) "systems" answering the same LLMBar items, graded by another LLM.

    A system here is an (evaluator, prompting strategy) pair choosing the better of an
    item's two outputs: a prompt change evaluated on the same 885 items.  A system's answer
    is right when its pick is the gold one; the automated verdict is whether ``grader``
    (another evaluator and strategy) made the same pick, an LLM grader as an eval harness
    would use; the human label is the gold label's verdict on the answer.  A system or the
    grader without a usable pick counts as a wrong answer or a failing verdict.

    Parameters
    ----------
    systems : tuple of (evaluator, strategy)
        The systems compared (named ``"<evaluator> <strategy>"``).
    grader : (evaluator, strategy)
        The LLM whose agreement is the automated verdict.
    data_dir : str or Path, optional
        The shared data folder (default: :func:`~judgebayes.datasets.base.data_dir`).

    Returns
    -------
    DataFrame
        Columns ``item`` (``"<subset>:<idx>"``), ``system``, ``judge`` (1 / 0: the grader
        passes the answer), ``human`` (1 / 0: the answer is right; every item labelled:
        blank some to simulate a labelling budget), one row per item and system, on the
        items every system and the grader answered.
    """
    d = load_llmbar_judgments(data_dir=data_dir)

    def rows(evaluator, strategy):
        x = d[(d["evaluator"] == evaluator) & (d["strategy"] == strategy)]
        if x.empty:
            raise InputError(
                f"no LLMBar verdicts of {evaluator!r} with strategy {strategy!r}",
                field="strategy",
                value=strategy,
            )
        return x.set_index(["subset", "idx"])

    parts = [rows(*s) for s in systems]
    g = rows(*grader)
    common = g.index
    for x in parts:
        common = common.intersection(x.index)
    common = common.sort_values()
    item = [f"{s}:{i}" for s, i in common]
    pick_g = g.loc[common, "winner_orig_order"].to_numpy(float)
    out = []
    for (evaluator, strategy), x in zip(systems, parts, strict=True):
        pick = x.loc[common, "winner_orig_order"].to_numpy(float)
        gold = x.loc[common, "label"].to_numpy(float)
        out.append(
            pd.DataFrame(
                {
                    "item": item,
                    "system": f"{evaluator} {strategy}",
                    "judge": (pick_g == pick).astype(int),
                    "human": (pick == gold).astype(int),
                }
            )
        )
    return pd.concat(out, ignore_index=True)


def llmbar_version_stream(
    *,
    weeks: int = 16,
    switch: int = 8,
    items: int = 200,
    labels: int = 40,
    old: str = "ChatGPT-0301",
    new: str = "ChatGPT",
    strategy: str = "Vanilla",
    seed: int = 0,
    data_dir=None,
) -> pd.DataFrame:
    """A weekly log replayed from LLMBar's 419 instances across a judge-version change.

    Each week ``items`` instances are drawn (with replacement) from the instances both
    versions judged, judged by ``old`` before week ``switch`` and by ``new`` from it on (the
    two versions' real verdicts on the same instances, original presentation order), and
    ``labels`` of them, a simple random sample, carry the gold label.  The judges are real;
    the stream's timing is a replay.  On the plain prompt the newer ChatGPT is less
    accurate: sensitivity 0.64 -> 0.53 and specificity 0.35 -> 0.29 on "output 1 is
    better".

    Returns
    -------
    DataFrame
        ``week``, ``subset``, ``idx``, ``version``, ``judge`` (1 = output 1 better),
        ``human`` (the gold label; blank where unlabelled) and ``truth`` (the gold label on
        every row, for checking a sequence's coverage).
    """
    a = llmbar_accuracy_items(old, strategy, data_dir=data_dir)
    b = llmbar_accuracy_items(new, strategy, data_dir=data_dir)
    both = a.merge(b[["subset", "idx", "judge"]], on=["subset", "idx"], suffixes=("_old", ""))
    both = both.dropna(subset=["judge_old", "judge"]).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(weeks):
        pick = rng.integers(0, len(both), size=items)
        week = both.iloc[pick].reset_index(drop=True)
        later = w >= switch
        verdict = week["judge"] if later else week["judge_old"]
        human = np.full(items, np.nan)
        lab = rng.choice(items, size=min(labels, items), replace=False)
        human[lab] = week["human"].to_numpy(float)[lab]
        rows.append(
            pd.DataFrame(
                {
                    "week": w,
                    "subset": week["subset"],
                    "idx": week["idx"],
                    "version": new if later else old,
                    "judge": verdict.to_numpy(float),
                    "human": human,
                    "truth": week["human"].to_numpy(float),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)
