"""Large verdict logs reduced by DuckDB: the study of the counts is the study of the rows."""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError

pytest.importorskip("duckdb")
from judgebayes.data.large import reduce_items, reduce_pairs, reduce_panel


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    rng = np.random.default_rng(11)
    n = 30_000
    model = rng.choice(["model-a", "model-b", "model-c"], n)
    truth = rng.random(n) < np.select([model == "model-a", model == "model-b"], [0.7, 0.55], 0.4)
    judged = np.where(truth, rng.random(n) < 0.9, rng.random(n) < 0.3)
    labelled = rng.random(n) < 0.04
    df = pd.DataFrame(
        {
            "model": model,
            "verdict": np.where(judged, "PASS", "fail"),
            "gold": np.where(labelled, np.where(truth, "yes", "no"), None),
            "topic": rng.choice(["code", "math", "chat"], n),
            "prompt": rng.integers(0, 4000, n),
        }
    )
    df.loc[rng.choice(n, 40, replace=False), "verdict"] = None  # missing verdicts
    # units in sorted order, as the reduced log has them: the exact engine's Monte-Carlo
    # stream then runs over the strata in the same order and the numbers are identical
    df = df.sort_values(["model", "topic"], kind="stable", ignore_index=True)
    d = tmp_path_factory.mktemp("large")
    df.to_parquet(d / "log.parquet", row_group_size=7_000)
    df.to_csv(d / "log.csv", index=False)
    return df, d


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_reduced_log_gives_the_study_of_the_raw_rows(log, suffix):
    df, d = log
    cols = dict(judge="verdict", human="gold", system="model", stratum="topic")
    counts = reduce_items(d / f"log.{suffix}", **cols)
    # at most 3 systems x 3 topics x 3 verdicts (pass, fail, none) x 3 labels rows
    assert counts.attrs["n_rows"] == len(df) and len(counts) <= 81
    raw = jb.AccuracyStudy.from_items(df, **cols)
    red = jb.AccuracyStudy.from_items(counts, **cols, count="n")
    assert raw.systems == red.systems and raw.data.strata == red.data.strata
    for k, v in raw.data.cells().items():  # the sufficient statistics, exactly
        np.testing.assert_array_equal(v, red.data.cells()[k], err_msg=k)
    np.testing.assert_array_equal(raw.data.n_missing, red.data.n_missing)
    assert red.data.n_missing.sum() == 40
    for method in ("closed_form", "exact"):  # same counts, same seed: the same numbers
        a = raw.fit(method, random_seed=3).interval()
        b = red.fit(method, random_seed=3).interval()
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=0, atol=1e-12)


def test_reduced_log_keeps_clusters(log):
    df, d = log
    cols = dict(judge="verdict", human="gold", system="model", cluster="prompt")
    counts = reduce_items(d / "log.parquet", **cols)
    a = jb.AccuracyStudy.from_items(df, **cols).fit("closed_form").interval()
    b = jb.AccuracyStudy.from_items(counts, **cols, count="n").fit("closed_form").interval()
    # cluster-robust variance: sums over clusters, the same whether rows are repeated or not
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-12, atol=1e-14)


def test_reduce_panel_matches_a_groupby(tmp_path):
    rng = np.random.default_rng(5)
    n = 5_000
    df = pd.DataFrame(
        {
            "gen": rng.choice(["g1", "g2", "g3"], n),
            "val": rng.choice(["v1", "v2"], n),
            "ok": rng.choice([1.0, 0.0, np.nan], n, p=[0.6, 0.38, 0.02]),
        }
    )
    df.to_parquet(tmp_path / "panel.parquet")
    cells = reduce_panel(tmp_path / "panel.parquet", generator="gen", validator="val", verdict="ok")
    grp = df.groupby(["gen", "val"])["ok"]
    np.testing.assert_array_equal(cells["n_judged"], grp.count().to_numpy())
    np.testing.assert_array_equal(cells["n_valid"], grp.sum().to_numpy().astype(int))
    np.testing.assert_array_equal(cells["n_missing"], grp.apply(lambda s: s.isna().sum()))
    panel = jb.ValidatorPanel.from_frames(cells.drop(columns="n_missing"))
    assert panel.data.n_judged.sum() == df["ok"].notna().sum()


