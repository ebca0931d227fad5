"""Ratings read for agreement (judgebayes/data/agreement/ratings.py): long and wide forms
alike, text and boolean ratings, polars frames, duplicates and bad input named by field.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.helpers import agreement_table, ratings_wide


def test_long_and_wide_forms_agree_and_clusters_of_one_change_nothing():
    rng = np.random.default_rng(6)
    x = rng.integers(1, 4, (30, 3)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    df = ratings_wide(x).assign(
        item=[f"i{i}" for i in range(30)], prompt=[f"p{i}" for i in range(30)]
    )
    long = df.melt(id_vars=["item", "prompt"], var_name="who", value_name="label").dropna()
    a = jb.agreement(df, raters=["r0", "r1", "r2"], level="ordinal", bootstrap=0)
    b = jb.agreement(long, item="item", rater="who", value="label", level="ordinal", bootstrap=0)
    c = jb.agreement(df, raters=["r0", "r1", "r2"], level="ordinal", cluster="prompt", bootstrap=0)
    pd.testing.assert_series_equal(a["estimate"], b["estimate"])
    np.testing.assert_allclose(a["se"], c["se"], rtol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"raters": ["r0"]}, "raters"),
        ({"raters": ["r0", "nope"]}, "raters"),
        ({"raters": ["r0", "r1"], "level": "fuzzy"}, "level"),
        ({"raters": ["r0", "r1", "r2"], "coefficients": ["cohen"]}, "coefficients"),
        ({"raters": ["r0", "r1"], "coefficients": ["kappa"]}, "coefficients"),
        ({"raters": ["r0", "r1"], "categories": [1, 2]}, "r0"),
        ({"raters": ["r0", "r1"], "bootstrap": -1}, "bootstrap"),
        ({"rater": "r0"}, "item"),
    ],
)
def test_bad_input_names_the_field(kwargs, field):
    df = ratings_wide(np.array([[1, 2, 3], [3, 2, 1], [2, 2, 2.0]]))
    with pytest.raises(InputError) as e:
        jb.agreement(df, **kwargs)
    assert e.value.field == field


def test_text_ratings_and_duplicates():
    long = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "c", "c"],
            "who": ["x", "y", "x", "y", "x", "y"],
            "label": ["good", "good", "bad", "ok", "ok", "ok"],
        }
    )
    t = agreement_table(jb.agreement(long, item="item", rater="who", value="label", bootstrap=0))
    assert t.loc["percent", "estimate"] == pytest.approx(2 / 3)
    with pytest.raises(InputError, match="categories= in their order"):
        jb.agreement(long, item="item", rater="who", value="label", level="ordinal")
    t = agreement_table(
        jb.agreement(
            long,
            item="item",
            rater="who",
            value="label",
            level="ordinal",
            categories=["bad", "ok", "good"],
            bootstrap=0,
        )
    )
    assert t.loc["percent", "estimate"] > 2 / 3  # partial credit for bad / ok
    with pytest.raises(InputError, match="needs numeric"):
        jb.agreement(long, item="item", rater="who", value="label", level="interval")
    twice = pd.concat([long, long.iloc[[0]]])
    with pytest.raises(InputError, match="rated item 'a' twice"):
        jb.agreement(twice, item="item", rater="who", value="label")


def test_polars_and_boolean_ratings():
    pl = pytest.importorskip("polars")
    frame = pd.DataFrame(
        {"a": [True, True, False, True, False, True], "b": [True, True, False, False, False, True]}
    )
    t = agreement_table(jb.agreement(pl.from_pandas(frame), raters=["a", "b"], bootstrap=0))
    assert t.loc["cohen", "estimate"] == pytest.approx(2 / 3)
