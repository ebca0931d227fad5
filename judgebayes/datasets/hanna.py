"""HANNA (MIT, dig-team/hanna-benchmark-asg; read from the shared data folder's ``hanna/``):
1,056 stories from 11 story generators (96 prompts each), three human ratings (Likert 1-5)
on six criteria, and five judge LLMs' ratings under four prompts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.datasets.base import check_choice, read_csv

__all__ = ["HANNA_CRITERIA", "HANNA_JUDGES", "hanna_scores"]

HANNA_CRITERIA = ("RE", "CH", "EM", "SU", "EG", "CX")
HANNA_JUDGES = ("Beluga-13B", "OrcaPlatypus", "Mistral-7B", "Llama-13B", "ChatGPT")


def hanna_scores(
    criterion: str = "RE",
    judges=("Beluga-13B",),
    *,
    prompt: int = 1,
    data_dir=None,
) -> pd.DataFrame:
    """One row per story: each judge's rating on ``criterion`` and the three humans'.

    Parameters
    ----------
    criterion : str
        One of :data:`HANNA_CRITERIA` (relevance, coherence, empathy, surprise,
        engagement, complexity).
    judges : str or sequence of str
        Judge LLMs (:data:`HANNA_JUDGES`); each gives a column of its name.
    prompt : int
        The judges' Eval-Prompt, 1-4.
    data_dir : path, optional
        The shared data folder (default: ``$JUDGEBAYES_DATA`` or ``shared/data`` beside
        the checkout).

    Returns
    -------
    DataFrame
        ``story_id``, ``system`` (the generator; ``Human`` = the reference stories),
        ``prompt_id`` (the writing prompt, shared by the 11 systems: pairs them), one
        column per judge (its rating, the mean of 3 samples; a rating outside 1-5 is an
        upstream failure code and is NaN here, so a study counts it as missing),
        ``human_1..3`` and ``human_mean``.
    """
    judges = (judges,) if isinstance(judges, str) else tuple(judges)
    check_choice(criterion, HANNA_CRITERIA, "criterion", "HANNA criterion")
    check_choice(prompt, (1, 2, 3, 4), "prompt", "HANNA Eval-Prompt")
    for j in judges:
        check_choice(j, HANNA_JUDGES, "judges", "HANNA judge")
    d = read_csv("hanna", "hanna_judgments.csv", data_dir)
    d = d[d["criterion"] == criterion]
    base = d[d["judge"] == judges[0]].set_index("story_id").sort_index()
    out = pd.DataFrame(
        {
            "system": base["system"],
            "prompt_id": base["pos_in_system"],
            **{f"human_{k}": base[f"human_{k}"] for k in (1, 2, 3)},
            "human_mean": base["human_mean"],
        }
    )
    for j in judges:
        col = d[d["judge"] == j].set_index("story_id")[f"judge_prompt{prompt}"]
        out[j] = col.where(col.between(1, 5), np.nan)
    return out.reset_index()
