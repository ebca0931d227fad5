"""Many systems on one benchmark, read from the shared data folder: AlpacaEval's judged
win rates (code Apache-2.0, data CC BY-NC 4.0: use it from the data folder, never bundled)
and LiveCodeBench's code-generation results (CC BY-SA 4.0).
"""

from __future__ import annotations

import pandas as pd

from judgebayes.datasets.base import check_choice, read_csv

__all__ = ["ALPACA_EVAL_ANNOTATORS", "alpaca_eval_judgments", "livecodebench_generation"]

ALPACA_EVAL_ANNOTATORS = (
    "weighted_alpaca_eval_gpt4_turbo",
    "alpaca_eval_gpt4",
    "alpaca_eval_gpt4_turbo_fn",
    "alpaca_eval_cot_gpt4_turbo_fn",
)


def alpaca_eval_judgments(
    annotator: str = "weighted_alpaca_eval_gpt4_turbo", *, data_dir=None
) -> pd.DataFrame:
    """One row per model and instruction judged by ``annotator`` against its reference.

    Parameters
    ----------
    annotator : str
        One of :data:`ALPACA_EVAL_ANNOTATORS` (the first is AlpacaEval 2.0's default).
    data_dir : path, optional
        The shared data folder.

    Returns
    -------
    DataFrame
        ``model``, ``item_id`` (0-804), ``win`` (the judge's probability that the model's
        answer is preferred to the reference's; draws 0.5; blank where the judge's answer
        was not parsable), ``identical`` and the answers' lengths (``len_chars_model``,
        ``len_chars_ref``, ``len_words_model``, ``len_words_ref``).
    """
    check_choice(annotator, ALPACA_EVAL_ANNOTATORS, "annotator", "AlpacaEval annotator")
    df = read_csv("alpaca_eval", "alpaca_eval_judgments.csv", data_dir)
    df = df[df["annotator"] == annotator].drop(columns=["annotator", "preference"])
    return df.reset_index(drop=True)


def livecodebench_generation(*, data_dir=None) -> pd.DataFrame:
    """LiveCodeBench's code-generation leaderboard (2024-04-17): 45 models x 400 problems.

    Returns
    -------
    DataFrame
        ``model``, ``question_id``, ``platform``, ``difficulty``, ``contest_date``,
        ``n_samples``, ``n_correct``, ``pass_at_1`` (percent, as published) and
        ``solved`` (``n_correct / n_samples``: the share of samples that passed).
    """
    df = read_csv("livecodebench", "livecodebench_generation.csv", data_dir)
    return df.assign(solved=df["n_correct"] / df["n_samples"])
