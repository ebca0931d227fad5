"""LLM-Rubric (MIT, microsoft/LLM-Rubric; read from the shared data folder's
``llm_rubric/``): GPT-3.5's probabilities over the answers 1-4 to nine rubric questions
about information-seeking dialogues, and human answers with annotator ids.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.datasets.base import check_choice, read_csv

__all__ = ["LLM_RUBRIC_QUESTIONS", "llm_rubric_scores"]

LLM_RUBRIC_QUESTIONS = tuple(f"Q{k}" for k in range(9))


def llm_rubric_scores(split: str = "real", question: str = "Q0", *, data_dir=None):
    """One row per (dialogue, human judgment) of ``question``.

    Parameters
    ----------
    split : {"real", "synth"}
        223 real dialogues from 3 systems with one human judge each, or 250 synthetic
        ones (systems V1-V5) mostly with three.
    question : str
        ``Q0`` (overall satisfaction) to ``Q8``.
    data_dir : path, optional
        The shared data folder (default: ``$JUDGEBAYES_DATA`` or ``shared/data`` beside
        the checkout).

    Returns
    -------
    DataFrame
        ``text_id``, ``system``, ``annotator``, ``p1..p4`` (the judge's probabilities of
        answers 1-4), ``judge_expected`` (their mean), ``human`` (1-4; NaN where the
        annotator gave no answer, upstream 0, or none is recorded).
    """
    check_choice(split, ("real", "synth"), "split", "LLM-Rubric split")
    check_choice(question, LLM_RUBRIC_QUESTIONS, "question", "LLM-Rubric question")
    d = read_csv("llm_rubric", "llm_rubric_judgments.csv", data_dir)
    d = d[(d["split"] == split) & (d["question"] == question)]
    human = d["human_score"].where(d["human_score"] > 0, np.nan)
    return pd.DataFrame(
        {
            "text_id": d["text_id"].astype(str),
            "system": d["system"].astype(str),
            "annotator": d["annotator_id"],
            **{f"p{k}": d[f"judge_p{k}"] for k in (1, 2, 3, 4)},
            "judge_expected": d["judge_expected"],
            "human": human,
        }
    ).reset_index(drop=True)
