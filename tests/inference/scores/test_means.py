"""Augmented means of scores (judgebayes/inference/scores/means.py): exact where every row is
labelled, the coverage of the closed form against truths by quadrature, the items and
process estimands, paired contrasts, clustered rows, power tuning, and periods calibrated
apart.

References: exact means where every row is labelled, and coverage on data simulated here
with numpy (no package code). Monte-Carlo tolerances: with R sets at nominal 0.95 the
coverage's sd is sqrt(0.95 * 0.05 / R); a bound 3 sd below 0.95 fails a correct interval
about 0.1% of the time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from tests.helpers import score_study
from tests.simulators import scores_stream, simulate_scores


def test_every_row_labelled_gives_the_exact_mean_and_no_items_variance():
    rng = np.random.default_rng(4)
    frame, truth = simulate_scores(rng, frac=1.0, kind="likert")
    fit = jb.ScoreStudy.from_items(frame, score="score", human="human", system="system").fit()
    np.testing.assert_allclose(fit.estimate(), truth, atol=1e-12)
    tab = fit.interval()
    np.testing.assert_allclose(tab["upper"] - tab["lower"], 0, atol=1e-12)


@pytest.mark.parametrize("estimand", ["items", "process"])
def test_closed_form_covers_a_one_to_ten_judge_against_pass_fail_labels(estimand):
    rng = np.random.default_rng(6)
    reps, hits = 200, 0
    for r in range(reps):
        frame, rows_mean = simulate_scores(rng, n_per=300, frac=0.2)
        target = rows_mean if estimand == "items" else _process_truth()
        study = jb.ScoreStudy.from_items(
            frame, score="score", human="human", system="system", estimand=estimand
        )
        tab = study.fit("closed_form", random_seed=r).interval()
        hits += ((tab["lower"] <= target) & (target <= tab["upper"])).sum()
    cover = hits / (2 * reps)
    # 400 intervals: sd 0.0109; within 3 sd of 0.95
    sd = np.sqrt(0.95 * 0.05 / (2 * reps))
    assert 0.95 - 3 * sd <= cover <= 0.95 + 3 * sd, cover


def _likert_process_means(x, w) -> np.ndarray:
    """E[clip(round(3 + q + 0.4 k + N(0, 0.5)), 1, 5)] over q ~ N(0, 1), k = 0, 1."""
    from scipy import stats

    out = []
    for k in (0, 1):
        m = 3 + x + 0.4 * k  # the rounded level's mean given q, by the normal's cdf
        cuts = np.array([1.5, 2.5, 3.5, 4.5])
        above = stats.norm.sf((cuts[None, :] - m[:, None]) / 0.5).sum(1)
        out.append(np.sum(w * (1 + above)))
    return np.array(out)


def _process_truth() -> np.ndarray:
    """E[logistic(1.5 N(0.4 k, 1))] for k = 0, 1, by quadrature (the process pass rates)."""
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    return np.array([np.sum(w / (1 + np.exp(-1.5 * (x + 0.4 * k)))) for k in (0, 1)])


def test_items_interval_is_narrower_than_the_process_one():
    rng = np.random.default_rng(7)
    frame, _ = simulate_scores(rng, kind="likert", frac=0.3)
    kw = dict(score="score", human="human", system="system")
    w = {
        e: jb.ScoreStudy.from_items(frame, estimand=e, **kw).fit().interval().eval("upper - lower")
        for e in ("items", "process")
    }
    assert (w["items"] < w["process"]).all()


def test_paired_contrast_covers_and_is_narrower_than_independent():
    # the process estimand: the prompts' shared difficulty cancels in a paired difference
    # (for the rows' mean only the unlabelled labels are uncertain, and labels taken
    # independently per system share nothing to cancel)
    x, w = np.polynomial.hermite_e.hermegauss(40)
    rng = np.random.default_rng(8)
    reps, hits, paired_w, indep_w = 200, 0, [], []
    for r in range(reps):
        frame, _ = simulate_scores(rng, kind="likert", frac=0.3, paired=True)
        truth = _likert_process_means(x, w / w.sum())
        kw = dict(score="score", human="human", system="system", estimand="process")
        c = (
            jb.ScoreStudy.from_items(frame, item="prompt", **kw)
            .fit(random_seed=r)
            .contrasts()
            .iloc[0]
        )
        d = truth[0] - truth[1]
        hits += c["lower"] <= d <= c["upper"]
        paired_w.append(c["upper"] - c["lower"])
        ci = jb.ScoreStudy.from_items(frame, **kw).fit(random_seed=r).contrasts().iloc[0]
        indep_w.append(ci["upper"] - ci["lower"])
        assert "paired on 300 items" in c["estimand"]
    # 200 sets: sd 0.0154, 3 sd below 0.95
    assert hits / reps >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps), hits / reps
    assert np.mean(paired_w) < np.mean(indep_w)


def test_clustered_rows_widen_the_process_interval_and_cover():
    # 30 prompts x 10 responses per system, a prompt effect shared by its responses: the
    # process mean is over prompts too.  Cluster-robust intervals cover it (measured
    # 0.935), treating the responses as independent does not (0.725).  200 sets, sd
    # 0.0154: 3 sd below 0.95 is 0.904
    rng = np.random.default_rng(16)
    hits = {"cluster": 0, "independent": 0}
    reps = 200
    for _ in range(reps):
        prompt = np.repeat(np.arange(30), 10)
        effect = rng.normal(0, 0.8, 30)[prompt]
        human = np.clip(np.round(3 + effect + rng.normal(0, 0.7, 300)), 1, 5)
        score = np.clip(np.round(2 * human + rng.normal(0, 1.5, 300)), 1, 10)
        lab = rng.random(300) < 0.4
        frame = pd.DataFrame(
            {"prompt": prompt, "score": score, "human": np.where(lab, human, np.nan)}
        )
        truth = 3.0  # E[clip(round(3 + N(0, 0.8^2 + 0.7^2)))], symmetric about 3
        for how, cluster in (("cluster", "prompt"), ("independent", None)):
            study = jb.ScoreStudy.from_items(
                frame, score="score", human="human", cluster=cluster, estimand="process"
            )
            tab = study.fit().interval()
            hits[how] += bool(tab["lower"].iloc[0] <= truth <= tab["upper"].iloc[0])
    assert hits["cluster"] / reps >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps), hits
    assert hits["independent"] < hits["cluster"], hits


def test_power_tuning_weighs_a_weak_judge_as_little_as_it_is_worth():
    # a judge that ignores the output: the closed form was wider than the labels alone
    # (1.03-1.07x on HANNA's weakest judges; 1.025 untuned on these labellings, 0.991
    # tuned); power tuning scales its calibration towards nothing, and a strong judge keeps
    # its full weight. Widths averaged over 40 labellings: the ratio's Monte-Carlo sd is
    # about 0.005, so 1.01 is two sd above the tuned mean and three below the untuned one
    from tests.simulators import weak_or_strong_judge

    for signal, lam_range in ((0.0, (0.0, 0.3)), (1.0, (0.7, 1.0))):
        ratio, lams = [], []
        for r in range(40):
            frame, _ = weak_or_strong_judge(np.random.default_rng(900 + r), signal)
            study = jb.ScoreStudy.from_items(
                frame, score="score", human="human", system="system", estimand="process"
            )
            tuned = study.fit("closed_form", random_seed=r)
            alone = study.fit("labels_only").interval()
            iv = tuned.interval()
            ratio.append(
                (iv["upper"] - iv["lower"]).mean() / (alone["upper"] - alone["lower"]).mean()
            )
            lams.append(tuned.info["power_tuning"])
        assert lam_range[0] <= np.mean(lams) <= lam_range[1], (signal, np.mean(lams))
        assert np.mean(ratio) <= 1.01 if signal == 0 else np.mean(ratio) < 0.85, np.mean(ratio)
    fixed = study.fit("closed_form", random_seed=0, power_tuning=False)
    assert "power_tuning" not in fixed.info or fixed.info["power_tuning"] == 1.0


def test_periods_are_calibrated_apart_and_pooled_by_rows():
    frame = scores_stream(np.random.default_rng(0))
    frame = frame.drop(frame.index[(frame["week"] == 3) & (frame["system"] == "A")][:50])
    fit = score_study(frame, time="week").fit(random_seed=3)
    pooled = fit.info["contrasts"]
    est, var, table = np.zeros(2), np.zeros(2), fit.periods()
    n = frame.groupby("system").size().to_numpy(float)
    for w in range(4):
        part = frame[frame["week"] == w]
        # each period on its own, its folds from seed 3 + period
        c = score_study(part).fit(random_seed=3 + w).info["contrasts"]
        share = part.groupby("system").size().to_numpy(float) / n
        est += share * np.array(c["estimate"])
        var += share**2 * np.array(c["se"]) ** 2
        got = table[table["period"] == str(w)].set_index("system")["estimate"]
        assert np.allclose(got.loc[["A", "B"]], c["estimate"], rtol=1e-12)
    assert np.allclose(pooled["estimate"], est, rtol=1e-12)
    assert np.allclose(np.array(pooled["se"]) ** 2, var, rtol=1e-12)
    assert set(table.columns) >= {"n_items", "n_labelled", "lower", "upper"}
    assert table.loc[table["period"] == "3", "n_items"].tolist() == [100, 150]


@pytest.mark.slow
def test_calibrating_within_periods_covers_when_the_judge_drifts():
    # 300 streams; the judge 2 points kinder from week 2 while labels fall from 40% to 8%:
    # within periods the 95% intervals of both systems' means covered 0.967 (measured),
    # one calibration for all weeks 0.337.  Monte-Carlo sd of a 95% coverage over 600
    # intervals: 0.009
    rng = np.random.default_rng(1)
    hits = {"time": [], "pooled": []}
    for _ in range(300):
        frame = scores_stream(rng)
        truth = frame.groupby("system")["truth"].mean()
        for kind, kw in (("time", {"time": "week"}), ("pooled", {})):
            iv = score_study(frame, **kw).fit().interval(0.05)
            hits[kind] += [iv.loc[s, "lower"] <= truth[s] <= iv.loc[s, "upper"] for s in iv.index]
    assert np.mean(hits["time"]) >= 0.93
    assert np.mean(hits["pooled"]) < 0.6  # the scenario is one where pooling fails


def test_labels_that_follow_the_score_within_periods_still_cover():
    # labelling random within a period is what the items design assumes; a score judge's
    # calibration conditions on the score, so labels drawn more often on high scores
    # (5% at score 1 to 50% at 10) leave it valid.  300 streams, 600 intervals: measured
    # 0.968; MC sd of a 95% coverage over 600 intervals is 0.009 (fast: 300 fits in 6 s)
    hits = []
    for rep in range(300):
        rng = np.random.default_rng([rep, 77])
        frame = scores_stream(rng, early=1.0, late=1.0)
        chance = 0.05 + 0.45 * (frame["score"] - 1) / 9
        frame["human"] = np.where(rng.random(len(frame)) < chance, frame["truth"], np.nan)
        truth = frame.groupby("system")["truth"].mean()
        iv = score_study(frame, time="week").fit(random_seed=1).interval(0.05)
        hits += [iv.loc[s, "lower"] <= truth[s] <= iv.loc[s, "upper"] for s in iv.index]
    assert np.mean(hits) >= 0.93


def _prompts(rng, prompts=12, per=25, whole=3):
    """Responses to prompts: a prompt effect on the 1-5 human score (sd 0.6) and on the
    judge's 1-10 leniency (sd 1.0), so one prompt's residuals move together; the labels on
    ``whole`` prompts chosen at random, every response of them."""
    prompt = np.repeat(np.arange(prompts), per)
    human = 3 + rng.normal(0, 0.6, prompts)[prompt] + rng.normal(0, 0.8, prompt.size)
    human = np.clip(np.round(human), 1, 5)
    score = 2 * human + rng.normal(0, 1.0, prompts)[prompt] + rng.normal(0, 1.2, prompt.size)
    lab = np.isin(prompt, rng.choice(prompts, whole, replace=False))
    frame = pd.DataFrame(
        {"prompt": prompt, "score": np.clip(np.round(score), 1, 10),
         "human": np.where(lab, human, np.nan)}
    )  # fmt: skip
    return frame, human.mean()


def test_whole_prompts_labelled_rest_the_residual_on_the_labelled_prompts():
    # the residual term's variance by hand: one-way ANOVA of the labelled residuals by
    # prompt, and each prompt's weight c_g in the error of the rows' mean
    from judgebayes.inference.scores.calibration import calibrate
    from judgebayes.inference.scores.means import augmented_means

    frame, _ = _prompts(np.random.default_rng(2), whole=4)
    data = score_study(frame.assign(system="a"), cluster="prompt").data
    cal = calibrate(data, random_seed=0)
    est = augmented_means(data, cal, "items")
    e = (data.human - cal.pred)[data.labelled]
    g = data.cluster[data.labelled]
    e = e - e.mean()
    groups = [e[g == k] for k in np.unique(g)]
    n, big, gl = e.size, data.cluster.size, len(groups)
    s2w = sum(((x - x.mean()) ** 2).sum() for x in groups) / (n - gl)
    msb = sum(x.size * x.mean() ** 2 for x in groups) / (gl - 1)
    m0 = (n - sum(x.size**2 for x in groups) / n) / (gl - 1)
    s2b = max((msb - s2w) / m0, 0.0)
    c2 = 0.0
    for k in np.unique(data.cluster):
        rows, labelled = (data.cluster == k).sum(), (g == k).sum()
        c2 += ((rows - labelled) / big - (big - n) / big * labelled / n) ** 2
    from judgebayes.inference.scores.estimate import fold_jackknife

    by_hand = (1 - n / big) * s2w / n + s2b * c2
    jack = fold_jackknife(data, cal, np.array([big]), np.array([n]))[0]
    np.testing.assert_allclose(est.se[0] ** 2, by_hand + jack, rtol=1e-10)
    assert s2b > 0 and est.df[0] < n - 1


@pytest.mark.parametrize("estimand", ["items", "process"])
def test_whole_prompts_labelled_cover(estimand):
    # 3 of 12 prompts labelled whole: the residual term rested on 75 rows as if
    # independent (items 0.54, process 0.88 measured); on the labelled prompts' spread it
    # covers. 150 sets, sd 0.0178: 3 sd below 0.95 is 0.897
    rng = np.random.default_rng(31 if estimand == "items" else 32)
    reps, hits = 150, 0
    for _ in range(reps):
        frame, items_truth = _prompts(rng)
        fit = jb.ScoreStudy.from_items(
            frame, score="score", human="human", cluster="prompt", estimand=estimand
        ).fit()
        iv = fit.interval().iloc[0]
        truth = items_truth if estimand == "items" else 3.0  # symmetric about 3
        hits += bool(iv["lower"] <= truth <= iv["upper"])
    assert hits / reps >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps), hits
