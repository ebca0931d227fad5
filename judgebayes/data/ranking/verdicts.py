"""Judges' verdicts on pairs read as comparisons: LLMBar's both-order verdicts by the
gold and the other response's roles, one row per instance with each order's pick, and a
comparisons frame with its answers' lengths.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.data.ranking.pairs import log_length
from judgebayes.errors import InputError

__all__ = [
    "ROLES",
    "bias_comparisons",
    "instance_ids",
    "instance_table",
    "item_roles",
    "with_length",
]

ROLES = ("gold", "other")  # the two responses' roles


def item_roles(subset, by_subset: bool):
    """The gold and the other response's item of each comparison: one pair of items, or one
    per subset (``"gold:<subset>"``, ``"other:<subset>"``).
    """
    if not by_subset:
        return np.full(len(subset), "gold", object), np.full(len(subset), "other", object)
    sub = np.asarray(subset, dtype=str)
    return np.char.add("gold:", sub).astype(object), np.char.add("other:", sub).astype(object)


def bias_comparisons(verdicts: pd.DataFrame, *, by_subset: bool = True) -> pd.DataFrame:
    r"""Both-order verdicts (:func:`judgebayes.datasets.llmbar_both_orders`) as comparisons.

    Parameters
    ----------
    verdicts : DataFrame
        ``subset, idx, order, shown_first, label, pick, len_words_1, len_words_2``.
    by_subset : bool
        One discrimination per subset (items ``"gold:<subset>"``/``"other:<subset>"``)
        or one overall (items ``"gold"``/``"other"``).

    Returns
    -------
    DataFrame
        The pairwise contract with items ``gold``/``other`` roles: ``first, second,
        winner, length_first, length_second`` (:math:`\log_2(1 + \text{words})`) plus
        ``subset, idx, order``.  Verdicts the judge did not give are dropped and counted
        in ``attrs["n_missing"]``.
    """
    need = ["subset", "idx", "order", "shown_first", "label", "pick", "len_words_1", "len_words_2"]
    miss = [c for c in need if c not in verdicts.columns]
    if miss:
        raise InputError(f"column {miss[0]!r} not found", field=miss[0], value=None)
    v = verdicts
    ok = v["pick"].isin([1, 2]).to_numpy()
    bad = v.loc[v["pick"].notna() & ~v["pick"].isin([1, 2]), "pick"]
    if len(bad):
        raise InputError(
            f"column 'pick' must be 1, 2 or missing; found {bad.iloc[0]!r}",
            field="pick",
            value=bad.iloc[0],
        )
    v = v[ok]
    first_is_gold = (v["shown_first"] == v["label"]).to_numpy()
    len1, len2 = log_length(v["len_words_1"]), log_length(v["len_words_2"])
    first_is_1 = (v["shown_first"] == 1).to_numpy()
    gold, other = item_roles(v["subset"], by_subset)
    out = pd.DataFrame(
        {
            "subset": v["subset"].to_numpy(),
            "idx": v["idx"].to_numpy(),
            "order": v["order"].to_numpy(),
            "first": np.where(first_is_gold, gold, other),
            "second": np.where(first_is_gold, other, gold),
            "winner": np.where(v["pick"] == v["label"], gold, other),
            "length_first": np.where(first_is_1, len1, len2),
            "length_second": np.where(first_is_1, len2, len1),
        }
    )
    out.attrs["n_missing"] = int((~ok).sum())
    return out


def instance_ids(comparisons: pd.DataFrame) -> np.ndarray:
    """One id per row of :func:`bias_comparisons` output: ``"<subset>#<idx>"`` (the two
    presentation orders of an instance share it).
    """
    return (comparisons["subset"].astype(str) + "#" + comparisons["idx"].astype(str)).to_numpy()


def instance_table(verdicts: pd.DataFrame) -> pd.DataFrame:
    """One row per instance: gold, lengths, and each order's pick (NaN if missing)."""
    v = verdicts
    key = ["subset", "idx"]
    base = v.drop_duplicates(key)[[*key, "label", "len_words_1", "len_words_2"]]
    o = v[v["order"] == "original"][[*key, "pick"]].rename(columns={"pick": "pick_orig"})
    s = v[v["order"] == "swapped"][[*key, "pick"]].rename(columns={"pick": "pick_swap"})
    t = base.merge(o, on=key, how="left").merge(s, on=key, how="left")
    t["score"] = pd.concat(
        [(t["pick_orig"] == 1).where(t["pick_orig"].notna()),
         (t["pick_swap"] == 1).where(t["pick_swap"].notna())],
        axis=1,
    ).astype(float).mean(axis=1)  # fmt: skip
    return t.reset_index(drop=True)


def with_length(comparisons: pd.DataFrame, words: str) -> pd.DataFrame:
    """The comparisons with ``length_first`` / ``length_second`` (:func:`log_length`) from
    the word counts in ``<words>_first`` / ``<words>_second``.
    """
    for side in ("first", "second"):
        col = f"{words}_{side}"
        if col not in comparisons.columns:
            raise InputError(f"column {col!r} not found", field=col, value=None)
    return comparisons.assign(
        length_first=log_length(comparisons[f"{words}_first"]),
        length_second=log_length(comparisons[f"{words}_second"]),
    )
