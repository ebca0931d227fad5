"""The agreement workflow (judgebayes/workflows/agreement.py): a judge against humans and the
judges' effective number; the coefficients: tests/inference/agreement/test_coefficients.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import judgebayes as jb


def test_judge_against_humans_and_effective_judges():
    rng = np.random.default_rng(9)
    n = 1000
    truth = rng.integers(0, 2, n)

    def rater(acc):
        return np.where(rng.random(n) < acc, truth, 1 - truth).astype(float)

    df = pd.DataFrame(
        {
            "h1": rater(0.9),
            "h2": rater(0.9),
            "h3": rater(0.9),
            "good": rater(0.95),
            "poor": rater(0.7),
        }
    )
    # a second judge that copies "poor" on 80% of items: dependent errors
    df["copy"] = np.where(rng.random(n) < 0.8, df["poor"], rater(0.7))
    t = jb.estimators.judge_agreement(df, ["good", "poor"], ["h1", "h2", "h3"]).set_index("judge")
    # population Cohen kappas (balanced classes): humans 0.9/0.9 -> agree 0.82 -> kappa 0.64;
    # good-human 0.95*0.9+0.05*0.1 = 0.86 -> 0.72; poor-human 0.7*0.9+0.3*0.1 = 0.66 -> 0.32
    assert t.loc["good", "lower"] < 0.72 - 0.64 < t.loc["good", "upper"]
    assert t.loc["poor", "lower"] < 0.32 - 0.64 < t.loc["poor", "upper"]
    assert t.loc["good", "lower"] > 0 and t.loc["poor", "upper"] < 0
    df["truth"] = truth.astype(float)
    panel = ["good", "poor", "h1"]  # three raters whose errors are independent given the truth
    exact = jb.estimators.effective_judges(df, panel, humans="truth")
    assert exact.loc[0, "lower"] < 3 < exact.loc[0, "upper"]
    # given two noisy humans, what they get wrong is shared variation: a lower bound, above
    # the one that counts agreement on the truth as dependence
    noisy = jb.estimators.effective_judges(df, panel, humans=["h2", "h3"]).loc[
        0, "effective_judges"
    ]
    values = jb.estimators.effective_judges(df, panel).loc[0, "effective_judges"]
    assert values < noisy < 3
    dependent = jb.estimators.effective_judges(df, ["poor", "copy"], humans="truth")
    assert dependent.loc[0, "upper"] < 1.4  # error correlation 0.8 -> 2 / 1.8 = 1.11
