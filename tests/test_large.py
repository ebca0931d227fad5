"""Large verdict logs reduced by DuckDB: the study of the counts is the study of the rows."""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError

pytest.importorskip("duckdb")
from judgebayes.data.large import reduce_items, reduce_panel


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
