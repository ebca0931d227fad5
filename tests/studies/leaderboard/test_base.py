"""The leaderboard study's door: the model it picks, what the Bayesian models refuse, the
warnings a board's design calls for, and bad input; the contract of every model."""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import (
    ClusteringWarning,
    FewClustersWarning,
    InputError,
    MethodRefused,
)
from judgebayes.studies.leaderboard import ExchangeableBoard, TwoPLBoard
from tests.simulators import irt_board, small_board


def test_the_door_picks_the_one_parameter_model_and_others_come_by_class():
    frame = small_board()[0]
    assert type(jb.LeaderboardStudy.from_items(frame)).__name__ == "RaschBoard"
    assert type(TwoPLBoard.from_items(frame)) is TwoPLBoard
    with pytest.raises(MethodRefused, match="one-parameter"):
        TwoPLBoard.from_items(frame).fit("laplace")
    assert type(ExchangeableBoard.from_items(frame)) is ExchangeableBoard
    # from_frame is the same door; judge= names the score column
    study = jb.LeaderboardStudy.from_frame(frame, judge="score")
    assert study.data.columns["score"] == "score"
    with pytest.raises(InputError, match="same role"):
        jb.LeaderboardStudy.from_items(frame, judge="score", score="verdict")


def test_the_bayesian_models_refuse_fractions_and_adjust():
    frame = small_board()[0]
    wins = frame.assign(score=frame["score"] * 0.5 + 0.25)  # win probabilities
    study = jb.LeaderboardStudy.from_items(wins)
    assert not study.data.counts
    for method in ("nuts", "laplace"):
        with pytest.raises(MethodRefused, match="0/1 outcomes"):
            study.fit(method)
    assert study.fit("closed_form").estimate().max() <= 0.75
    lengths = frame.assign(length=np.random.default_rng(0).normal(size=len(frame)))
    with pytest.raises(MethodRefused, match="adjust="):
        jb.LeaderboardStudy.from_items(lengths, adjust="length").fit("nuts")


def test_few_clusters_warn_and_an_undeclared_grouping_is_noted():
    frame, _ = irt_board(np.random.default_rng(1), [1.0, 0.5, 0.0, -0.5], n_items=120,
                         cluster_size=20)  # fmt: skip
    with pytest.warns(FewClustersWarning, match="6 clusters"):
        study = jb.LeaderboardStudy.from_items(frame, cluster="cluster")
    fit = study.fit("closed_form")
    assert fit.info["n_clusters"] == 6 and fit.info["df"][0] == 5
    # without cluster=, the items' shared difficulties show in the F test of the column
    with pytest.warns(ClusteringWarning, match="'cluster'"):
        fit = jb.LeaderboardStudy.from_items(frame).fit("closed_form")
    assert any("(cluster='cluster')" in n for n in fit.notes)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda f: f.assign(score=f["score"] * 2), "score"),  # a 2 on a 0/1 board
        (lambda f: f[f["system"] == "m00"], "system"),
        (lambda f: f.drop(columns="item"), "item"),
    ],
)
def test_bad_input_is_one_typed_error(change, field):
    frame = small_board()[0]
    with pytest.raises(InputError) as e:
        jb.LeaderboardStudy.from_items(change(frame))
    assert e.value.field == field


def test_counts_of_samples_and_blank_rows():
    frame = small_board()[0]
    counts = frame.assign(trials=10, score=frame["score"] * 7)
    d = jb.LeaderboardStudy.from_items(counts, trials="trials").data
    assert d.n.sum() == 10 * len(frame) and d.k.sum() == 7 * frame["score"].sum()
    blank = frame.assign(score=frame["score"].where(frame.index % 7 != 0))
    study = jb.LeaderboardStudy.from_items(blank)
    assert study.data.n_missing == len(range(0, len(frame), 7))
    fit = study.fit("closed_form")
    assert any("without a score" in n for n in fit.notes)
    assert any("not answered by every system" in n for n in fit.notes)
    with pytest.raises(InputError, match="trials"):
        jb.LeaderboardStudy.from_items(counts.assign(h=1.0), trials="trials", human="h")
    with pytest.raises(InputError, match="no label"):
        jb.LeaderboardStudy.from_items(frame.assign(h=np.nan), human="h")
    with pytest.raises(InputError, match="from_items"):
        jb.LeaderboardStudy(pd.DataFrame())
