"""Calibrating scores to labels (judgebayes/inference/scores/calibration.py): isotonic against
scikit-learn, the logistic curve against statsmodels' fractional logit, the automatic choice
by held-out labels, and the logistic curve covering where the calibration is a step.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from judgebayes.inference import scores as sc


def test_isotonic_matches_scikit_learn():
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(3)
    x = np.round(rng.uniform(1, 10, 200))
    y = (x / 10 + rng.normal(0, 0.3, 200)).clip(0, 1)
    xs, ys = sc.isotonic(x, y)
    new = np.linspace(0, 11, 57)
    ref = IsotonicRegression(out_of_bounds="clip").fit(x, y).predict(new)
    np.testing.assert_allclose(np.interp(new, xs, ys), ref, atol=1e-12)


def test_logistic_calibration_matches_statsmodels_fractional_logit():
    """The two-parameter fit against statsmodels' binomial GLM on the scaled label (a
    fractional logit for Likert labels, a logistic regression for 0/1 ones)."""
    import statsmodels.api as sm

    rng = np.random.default_rng(5)
    x = np.round(rng.uniform(1, 10, 300))
    for y, bounds in (
        ((rng.random(300) < 1 / (1 + np.exp(-(x - 6)))).astype(float), (0.0, 1.0)),
        (np.clip(np.round(1 + 4 * (x - 1) / 9 + rng.normal(0, 0.7, 300)), 1, 5), (1.0, 5.0)),
    ):
        t = (y - bounds[0]) / (bounds[1] - bounds[0])
        glm = sm.GLM(t, sm.add_constant(x), family=sm.families.Binomial()).fit(tol=1e-12)
        new = np.linspace(0, 11, 23)
        ref = bounds[0] + (bounds[1] - bounds[0]) * glm.predict(sm.add_constant(new))
        np.testing.assert_allclose(sc.logistic(x, y, bounds)(new), ref, atol=1e-8)
    # decreasing in the score, or one label only: the constant mean (monotone)
    np.testing.assert_allclose(sc.logistic(x, (x < 5).astype(float), (0, 1))(x), np.mean(x < 5))
    np.testing.assert_allclose(sc.logistic(x, np.ones(300), (0, 1))(x), 1.0)


def test_auto_calibration_picks_the_fit_that_predicts_held_out_labels():
    """A logistic-shaped calibration keeps the two-parameter fit; steps at 7 and 9 (a shape
    no logistic curve traces) pick isotonic; either is one argument away."""
    rng = np.random.default_rng(6)
    score = np.round(rng.uniform(1, 10, 600))
    smooth = (rng.random(600) < 1 / (1 + np.exp(-(score - 5.5) / 1.5))).astype(float)
    step = np.where(score >= 7, 4.0, 1.0) + np.where(score >= 9, 1.0, 0.0)
    for human, kind in ((smooth, "logistic"), (step, "isotonic")):
        frame = pd.DataFrame(
            {"system": np.repeat(["A", "B"], 300), "score": score,
             "human": np.where(rng.random(600) < 0.4, human, np.nan)}
        )  # fmt: skip
        study = jb.ScoreStudy.from_items(frame, score="score", human="human", system="system")
        fit = study.fit(random_seed=1, calibration="auto")
        assert fit.info["calibration"] == kind, fit.info["calibration_oof_mse"]
        if kind == "isotonic":  # chosen by more than the comparison's noise
            mse = fit.info["calibration_oof_mse"]
            assert mse["isotonic"] < mse["logistic"]
        for other in ("isotonic", "logistic"):
            assert study.fit(random_seed=1, calibration=other).info["calibration"] == other
        assert study.fit(random_seed=1).info["calibration"] == "isotonic"  # the default
    with pytest.raises(InputError, match="calibration") as e:
        study.fit(calibration="spline")
    assert e.value.field == "calibration"


def test_logistic_calibration_covers_where_the_calibration_is_a_step():
    """The two-parameter curve fitted where E[H | S] is a step (a pass with probability
    0.2 below score 7 and 0.8 from 7 on), simulated here: the residual term keeps the
    augmented mean unbiased, so both estimands cover.  Process truths are exact: scores
    uniform on 1-10 (A) and 3-10 (B) give 0.2 * 6/10 + 0.8 * 4/10 = 0.44 and 0.5.
    400 intervals an estimand: sd 0.0109, the bound 3 sd below 0.95."""
    rng = np.random.default_rng(17)
    reps, hits = 200, {"items": 0, "process": 0}
    for r in range(reps):
        score = np.concatenate([rng.integers(1, 11, 300), rng.integers(3, 11, 300)])
        human = (rng.random(600) < np.where(score >= 7, 0.8, 0.2)).astype(float)
        frame = pd.DataFrame(
            {"system": np.repeat(["A", "B"], 300), "score": score.astype(float),
             "human": np.where(rng.random(600) < 0.3, human, np.nan)}
        )  # fmt: skip
        truth = {"items": human.reshape(2, 300).mean(1), "process": np.array([0.44, 0.5])}
        for estimand in hits:
            study = jb.ScoreStudy.from_items(
                frame, score="score", human="human", system="system", estimand=estimand
            )
            fit = study.fit(random_seed=r, calibration="logistic")
            assert fit.info["calibration"] == "logistic"
            iv = fit.interval()
            hits[estimand] += int(
                ((iv["lower"] <= truth[estimand]) & (truth[estimand] <= iv["upper"])).sum()
            )
    bound = 0.95 - 3 * np.sqrt(0.95 * 0.05 / (2 * reps))
    for estimand, h in hits.items():
        assert h / (2 * reps) >= bound, (estimand, h / (2 * reps))
