r"""When a judge's error rates differ between strata: measuring it and correcting for it.

The misclassification correction assumes *invariance*: the judge's specificity
:math:`q_0` and sensitivity :math:`q_1` on the calibration items are those on the test
items.  On LLMBar this fails between the Natural and the Adversarial subsets, which are
built so that the worse output looks attractive.

* :func:`judge_rates_by_stratum` estimates :math:`q_0, q_1` per stratum from every gold
  label (conjugate Beta(1, 1) posteriors) and the posterior probability that the rates
  differ.
* :func:`transfer_table` calibrates on all of one stratum and corrects another:
  the error a single calibration set makes when invariance fails.
* :func:`stratum_shift_study` repeats a split in which the calibration set over-represents
  one stratum (cheap natural labels, few adversarial ones): a correction with one pooled
  calibration set mixes the strata's rates in the wrong proportions, while the pooled-strata
  model (:func:`judgebayes.models.accuracy.stratified_accuracy_model`) weights each
  stratum's correction by its share of the test set.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.accuracy import calibration_mask, counts_from_calibration_frame
from judgebayes.data.accuracy.frames import judged_rows
from judgebayes.errors import InputError
from judgebayes.inference.nuts import quiet_engine_warnings
from judgebayes.results import interval_summary
from judgebayes.studies.accuracy import AccuracyStudy

__all__ = ["judge_rates_by_stratum", "stratum_shift_study", "summarise_shift", "transfer_table"]


def judge_rates_by_stratum(
    items: pd.DataFrame,
    stratum: str,
    *,
    judge: str = "judge",
    human: str = "human",
    alpha: float = 0.05,
    draws: int = 20000,
    seed: int = 0,
) -> pd.DataFrame:
    r"""Specificity and sensitivity per stratum from all gold labels.

    With :math:`tn` of :math:`m_0` negatives and :math:`tp` of :math:`m_1` positives judged
    right, :math:`q_0 \mid \cdot \sim \mathrm{Beta}(1 + tn, 1 + m_0 - tn)` and likewise
    :math:`q_1`.  ``p_below_first`` is the posterior probability that the stratum's rate
    is below the first stratum's (Monte Carlo, ``draws`` draws).

    Returns
    -------
    DataFrame
        One row per stratum x rate (``q0``, ``q1``): ``right, total, mean, lower, upper,
        p_below_first``.
    """
    d = judged_rows(items, stratum, judge, human)
    c = counts_from_calibration_frame(
        d, human=human, judge=judge, stratum=stratum, allow_empty_classes=True
    )
    rng = np.random.default_rng(seed)
    rows, first = [], {}
    for t, s in enumerate(c.strata):
        for rate, right, total in (("q0", c.tn[t], c.m0[t]), ("q1", c.tp[t], c.m1[t])):
            post = stats.beta(1 + right, 1 + total - right)
            x = post.rvs(draws, random_state=rng)
            first.setdefault(rate, x)
            rows.append(
                {
                    "stratum": s,
                    "rate": rate,
                    "right": int(right),
                    "total": int(total),
                    "mean": post.mean(),
                    "lower": post.ppf(alpha / 2),
                    "upper": post.ppf(1 - alpha / 2),
                    "p_below_first": float(np.mean(x < first[rate])),
                }
            )
    return pd.DataFrame(rows)


def transfer_table(
    items: pd.DataFrame,
    stratum: str,
    *,
    judge: str = "judge",
    human: str = "human",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Calibrate on all of stratum A, correct the judge's rate on all of stratum B.

    Returns
    -------
    DataFrame
        One row per (calibration stratum, test stratum): ``truth`` (B's gold rate),
        ``naive`` (judge's rate on B), ``estimate, lower, upper`` (Rogan-Gladen with the
        Lang-Reiczigel interval; NaN where A's rates are no better than chance),
        ``error`` and ``covered``.
    """
    d = judged_rows(items, stratum, judge, human)
    strata = list(pd.unique(d[stratum]))
    rows = []
    for a in strata:
        ca = d[d[stratum] == a]
        for b in strata:
            tb = d[d[stratum] == b]
            with warnings.catch_warnings():  # no better than chance: NaN, reported as such
                warnings.simplefilter("ignore")
                fit = AccuracyStudy.from_frames(tb, ca, judge=judge, human=human)
                iv = fit.fit("closed_form").interval(alpha).iloc[0]
            truth = float(tb[human].mean())
            est = float(iv["estimate"])
            rows.append(
                {
                    "calibrated_on": a,
                    "corrected": b,
                    "truth": truth,
                    "naive": float(tb[judge].mean()),
                    "estimate": est,
                    "lower": float(iv["lower"]),
                    "upper": float(iv["upper"]),
                    "error": est - truth,
                    "covered": bool(iv["lower"] <= truth <= iv["upper"])
                    if np.isfinite(est)
                    else None,
                }
            )
    return pd.DataFrame(rows)