def test_large_log_bad_input(log, tmp_path):
    _, d = log
    with pytest.raises(InputError, match="no column 'verdikt'"):
        reduce_items(d / "log.parquet", judge="verdikt", human="gold")
    with pytest.raises(InputError, match="not found"):
        reduce_items(tmp_path / "nope.parquet")
    (tmp_path / "log.xlsx").touch()
    with pytest.raises(InputError, match="Parquet"):
        reduce_items(tmp_path / "log.xlsx")
    bad = pd.DataFrame({"judge": [1, 0], "human": [1, None], "n": [3, -1]})
    with pytest.raises(InputError, match="count column"):
        jb.AccuracyStudy.from_items(bad, count="n")


@pytest.fixture(scope="module")
def pair_log(tmp_path_factory):
    # 40 items, 20,000 comparisons by two judges, both presentation orders, ties, numeric
    # item ids (a blank winner makes a CSV reader see floats: 7.0 must be item 7)
    rng = np.random.default_rng(5)
    n, N = 20_000, 40
    theta = rng.normal(0, 1, N)
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + 0.3)))  # position bias of the first shown
    u = rng.random(n)
    tie = u > 0.9
    won_first = u < 0.9 * p
    winner = np.where(tie, np.nan, np.where(won_first, a, b).astype(float))
    df = pd.DataFrame(
        {"first": a, "second": b, "winner": winner, "judge": rng.choice(["j1", "j2"], n)}
    )
    d = tmp_path_factory.mktemp("pairs")
    df.to_parquet(d / "pairs.parquet", row_group_size=5_000)
    df.to_csv(d / "pairs.csv", index=False)
    return df, d


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_reduced_pair_log_gives_naive_bt_of_the_raw_rows(pair_log, suffix):
    from judgebayes.data.ranking import pairwise_from_frames
    from judgebayes.inference.ranking import newton as bt

    df, d = pair_log
    counts = reduce_pairs(d / f"pairs.{suffix}", judge="judge")
    assert counts.attrs["n_rows"] == len(df) == counts["n"].sum()
    # counted independently with pandas: per ordered pair and judge
    raw_wins = (df["winner"] == df["first"]).groupby([df["first"], df["second"], df["judge"]])
    assert len(counts) == raw_wins.ngroups and counts["n_tie"].sum() == df["winner"].isna().sum()
    assert counts["n_first"].sum() == int(raw_wins.sum().sum())
    for ties in ("half", "drop"):
        raw = pairwise_from_frames(
            df.assign(first=df["first"].astype(str), second=df["second"].astype(str),
                      winner=df["winner"].map(lambda v: "" if np.isnan(v) else str(int(v)))),
            ties=ties,
        )  # fmt: skip
        full = bt.fit_map(bt.bt_design(raw, bias=False))
        design, ids = bt.bt_design_from_counts(counts, ties=ties, items=raw.items)
        assert ids == raw.items and design.Z.shape[0] < len(df) / 10
        red = bt.fit_map(design)
        # the same log posterior up to a constant: the same mode and Hessian
        np.testing.assert_allclose(red.beta, full.beta, rtol=0, atol=1e-10)
        np.testing.assert_allclose(red.hessian, full.hessian, rtol=1e-12, atol=1e-9)


def test_reduce_pairs_refuses_a_winner_that_was_not_shown(tmp_path):
    bad = pd.DataFrame({"first": ["a", "a", "b"], "second": ["b", "b", "c"],
                        "winner": ["a", "z", "tie"]})  # fmt: skip
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InputError, match="winner 'z' is neither shown item") as e:
        reduce_pairs(tmp_path / "bad.csv")
    assert (e.value.field, e.value.value) == ("winner", "z")
    # numeric ids with ties written as words (DuckDB reads the winner column as text)
    num = pd.DataFrame({"first": [1, 1, 2, 2], "second": [2, 2, 1, 3],
                        "winner": ["1", "tie", "2", "3"]})  # fmt: skip
    num.to_csv(tmp_path / "num.csv", index=False)
    got = reduce_pairs(tmp_path / "num.csv")
    assert got[["first", "second", "n_first", "n_second", "n_tie", "n"]].values.tolist() == [
        ["1", "2", 1, 0, 1, 2],
        ["2", "1", 1, 0, 0, 1],
        ["2", "3", 0, 1, 0, 1],
    ]
    with pytest.raises(InputError, match="no column 'loser'") as e:
        reduce_pairs(tmp_path / "bad.csv", winner="loser")
    assert e.value.field == "winner"
