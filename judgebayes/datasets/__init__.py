"""Bundled real judge data with human / gold labels, and loaders returning tidy frames.

LLMBar (MIT licence; see ``llmbar/LICENSE`` and ``llmbar/ATTRIBUTION.md``): pairwise
instruction-following instances with a gold winner, judged by six LLMs under fifteen
prompting strategies in both presentation orders.

PandaLM (Apache-2.0; see ``pandalm/LICENSE`` and ``pandalm/ATTRIBUTION.md``): 999 pairs of
responses from five 7B generators, three human annotators per pair and two judges
(gpt-3.5-turbo, PandaLM-7B), one presentation order.

Nothing is downloaded: the files ship inside the package.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "LLMBAR_EVALUATORS",
    "LLMBAR_SUBSETS",
    "PANDALM_GENERATORS",
    "PANDALM_SOURCES",
    "llmbar_accuracy_items",
    "llmbar_both_orders",
    "llmbar_paired_items",
    "load_llmbar_instances",
    "load_llmbar_judgments",
    "load_pandalm_pairs",
    "pandalm_comparisons",
    "pandalm_judged",
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


PANDALM_GENERATORS = ("bloom-7b", "cerebras-gpt-6.7B", "llama-7b", "opt-7b", "pythia-6.9b")
#: verdict sources of PandaLM and their columns in :func:`load_pandalm_pairs`
PANDALM_SOURCES = {
    "human": "human_majority",
    "gpt-3.5-turbo": "gpt35_verdict",
    "pandalm-7b": "pandalm7b_verdict",
}


def _llmbar_file(name: str):
    return resources.files("judgebayes.datasets").joinpath("llmbar", name)


def _check_choice(value, choices, field: str, what: str) -> None:
    if value not in choices:
        raise InputError(
            f"unknown {what} {value!r}; choose one of {list(choices)}", field=field, value=value
        )


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
    with _llmbar_file("llmbar_judgments.csv").open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh)


def load_llmbar_instances(subset: str) -> pd.DataFrame:
    """The instances of one LLMBar subset: ``idx, input, output_1, output_2, label``."""
    _check_choice(subset, LLMBAR_SUBSETS, "subset", "LLMBar subset")
    with _llmbar_file(f"{subset}.dataset.json").open("r", encoding="utf-8") as fh:
        rows = json.load(fh)
    df = pd.DataFrame(rows)
    df.insert(0, "idx", range(len(df)))
    return df


def _default_strategy(subset: str) -> str:
    # the processed (human-labelled) sets were only run with the rule-free prompts
    return "Vanilla_NoRules" if subset.startswith("Processed_") else "Vanilla"


def _plain_prompt_rows(evaluator: str, strategy: str | None) -> pd.DataFrame:
    _check_choice(evaluator, LLMBAR_EVALUATORS, "evaluator", "LLMBar evaluator")
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
    return d


def _subset_order(df: pd.DataFrame, *keys: str) -> pd.DataFrame:
    order = {s: i for i, s in enumerate(LLMBAR_SUBSETS)}
    return (
        df.assign(_o=df["subset"].map(order))
        .sort_values(["_o", *keys])
        .drop(columns="_o")
        .reset_index(drop=True)
    )


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
    d = _plain_prompt_rows(evaluator, strategy)
    out = d[["subset", "idx", "strategy"]].copy()
    out["human"] = (d["label"] == 1).astype(int)
    w = d["winner_orig_order"]
    out["judge"] = np.where(w.isna(), np.nan, (w == 1).astype(float))
    return _subset_order(out, "idx")


def llmbar_both_orders(evaluator: str = "GPT-4", strategy: str | None = None) -> pd.DataFrame:
    """One evaluator's verdicts in both presentation orders, one row per instance x order.

    Parameters
    ----------
    evaluator : str
        Judge LLM, one of :data:`LLMBAR_EVALUATORS`.
    strategy : str, optional
        Prompting strategy; default the plain prompt (Vanilla, or Vanilla_NoRules on the
        Processed_* subsets).

    Returns
    -------
    DataFrame
        Columns ``subset, idx, strategy, order`` ("original": output 1 shown first;
        "swapped": output 2 shown first), ``shown_first`` (1 or 2), ``label`` (gold
        winner, 1 or 2), ``pick`` (the judge's pick as an original output index, 1 or 2;
        NaN where unusable: kept, so that it can be counted), ``len_words_1, len_words_2,
        len_chars_1, len_chars_2``.
    """
    d = _plain_prompt_rows(evaluator, strategy)
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

    Returns
    -------
    DataFrame
        Columns ``item`` (``"<subset>:<idx>"``), ``system``, ``judge`` (1 / 0: the grader
        passes the answer), ``human`` (1 / 0: the answer is right; every item labelled:
        blank some to simulate a labelling budget), one row per item and system, on the
        items every system and the grader answered.
    """
    d = load_llmbar_judgments()

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


