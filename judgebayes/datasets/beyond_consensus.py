"""The Beyond Consensus panel (Jain, Ahmed, Sahai & Leong 2025, arXiv 2510.11822; the
authors' published aggregate counts, read from the shared data folder's
``beyond_consensus/``): 14 generator LLMs write feedback on buggy programs, 14 validator
LLMs judge each feedback line valid or not, and humans labelled the lines of 6 generators.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.datasets.base import read_csv

__all__ = ["beyond_consensus_panel"]


def beyond_consensus_panel(*, data_dir=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The 14 x 14 panel as the cell and annotation frames of
    :meth:`judgebayes.ValidatorPanel.from_frames`.

    Returns
    -------
    cells : DataFrame
        One row per (generator, validator): ``n_judged`` (lines), ``n_valid`` (judged
        valid), ``self`` (a generator judging its own lines) and, for the 6 annotated
        generators, the confusion counts ``tp, fn, tn, fp`` against the human label
        (positive = the line is valid).  The 8 other generators' line counts are
        reconstructed from the published fractions (the data README): approximate.
    annotations : DataFrame
        One row per annotated generator: ``n_annotated``, ``n_valid_human`` (the lines the
        humans labelled, from the validator that saw the most of them; the counts differ
        by up to 10% across validators where the authors' merge step dropped lines) and
        ``human_precision`` (the humans' valid share, pooled over validators).
    """
    d = read_csv("beyond_consensus", "gv_long.csv", data_dir)
    ann = d["human_annotated_generator"].astype(bool).to_numpy()
    conf = {k: d[k.upper()].where(ann, np.nan) for k in ("tp", "fn", "tn", "fp")}
    cells = pd.DataFrame(
        {
            "generator": d["generator"].astype(str),
            "validator": d["validator"].astype(str),
            "n_judged": d["n_lines"].astype(int),
            "n_valid": d["k_judged_valid"].astype(int),
            "self": d["self_judgement"].astype(bool),
            **conf,
        }
    )
    a = d[ann].assign(
        n=lambda x: x[["TN", "FP", "FN", "TP"]].sum(axis=1), v=lambda x: x["FN"] + x["TP"]
    )
    top = a.loc[a.groupby("generator")["n"].idxmax()]
    pooled = a.groupby("generator")[["v", "n"]].sum()
    annotations = pd.DataFrame(
        {
            "generator": top["generator"].astype(str).to_numpy(),
            "n_annotated": top["n"].astype(int).to_numpy(),
            "n_valid_human": top["v"].astype(int).to_numpy(),
        }
    )
    annotations["human_precision"] = (
        pooled.loc[annotations["generator"], "v"] / pooled.loc[annotations["generator"], "n"]
    ).to_numpy()
    return cells, annotations
