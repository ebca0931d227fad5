"""Loaders of the real judge data, read from the shared data folder where it lives.

:mod:`~.base` finds the folder (``data_dir=``, ``$JUDGEBAYES_DATA``, or ``shared/data``
beside the checkout); :mod:`~.llmbar` (LLMBar, MIT), :mod:`~.pandalm` (PandaLM,
Apache-2.0), :mod:`~.hanna` (HANNA, MIT), :mod:`~.llm_rubric` (LLM-Rubric, MIT) and
:mod:`~.beyond_consensus` (the published counts of a 14 x 14 validator panel) return
tidy frames in the contracts of :mod:`judgebayes.data`.  Each data set
keeps its upstream licence in its folder; nothing is bundled or downloaded.
:func:`read_csv` reads any CSV file of a data set's folder as it is.
"""

from judgebayes.datasets.base import data_dir, data_path, read_csv
from judgebayes.datasets.beyond_consensus import beyond_consensus_panel
from judgebayes.datasets.hanna import HANNA_CRITERIA, HANNA_JUDGES, hanna_scores
from judgebayes.datasets.leaderboards import (
    ALPACA_EVAL_ANNOTATORS,
    alpaca_eval_judgments,
    livecodebench_generation,
)
from judgebayes.datasets.llm_rubric import LLM_RUBRIC_QUESTIONS, llm_rubric_scores
from judgebayes.datasets.llmbar import (
    LLMBAR_EVALUATORS,
    LLMBAR_SUBSETS,
    llmbar_accuracy_items,
    llmbar_both_orders,
    llmbar_paired_items,
    llmbar_version_stream,
    load_llmbar_instances,
    load_llmbar_judgments,
)
from judgebayes.datasets.pandalm import (
    PANDALM_GENERATORS,
    PANDALM_SOURCES,
    load_pandalm_pairs,
    pandalm_comparisons,
    pandalm_judged,
)

__all__ = [
    "ALPACA_EVAL_ANNOTATORS",
    "HANNA_CRITERIA",
    "HANNA_JUDGES",
    "LLMBAR_EVALUATORS",
    "LLMBAR_SUBSETS",
    "LLM_RUBRIC_QUESTIONS",
    "PANDALM_GENERATORS",
    "PANDALM_SOURCES",
    "alpaca_eval_judgments",
    "beyond_consensus_panel",
    "data_dir",
    "data_path",
    "hanna_scores",
    "livecodebench_generation",
    "llm_rubric_scores",
    "llmbar_accuracy_items",
    "llmbar_both_orders",
    "llmbar_paired_items",
    "llmbar_version_stream",
    "load_llmbar_instances",
    "load_llmbar_judgments",
    "load_pandalm_pairs",
    "pandalm_comparisons",
    "pandalm_judged",
    "read_csv",
]