def _pandalm_file(name: str):
    return resources.files("judgebayes.datasets").joinpath("pandalm", name)


def load_pandalm_pairs() -> pd.DataFrame:
    """PandaLM's human-annotated test set, one row per pair of responses.

    Columns
    -------
    idx : int
        Pair index in upstream ``testset-v1.json``.
    model_1, model_2 : str
        Generators of response 1 and response 2 (response 1 is always the alphabetically
        earlier model: position and identity are confounded in this data set).
    annot1, annot2, annot3 : int
        The three annotators' verdicts: 0 tie, 1 or 2 the better response.
    human_majority : int
        Their majority (0 where it is a tie).
    gpt35_verdict : Int64
        gpt-3.5-turbo's verdict (0, 1, 2); missing (``<NA>``) where its output was unusable.
    pandalm7b_verdict : Int64
        PandaLM-7B's verdict (0, 1, 2).
    len_chars_1, len_chars_2, len_words_1, len_words_2 : int
        Response lengths.
    """
    with _pandalm_file("pandalm_pairs.csv").open("r", encoding="utf-8") as fh:
        d = pd.read_csv(fh)
    for col in PANDALM_SOURCES.values():
        d[col] = d[col].astype("Int64")
    return d


def pandalm_comparisons(source: str = "human", *, drop_missing: bool = True) -> pd.DataFrame:
    """PandaLM pairs as comparisons in the pairwise contract of :class:`PairwiseRanking`.

    Parameters
    ----------
    source : {"human", "gpt-3.5-turbo", "pandalm-7b"}
        Whose verdicts: the annotators' majority or one judge.
    drop_missing : bool
        Drop pairs without a usable verdict; their number is kept in
        ``frame.attrs["n_missing"]`` either way.

    Returns
    -------
    DataFrame
        ``idx, first, second`` (generators of response 1 and 2, in presentation order),
        ``winner`` (the preferred generator; empty string for a tie; ``<NA>`` for a
        missing verdict when ``drop_missing=False``), ``judge`` (= source),
        ``words_first, words_second, chars_first, chars_second``.
    """
    _check_choice(source, PANDALM_SOURCES, "source", "PandaLM verdict source")
    d = load_pandalm_pairs()
    v = d[PANDALM_SOURCES[source]]
    winner = pd.Series(pd.NA, index=d.index, dtype="object")
    winner[v == 0] = ""
    winner[v == 1] = d.loc[v == 1, "model_1"]
    winner[v == 2] = d.loc[v == 2, "model_2"]
    out = pd.DataFrame(
        {
            "idx": d["idx"],
            "first": d["model_1"],
            "second": d["model_2"],
            "winner": winner,
            "judge": source,
            "words_first": d["len_words_1"],
            "words_second": d["len_words_2"],
            "chars_first": d["len_chars_1"],
            "chars_second": d["len_chars_2"],
        }
    )
    missing = v.isna().to_numpy()
    if drop_missing:
        out = out[~missing].reset_index(drop=True)
    out.attrs["n_missing"] = int(missing.sum())
    return out


def pandalm_judged(judges: tuple[str, ...] = ("gpt-3.5-turbo", "pandalm-7b")) -> pd.DataFrame:
    """PandaLM's judge verdicts with the human preference beside them: the input of a
    judge-error ranking (``PairwiseRanking.from_frames(df, human="human",
    instance="idx")``).

    Returns
    -------
    DataFrame
        One row per (pair, judge) with a usable verdict: the columns of
        :func:`pandalm_comparisons` plus ``human`` (the annotators' majority: the
        preferred generator, or ``"tie"``).  Unusable judge outputs are left out and
        counted in ``frame.attrs["n_missing"]`` (per judge).
    """
    human = pandalm_comparisons("human")
    hmap = dict(zip(human["idx"], human["winner"].replace("", "tie"), strict=True))
    parts, missing = [], {}
    for judge in judges:
        if judge == "human":
            raise InputError("judges are the LLM judges, not 'human'", field="judges", value=judge)
        part = pandalm_comparisons(judge)
        missing[judge] = part.attrs["n_missing"]
        part.insert(4, "human", part["idx"].map(hmap))
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    out.attrs["n_missing"] = missing
    return out
