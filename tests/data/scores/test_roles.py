"""The scores frame's roles (judgebayes/data/scores/roles.py): ScoreRoles is what the frame
reader takes, the keywords the same thing, and an unknown role is named; a probability judge
read as its expected level (LLM-Rubric's real judgments), probabilities that are no
distribution refused, a threshold making Likert labels a pass rate, and bad labelled_by= and
time= named.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.scores import ScoreRoles, scores_from_frame
from judgebayes.datasets.base import data_dir
from judgebayes.errors import InputError
from tests.helpers import score_study
from tests.simulators import scores_labelled_by_length, scores_stream, simulate_scores

FRAME = pd.DataFrame(
    {
        "rating": [1.0, 4.0, 5.0, 2.0, 3.0, 5.0],
        "label": [0, 1, None, 0, None, 1],
        "m": list("aaabbb"),
    }
)


def test_a_roles_object_reads_the_frame_as_the_keywords_do():
    by_object = scores_from_frame(FRAME, ScoreRoles(score="rating", human="label", system="m"))
    by_keywords = scores_from_frame(FRAME, score="rating", human="label", system="m")
    assert by_object.systems == by_keywords.systems == ("a", "b")
    assert by_object.score.ravel().tolist() == [1.0, 4.0, 5.0, 2.0, 3.0, 5.0]
    assert by_object.columns == by_keywords.columns


def test_an_unknown_role_is_named_with_the_roles():
    with pytest.raises(InputError, match="scores_from_frame takes no keyword 'scroe'") as e:
        scores_from_frame(FRAME, scroe="rating", human="label")
    assert e.value.field == "scroe" and "score" in str(e.value)


def test_llm_rubric_probabilities_read_as_expected_levels():
    raw = pd.read_csv(data_dir() / "llm_rubric" / "llm_rubric_judgments.csv")
    q0 = raw[(raw["split"] == "real") & (raw["question"] == "Q0")].copy()
    q0["human"] = q0["human_score"].where(q0["human_score"] > 0)
    study = jb.ScoreStudy.from_items(
        q0,
        score={"gpt-3.5": ["judge_p1", "judge_p2", "judge_p3", "judge_p4"]},
        human="human",
        system="system",
    )
    fit = study.fit()
    # every dialogue is labelled: the rows' mean is the labelled mean, exactly
    exact = q0.groupby("system", sort=False)["human"].mean().to_numpy()
    np.testing.assert_allclose(fit.estimate(), exact[: len(fit.estimate())], atol=1e-12)


def test_probabilities_that_are_not_a_distribution_are_refused():
    frame = pd.DataFrame({"p1": [0.5, 0.9], "p2": [0.5, 0.5], "human": [1, None]})
    with pytest.raises(InputError, match="not a distribution") as e:
        scores_from_frame(frame, score={"j": ["p1", "p2"]}, human="human")
    assert e.value.field == "score"


def test_threshold_turns_likert_labels_into_a_pass_rate():
    rng = np.random.default_rng(12)
    frame, _ = simulate_scores(rng, kind="likert", frac=1.0)
    fit = jb.ScoreStudy.from_items(
        frame, score="score", human="human", system="system", threshold=4
    ).fit()
    exact = (frame["truth"] >= 4).groupby(frame["system"], sort=False).mean().to_numpy()
    np.testing.assert_allclose(fit.estimate(), exact, atol=1e-12)
    assert fit.info["human_scale"] == [0.0, 1.0]


@pytest.mark.parametrize(
    ("by", "frame_change", "words"),
    [
        ({"length": 0}, None, "whole number of at least 2"),
        ({"length": True}, None, "whole number of at least 2"),
        (5, None, "must name one column"),
        ("length", "inf", "not a finite number"),
    ],
)
def test_odd_labelled_by_values_are_one_typed_error(by, frame_change, words):
    frame, _ = scores_labelled_by_length(np.random.default_rng(10))
    if frame_change == "inf":
        frame.loc[0, "length"] = np.inf
    with pytest.raises(jb.InputError, match=words):
        jb.ScoreStudy.from_items(frame, score="score", system="system", labelled_by=by)


def test_time_errors_name_the_field():
    frame = scores_stream(np.random.default_rng(1))
    frame["item"] = np.arange(len(frame))
    cases = [
        ({"freq": "W"}, "freq"),
        ({"time": "week", "item": "item"}, "time"),
        ({"time": "nope"}, "time"),
    ]
    for kw, field in cases:
        with pytest.raises(InputError) as err:
            score_study(frame, **kw)
        assert err.value.field == field
    few = frame.copy()
    few.loc[(few["week"] == 3) & (few["system"] == "B"), "human"] = np.nan
    with pytest.raises(InputError, match="system 'B' has 0 labelled") as err:
        score_study(few, time="week")
    assert err.value.field == "week" and err.value.value == "3"
    blank = frame.astype({"week": float})
    blank.loc[5, "week"] = np.nan
    with pytest.raises(InputError, match="no period") as err:
        score_study(blank, time="week")
    assert err.value.field == "week"
