"""The scores methods (judgebayes/studies/scores/methods.py): several judges and a probability
judge calibrated, and the refusals of labelled_by= by name.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import MethodRefused
from tests.simulators import scores_labelled_by_length, simulate_scores


def test_calibrating_several_judges_and_a_probability_judge():
    rng = np.random.default_rng(9)
    frame, truth = simulate_scores(rng, kind="likert", frac=0.3)
    frame["other"] = np.clip(frame["score"] + rng.normal(0, 2, len(frame)), 1, 10)
    two = jb.ScoreStudy.from_items(frame, score=["score", "other"], human="human", system="system")
    fit = two.fit()
    assert fit.info["estimator"].startswith(
        f"cross-fitted monotone calibration ({fit.info['calibration']}) of the human label on "
        "the scores"
    )
    with pytest.raises(MethodRefused, match="one judge's raw score"):
        two.fit("ppi_plus_plus")
    p = np.eye(4)[np.clip((frame["score"].to_numpy() - 1) // 3, 0, 3).astype(int)] * 0.7 + 0.075
    probs = pd.DataFrame(p, columns=["p1", "p2", "p3", "p4"])
    one = jb.ScoreStudy.from_items(
        pd.concat([frame, probs], axis=1),
        score={"judge": ["p1", "p2", "p3", "p4"]},
        human="human",
        system="system",
    )
    np.testing.assert_allclose(one.data.score[:, 0], p @ np.arange(1, 5))
    assert np.all(np.abs(one.fit().estimate() - truth) < 0.5)


def test_refusals_and_errors_name_the_keyword():
    frame, _ = scores_labelled_by_length(np.random.default_rng(7))
    study = jb.ScoreStudy.from_items(
        frame, score="score", human="human", system="system", labelled_by="length"
    )
    for method in ("labels_only", "ppi_plus_plus"):
        with pytest.raises(jb.errors.MethodRefused, match="labelled_by='length'") as err:
            study.fit(method)
        assert err.value.field == "labelled_by"
    with pytest.raises(jb.errors.MethodRefused, match="conditions on the scores") as err:
        study.fit("nuts")
    with pytest.raises(jb.InputError, match="not both") as err:
        jb.ScoreStudy.from_items(
            frame.assign(p=0.5),
            score="score",
            system="system",
            label_prob="p",
            labelled_by="length",
        )
    with pytest.raises(jb.InputError, match="without item= and cluster="):
        jb.ScoreStudy.from_items(
            frame, score="score", system="system", cluster="source", labelled_by="length"
        )
    # a stratum with rows and no label cannot be weighted: named, with the remedy
    blank = frame.copy()
    blank.loc[(blank["system"] == "B") & (blank["source"] == "short"), "human"] = np.nan
    with pytest.raises(jb.InputError, match="the stratum 'short' of system 'B'") as err:
        jb.ScoreStudy.from_items(blank, score="score", system="system", labelled_by="source")
    assert err.value.field == "labelled_by"
    with pytest.raises(jb.InputError) as err:
        jb.ScoreStudy.from_items(frame, score="score", system="system", labelled_by="nope")
    assert err.value.field == "labelled_by"
