"""PandaLM (Apache-2.0, WeOpenML/PandaLM; read from the shared data folder's
``pandalm/``): 999 pairs of responses from five 7B generators, three human annotators per
pair and two judges (gpt-3.5-turbo, PandaLM-7B), one presentation order.
"""

from __future__ import annotations

import pandas as pd

from judgebayes.datasets.base import check_choice, read_csv
from judgebayes.errors import InputError

__all__ = [
    "PANDALM_GENERATORS",
    "PANDALM_SOURCES",
    "load_pandalm_pairs",
    "pandalm_comparisons",
    "pandalm_judged",
]

PANDALM_GENERATORS = ("bloom-7b", "cerebras-gpt-6.7B", "llama-7b", "opt-7b", "pythia-6.9b")
#: verdict sources of PandaLM and their columns in :func:`load_pandalm_pairs`
PANDALM_SOURCES = {
    "human": "human_majority",
    "gpt-3.5-turbo": "gpt35_verdict",
    "pandalm-7b": "pandalm7b_verdict",
}


def load_pandalm_pairs(*, data_dir=None) -> pd.DataFrame:
    """PandaLM's human-annotated test set, one row per pair of responses
    (``pandalm/pandalm_pairs.csv`` of the shared data folder, :func:`data_path`).

    Notes
    -----
    The columns:

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
    d = read_csv("pandalm", "pandalm_pairs.csv", data_dir)
    for col in PANDALM_SOURCES.values():
        d[col] = d[col].astype("Int64")
    return d


def pandalm_comparisons(
    source: str = "human", *, drop_missing: bool = True, data_dir=None
) -> pd.DataFrame:
    """PandaLM pairs as comparisons in the pairwise contract of :class:`PairwiseRanking`.

    Parameters
    ----------
    source : {"human", "gpt-3.5-turbo", "pandalm-7b"}
        Whose verdicts: the annotators' majority or one judge.
    drop_missing : bool
        Drop pairs without a usable verdict; their number is kept in
        ``frame.attrs["n_missing"]`` either way.
    data_dir : str or Path, optional
        The shared data folder (default: :func:`~judgebayes.datasets.base.data_dir`).

    Returns
    -------
    DataFrame
        ``idx, first, second`` (generators of response 1 and 2, in presentation order),
        ``winner`` (the preferred generator; empty string for a tie; ``<NA>`` for a
        missing verdict when ``drop_missing=False``), ``judge`` (= source),
        ``words_first, words_second, chars_first, chars_second``.
    """
    check_choice(source, PANDALM_SOURCES, "source", "PandaLM verdict source")
    d = load_pandalm_pairs(data_dir=data_dir)
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


def pandalm_judged(
    judges: tuple[str, ...] = ("gpt-3.5-turbo", "pandalm-7b"), *, data_dir=None
) -> pd.DataFrame:
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
    human = pandalm_comparisons("human", data_dir=data_dir)
    hmap = dict(zip(human["idx"], human["winner"].replace("", "tie"), strict=True))
    parts, missing = [], {}
    for judge in judges:
        if judge == "human":
            raise InputError("judges are the LLM judges, not 'human'", field="judges", value=judge)
        part = pandalm_comparisons(judge, data_dir=data_dir)
        missing[judge] = part.attrs["n_missing"]
        part.insert(4, "human", part["idx"].map(hmap))
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    out.attrs["n_missing"] = missing
    return out
