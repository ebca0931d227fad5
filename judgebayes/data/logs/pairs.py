"""Pairwise comparisons from MT-Bench judgments and Chatbot Arena battles."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd

from judgebayes.data.logs.files import find_files, read_records, require_keys
from judgebayes.errors import InputError, JudgeBayesWarning


# ------------------------------------------------------------------ pairwise logs
def _pairs_frame(rows: list[dict], n_missing: int, what: str, covariates: tuple[str, ...] = ()):

    cols = ["first", "second", "winner", "judge", *covariates]
    df = pd.DataFrame(rows, columns=[*cols, "question_id", "turn"])
    df.attrs["n_missing"] = n_missing
    if n_missing:
        warnings.warn(
            f"{what}: {n_missing} verdict(s) the judge did not give (unparseable or error) "
            "are not comparisons; left out and counted in attrs['n_missing']",
            JudgeBayesWarning,
            stacklevel=3,
        )
    if df.empty:
        raise InputError(f"{what}: no comparisons with a verdict", field=what, value=0)
    return df


def _winner(code: Any, names: dict[str, str]) -> str | None:
    """Item id for a model key, '' for a tie, None for no verdict."""
    key = str(code).strip().lower() if code is not None else ""
    if key in names:
        return names[key]
    if key.startswith("tie"):
        return ""
    return None


def mt_bench_pairs(judgments):
    """The comparisons frame of MT-Bench pairwise judgments (both presentation orders).

    Parameters
    ----------
    judgments : str, path or list
        JSON-lines files: FastChat's ``gen_judgment.py`` pairwise output (each record
        judged twice, ``g1`` with ``model_1`` shown first and ``g2`` with ``model_2``
        first; one row per game) or the MT-Bench human judgments (``model_a`` shown
        first, ``winner``; one row each).

    Returns
    -------
    pandas.DataFrame
        ``first``, ``second``, ``winner`` (blank = tie), ``judge`` (the judge model and
        prompt, or the human annotator), ``question_id``, ``turn``.
    """
    rows, missing = [], 0
    for p in find_files(judgments, "judgments", ("*.jsonl",)):
        for i, r in enumerate(read_records(p, "judgments")):
            judge = r.get("judge", "judge")
            judge = "/".join(map(str, judge)) if isinstance(judge, list) else str(judge)
            base = {"judge": judge, "question_id": r.get("question_id"), "turn": r.get("turn", 1)}
            if "g1_winner" in r:
                require_keys(r, ("model_1", "model_2", "g2_winner"), "judgments", p, i)
                m1, m2 = str(r["model_1"]), str(r["model_2"])
                names = {"model_1": m1, "model_2": m2}
                games = ((m1, m2, r["g1_winner"]), (m2, m1, r["g2_winner"]))
            else:
                require_keys(r, ("model_a", "model_b", "winner"), "judgments", p, i)
                a, b = str(r["model_a"]), str(r["model_b"])
                games = ((a, b, r["winner"]),)
                names = {"model_a": a, "model_b": b}
            for first, second, code in games:
                w = _winner(code, names)
                if w is None:
                    missing += 1
                    continue
                rows.append({"first": first, "second": second, "winner": w, **base})
    return _pairs_frame(rows, missing, "MT-Bench judgments")


def arena_pairs(battles, *, lengths: bool = True):
    """The comparisons frame of Chatbot Arena battles.

    Parameters
    ----------
    battles : str, path or list
        FastChat's ``clean_battle_*.json`` (a JSON list) or the same records as JSON
        lines.  ``model_a`` is the model shown first (left); the arena randomises it, so
        both orders occur.  Ties (``tie``, ``tie (bothbad)``) have a blank winner.
    lengths : bool
        Add ``tokens_first`` / ``tokens_second`` (the answers' token counts, from
        ``conv_metadata``) when every record has them, for a length covariate.

    Returns
    -------
    pandas.DataFrame
        ``first``, ``second``, ``winner``, ``judge`` (``"human"``: the arena's voters are
        anonymous), ``question_id``, ``turn`` and, with ``lengths``, the token counts.
    """
    rows, missing = [], 0
    has_len = lengths
    for p in find_files(battles, "battles", ("*.json", "*.jsonl")):
        for i, r in enumerate(read_records(p, "battles")):
            require_keys(r, ("model_a", "model_b", "winner"), "battles", p, i)
            a, b = str(r["model_a"]), str(r["model_b"])
            w = _winner(r["winner"], {"model_a": a, "model_b": b})
            if w is None:
                missing += 1
                continue
            row = {
                "first": a,
                "second": b,
                "winner": w,
                "judge": "human",
                "question_id": r.get("question_id"),
                "turn": r.get("turn", 1),
            }
            meta = r.get("conv_metadata") or {}
            ta, tb = meta.get("sum_assistant_a_tokens"), meta.get("sum_assistant_b_tokens")
            if ta is None or tb is None:
                has_len = False
            row["tokens_first"], row["tokens_second"] = ta, tb
            rows.append(row)
    cov = ("tokens_first", "tokens_second") if has_len else ()
    df = _pairs_frame(rows, missing, "arena battles", covariates=cov)
    return df
