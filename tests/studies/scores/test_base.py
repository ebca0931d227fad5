"""The scores family's door (judgebayes/studies/scores/base.py): the ordinal NUTS model against
the closed form, its warm refit, its spec under labelled_by='score', the methods with one
calibration refused over time, and the contract's cases.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import MethodRefused
from tests.contract import ContractTests
from tests.helpers import score_study
from tests.simulators import scores_labelled_by_length, scores_stream, simulate_scores


@pytest.fixture(scope="module")
def nuts_pair():
    """One simulated set (B scored 1.5 points kinder) fitted by NUTS and the closed form."""
    rng = np.random.default_rng(15)
    frame, truth = simulate_scores(rng, kind="likert", frac=0.3, shift=(0, 1.5), paired=True)
    study = jb.ScoreStudy.from_items(
        frame, score="score", human="human", system="system", item="prompt"
    )
    return study, study.fit("nuts", random_seed=1), study.fit(), truth


def test_nuts_agrees_with_the_closed_form_and_ranks(nuts_pair):
    _study, fit, closed, _truth = nuts_pair
    assert fit.quantity == "mu_items" and fit.diagnostics.divergences == 0
    # two estimates of the same rows' mean: they differ by less than 3 sd of the
    # closed form's (the larger) interval
    se = (closed.interval()["upper"] - closed.interval()["lower"]) / (2 * 1.96)
    assert np.all(np.abs(fit.estimate() - closed.estimate()) < 3 * se.to_numpy())
    assert fit.prob_best().sum() == pytest.approx(1.0)
    ranks = fit.ranks()
    assert set(ranks.columns) == {"rank", "lower", "upper"} and ranks["rank"].between(1, 2).all()
    c = fit.contrasts()
    assert c.iloc[0]["lower"] < c.iloc[0]["difference"] < c.iloc[0]["upper"]
    process = fit.interval(var="mu")
    wide = closed.interval()
    assert (process["upper"] - process["lower"] > 0).all() and (wide["lower"] >= 1).all()


def test_nuts_refits_warm_on_a_label_set_of_similar_size(nuts_pair):
    study, _fit, _, _ = nuts_pair
    frame = pd.DataFrame(
        {
            "system": np.repeat(study.systems, 300),
            "score": study.data.score[:, 0],
            "human": np.where(study.data.labelled, study.data.human, np.nan),
        }
    )
    frame.loc[frame.index[frame["human"].notna()][:3], "human"] = np.nan  # 3 labels fewer
    again = jb.ScoreStudy.from_items(frame, score="score", human="human", system="system")
    refit = again.fit("nuts", random_seed=2)
    assert refit.info["compile_seconds"] == 0.0  # padded lines: the compiled model is reused


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("scores",)


def test_nuts_takes_labels_that_followed_the_score():
    # labelling by the score itself is what the ordinal model conditions on: not refused
    frame, _ = scores_labelled_by_length(np.random.default_rng(8))
    study = jb.ScoreStudy.from_items(
        frame, score="score", human="human", system="system", labelled_by="score"
    )
    spec = study.model_spec()
    assert spec.structure["systems"] == ("A", "B")


@pytest.mark.parametrize("method", ["ppi_plus_plus", "labels_only", "naive", "nuts"])
def test_methods_with_one_calibration_are_refused_over_time(method):
    study = score_study(scores_stream(np.random.default_rng(2)), time="week")
    with pytest.raises(MethodRefused) as err:
        study.fit(method=method)
    assert err.value.field == "time"
    with pytest.raises(MethodRefused, match="time="):
        score_study(scores_stream(np.random.default_rng(2))).fit().periods()
