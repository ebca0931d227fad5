"""Polars (eager and lazy) and pyarrow frames work at every entry point that takes a frame,
and give the numbers the pandas frame gives; a non-frame is one typed error."""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.datasets import llmbar_accuracy_items
from judgebayes.errors import InputError

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


def _variants(df):
    return {"polars": pl.from_pandas(df), "lazy": pl.from_pandas(df).lazy(),
            "pyarrow": pa.Table.from_pandas(df, preserve_index=False)}  # fmt: skip


@pytest.fixture(scope="module")
def items():
    it = llmbar_accuracy_items("ChatGPT")
    it = it[it["subset"].isin(["Processed_MT-Bench", "LLMBar_Natural"])].reset_index(drop=True)
    it["human"] = np.where(np.arange(len(it)) % 5 == 0, it["human"], np.nan)
    return it


def test_items_design(items):
    want = jb.AccuracyStudy.from_items(items, system="subset").fit("closed_form").interval()
    for kind, frame in _variants(items).items():
        got = jb.AccuracyStudy.from_items(frame, system="subset").fit("closed_form").interval()
        pd.testing.assert_frame_equal(got, want, obj=kind)


def test_two_frames_and_split(items):
    labelled = items[items["human"].notna()]
    test = items[items["human"].isna()].drop(columns="human")
    want = jb.AccuracyStudy.from_frames(test, labelled).fit("closed_form").interval()
    for kind in ("polars", "lazy", "pyarrow"):
        t, c = _variants(test)[kind], _variants(labelled)[kind]
        got = jb.AccuracyStudy.from_frames(t, c).fit("closed_form").interval()
        pd.testing.assert_frame_equal(got, want, obj=kind)
    full = llmbar_accuracy_items("GPT-4")
    a = jb.io.calibration_split(full, 0.2, random_seed=1)
    b = jb.io.calibration_split(pl.from_pandas(full), 0.2, random_seed=1)
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x, y)


def test_panel_and_ranking_frames():
    cells = pd.DataFrame({"generator": ["g1", "g1", "g2", "g2"], "validator": ["v1", "v2"] * 2,
                          "n_judged": [50, 50, 40, 40], "n_valid": [30, 41, 12, 20]})  # fmt: skip
    want = jb.ValidatorPanel.from_frames(cells).data
    got = jb.ValidatorPanel.from_frames(pl.from_pandas(cells)).data
    np.testing.assert_array_equal(got.n_valid, want.n_valid)
    comps = pd.DataFrame({"first": ["a", "b", "c", "a"], "second": ["b", "c", "a", "c"],
                          "winner": ["a", "b", None, "c"]})  # fmt: skip
    want = jb.PairwiseRanking.from_frames(comps).data
    got = jb.PairwiseRanking.from_frames(pl.from_pandas(comps).lazy()).data
    np.testing.assert_array_equal(got.y, want.y)
    assert got.items == want.items and got.n_ties == want.n_ties == 1


@pytest.mark.parametrize("bad", [None, [1, 2], {"judge": [1]}, "items.csv"])
def test_non_frames_are_one_typed_error(bad):
    with pytest.raises(InputError, match="must be a DataFrame"):
        jb.AccuracyStudy.from_items(bad)
    with pytest.raises(InputError, match="must be a DataFrame"):
        jb.PairwiseRanking.from_frames(bad)
    with pytest.raises(InputError, match="must be a DataFrame"):
        jb.ValidatorPanel.from_frames(bad)


def test_column_values_are_the_columns_own_arrays():
    from judgebayes.data.frames import column_values

    df = pd.DataFrame(
        {
            "v": [1, 0, 1],
            "n": pd.array([1, None, 0], dtype="Int64"),
            "s": ["a", None, "b"],
        }
    )
    v = column_values(df, "v")
    assert isinstance(v, np.ndarray) and v.tolist() == [1, 0, 1]
    n = column_values(df, "n")  # a nullable column keeps its missing value
    assert n.dtype == "Int64" and n.isna().tolist() == [False, True, False]
    assert list(column_values(df, "s")) == list(df["s"].array)
    # the items frame reads its judge and human columns this way: the nullable human
    # column's blank is an unlabelled item
    study = jb.AccuracyStudy.from_items(df.rename(columns={"v": "judge", "n": "human"}))
    assert study.data.labelled.tolist() == [True, False, True]


def test_weekly_periods_of_a_log_across_a_daylight_saving_change():
    # London's clocks go forward on 2026-03-29: the log's stamps carry +00:00, then +01:00.
    # Each stamp keeps its local wall-clock time (the calendar the user's weeks are in);
    # the reference buckets the same local times in pandas directly
    from judgebayes.data.frames import period_codes

    local = pd.date_range("2026-03-20", "2026-04-05", freq="7h", tz="Europe/London")
    col = pd.Series(local.astype(str))
    assert col.str.endswith("+00:00").any() and col.str.endswith("+01:00").any()
    codes, labels = period_codes(col, "time", "W")
    expected = local.tz_localize(None).to_period("W")
    assert labels == [str(p) for p in sorted(set(expected))]
    assert [labels[c] for c in codes] == [str(p) for p in expected]


def test_a_frequency_with_a_multiple_buckets_that_many_periods():
    # "2W" is two weeks a period (it was read as weekly), counted from the log's first week
    from judgebayes.data.frames import period_codes

    t = pd.Series(pd.date_range("2026-01-01", periods=80, freq="D"))
    weekly = period_codes(t, "t", "W")[0]
    codes, labels = period_codes(t, "t", "2W")
    np.testing.assert_array_equal(codes, weekly // 2)
    assert labels[0] == "2025-12-29/2026-01-11" and len(labels) == 6
    codes, labels = period_codes(t, "t", "2M")
    assert labels == ["2026-01-01/2026-02-28", "2026-03-01/2026-04-30"]
    assert np.bincount(codes).tolist() == [59, 21]
