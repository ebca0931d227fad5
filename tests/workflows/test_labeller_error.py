"""Sensitivity intervals for a labeller who errs: they cover the true rate whenever the
labeller's error rates lie in the stated range (simulated here with numpy), where the
fit's own interval, for the labeller's rate, does not; bad ranges are refused by name.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError


def simulate(rng, theta=(0.6, 0.45), n=1500, labelled=300, e0=0.04, e1=0.08):
    """Items of two systems on the same prompts, a judge (0.9 / 0.8 on the truth) on all, a
    labeller who errs at e0 (false positive) and e1 (false negative) on a random subset.
    """
    rows = []
    lab = np.zeros(n, bool)
    lab[rng.choice(n, labelled, replace=False)] = True
    for s, t in zip("AB", theta, strict=True):
        truth = rng.random(n) < t
        judge = np.where(truth, rng.random(n) < 0.9, rng.random(n) < 0.2)
        human = np.where(truth, rng.random(n) >= e1, rng.random(n) < e0)
        rows.append(
            pd.DataFrame(
                {
                    "system": s,
                    "item": np.arange(n),
                    "judge": judge.astype(int),
                    "human": np.where(lab, human.astype(float), np.nan),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


@pytest.fixture(scope="module")
def study_sets():
    rng = np.random.default_rng(12)
    return [simulate(rng) for _ in range(300)]


def test_covers_when_the_error_lies_in_the_range(study_sets):
    theta = {"A": 0.6, "B": 0.45}
    own, sens, width = 0, 0, []
    diff_own, diff_sens = 0, 0
    for df in study_sets:
        with warnings.catch_warnings():  # the labelling check's own false alarms (3%)
            warnings.simplefilter("ignore", jb.errors.LabellingWarning)
            fit = jb.AccuracyStudy.from_items(
                df, judge="judge", human="human", system="system", item="item", estimand="process"
            ).fit("closed_form")
        t = fit.interval()
        s = jb.human_error_interval(fit, 0.1)
        for k, v in theta.items():
            own += t.loc[k, "lower"] <= v <= t.loc[k, "upper"]
            sens += s.loc[k, "lower"] <= v <= s.loc[k, "upper"]
            width.append(
                (s.loc[k, "upper"] - s.loc[k, "lower"]) / (t.loc[k, "upper"] - t.loc[k, "lower"])
            )
        c = jb.estimators.human_error_contrasts(fit, {"false_positive": 0.1, "false_negative": 0.1})
        row = c[(c["a"] == "A") & (c["b"] == "B")].iloc[0]
        diff_own += row["labeller_lower"] <= 0.15 <= row["labeller_upper"]
        diff_sens += row["lower"] <= 0.15 <= row["upper"]
    n = 2 * len(study_sets)
    # 600 intervals: Monte-Carlo sd of a 95% coverage 0.0089; the union covers at least as
    # often as the labeller-rate interval covers the labeller's rate, so >= 0.95 - 2.5 sd
    assert sens / n >= 0.95 - 2.5 * 0.0089
    # the labeller's rate is 0.6 * 0.92 + 0.4 * 0.04 = 0.568 (A) and 0.436 (B): the fit's
    # own interval, for it, misses the true rates far more often than 5%
    assert own / n < 0.95 - 2.5 * 0.0089
    assert diff_sens / len(study_sets) >= 0.95 - 2.5 * 0.0126
    assert diff_own / len(study_sets) < diff_sens / len(study_sets)
    assert np.median(width) < 4  # the price of not knowing the labeller: stated, bounded


def test_zero_error_is_the_fit_itself(study_sets):
    fit = jb.AccuracyStudy.from_items(
        study_sets[0], judge="judge", human="human", system="system"
    ).fit("closed_form")
    s = jb.human_error_interval(fit, 0.0)
    t = fit.interval()
    np.testing.assert_allclose(
        s[["lower", "upper"]].to_numpy(), t[["lower", "upper"]].clip(0, 1).to_numpy()
    )
    # a known range: the identified set of the point estimate, worked by hand for A
    s = jb.human_error_interval(
        fit, {"false_positive": (0.02, 0.02), "false_negative": (0.05, 0.05)}
    )
    phi = t.loc["A", "estimate"]
    assert s.loc["A", "estimate_low"] == pytest.approx((phi - 0.02) / (1 - 0.07))


@pytest.mark.parametrize(
    "bad", [-0.1, 1.2, (0.2, 0.1), {"false_positive": 0.6, "false_negative": 0.5}, {"fp": 0.1}, "a"]
)
def test_bad_ranges_name_the_field(study_sets, bad):
    fit = jb.AccuracyStudy.from_items(
        study_sets[0], judge="judge", human="human", system="system"
    ).fit("closed_form")
    with pytest.raises(InputError) as e:
        jb.human_error_interval(fit, bad)
    assert e.value.field == "human_error"


def test_a_fit_that_is_not_a_rate_of_a_binary_label_is_refused():
    multi = jb.AccuracyStudy.from_multiclass_counts(
        [[40, 5, 5], [4, 42, 4], [6, 6, 38]], [[120, 90, 90]], classes=["a", "b", "c"]
    ).fit("closed_form")
    with pytest.raises(InputError, match="prevalence") as e:
        jb.human_error_interval(multi, 0.05)
    assert e.value.field == "human_error"