def stratum_shift_study(
    items: pd.DataFrame,
    stratum: str,
    calibration_fractions: dict[Any, float],
    *,
    judge: str = "judge",
    human: str = "human",
    n_splits: int = 200,
    n_bayes: int = 0,
    seed: int = 0,
    alpha: float = 0.05,
    sampler: Any = None,
) -> pd.DataFrame:
    """Calibration over-representing a stratum: one pooled correction vs the strata model.

    Each split draws ``calibration_fractions[s]`` of stratum ``s`` (per gold class, at least
    one of each) into the calibration set; the rest of every stratum is the test set, whose
    overall gold rate is the truth.  Methods: ``naive``; ``pooled`` (one calibration set,
    Rogan-Gladen + Lang-Reiczigel); ``strata`` (per-stratum Rogan-Gladen weighted by the
    test shares, delta-method interval); ``strata_nuts`` (the pooled-strata Bayesian model,
    on the first ``n_bayes`` splits).

    Returns
    -------
    DataFrame
        One row per split x method: ``split, method, truth, estimate, lower, upper``.
        Summarise with ``groupby("method")``.
    """
    d = judged_rows(items, stratum, judge, human).reset_index(drop=True)
    missing = [s for s in pd.unique(d[stratum]) if s not in calibration_fractions]
    if missing:
        raise InputError(
            f"stratum {missing[0]!r} has no calibration fraction",
            field="calibration_fractions",
            value=missing[0],
        )
    d = d.assign(_st=d[stratum].astype(str))
    rows = []
    for sp in range(n_splits):
        rng = np.random.default_rng([seed, sp])
        is_cal = np.zeros(len(d), bool)
        for s, frac in calibration_fractions.items():
            idx = np.flatnonzero(d[stratum].to_numpy() == s)
            is_cal[idx] = calibration_mask(d.loc[idx, human].to_numpy(int), frac, rng)
        test, cal = d[~is_cal], d[is_cal]
        truth = float(test[human].mean())
        rows.append(dict(split=sp, method="naive", truth=truth, estimate=test[judge].mean()))
        fits = {
            "pooled": AccuracyStudy.from_frames(test, cal, judge=judge, human=human),
            "strata": AccuracyStudy.from_frames(test, cal, judge=judge, human=human, stratum="_st"),
        }
        for name, study in fits.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                iv = study.fit("closed_form").interval(alpha).iloc[0]
            rows.append(dict(split=sp, method=name, truth=truth, **iv.to_dict()))
        if sp < n_bayes:
            with quiet_engine_warnings():
                f = fits["strata"].fit("nuts", random_seed=seed + sp, sampler=sampler)
            iv = f.interval(alpha).iloc[0]
            rows.append(
                dict(
                    split=sp,
                    method="strata_nuts",
                    truth=truth,
                    **iv.to_dict(),
                    r_hat=f.diagnostics.r_hat_max,
                    divergences=f.diagnostics.divergences,
                )
            )
    return pd.DataFrame(rows)


def summarise_shift(study: pd.DataFrame) -> pd.DataFrame:
    """Per method: splits, defined estimates, mean bias, mean absolute error, coverage and
    mean width (over the splits where the method is defined).
    """
    return interval_summary(study, ["method"]).rename(
        columns={"n_splits": "splits", "n_defined": "defined"}
    )
