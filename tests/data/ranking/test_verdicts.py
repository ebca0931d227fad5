"""Judges' verdicts on pairs as comparisons (judgebayes/data/ranking/verdicts.py): the roles
of LLMBar's both-order verdicts, each instance's picks, lengths from word counts, and bad
input named.

References: frames written by hand here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.ranking.verdicts import (
    bias_comparisons,
    instance_ids,
    instance_table,
    with_length,
)
from judgebayes.errors import InputError

VERDICTS = pd.DataFrame(
    {
        "subset": ["s", "s", "s", "s"],
        "idx": [0, 0, 1, 1],
        "order": ["original", "swapped", "original", "swapped"],
        "shown_first": [1, 2, 1, 2],
        "label": [1, 1, 2, 2],
        "pick": [1, 2, 2, np.nan],
        "len_words_1": [10, 10, 3, 3],
        "len_words_2": [30, 30, 7, 7],
    }
)


def test_both_orders_read_as_gold_and_other():
    c = bias_comparisons(VERDICTS, by_subset=False)
    assert c.attrs["n_missing"] == 1  # the blank pick, counted
    assert c["first"].tolist() == ["gold", "other", "other"]
    assert c["winner"].tolist() == ["gold", "other", "gold"]
    np.testing.assert_allclose(c["length_first"], np.log2(1 + np.array([10, 30, 3])))
    assert instance_ids(c).tolist() == ["s#0", "s#0", "s#1"]
    assert bias_comparisons(VERDICTS)["first"].iloc[0] == "gold:s"


def test_each_instance_has_both_picks():
    t = instance_table(VERDICTS)
    assert t["pick_orig"].tolist() == [1, 2] and t["pick_swap"].iloc[0] == 2
    assert np.isnan(t["pick_swap"].iloc[1])
    # the share of orders in which the first-shown answer won
    np.testing.assert_allclose(t["score"], [0.5, 0.0])


def test_bad_input_names_the_column():
    with pytest.raises(InputError) as e:
        bias_comparisons(VERDICTS.drop(columns="pick"))
    assert e.value.field == "pick"
    with pytest.raises(InputError, match="must be 1, 2 or missing") as e:
        bias_comparisons(VERDICTS.assign(pick=[1, 3, 2, 1]))
    assert e.value.field == "pick"
    pairs = pd.DataFrame({"first": ["a"], "second": ["b"], "words_first": [3]})
    with pytest.raises(InputError) as e:
        with_length(pairs, "words")
    assert e.value.field == "words_second"
