"""Weighted means of scores (judgebayes/inference/scores/weighted.py): known labelling
probabilities (label_prob=) remove the bias; labels drawn at unknown rates that follow a
column (labelled_by=) weighted within that column's strata and regressed on a numeric one,
with references by hand (the stratified mean and variance) and coverage on data simulated
apart.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.scores import scores_from_frame
from judgebayes.inference.scores import Calibration, augmented_means, paired_contrasts
from tests.simulators import scores_labelled_by_length


def test_known_labelling_probabilities_remove_the_bias():
    # labels drawn more often on high scores (known to the user), a judge 2.5 points kinder
    # to one system's good answers: the closed form read as if labels were random is off
    # (system A by +0.029 on 100 data sets, 6 Monte-Carlo se); with label_prob= its
    # residuals are weighted by 1 / p: no bias beyond 3 se, and its intervals cover (0.96
    # measured; 0.91 is 3 sd of 200 system-sets below 0.95)
    from tests.simulators import scores_labelled_by_score

    err = {"weighted": [], "as random": []}
    hits = []
    for r in range(100):
        frame, truth = scores_labelled_by_score(np.random.default_rng([21, r]))
        for how, kw in (("weighted", {"label_prob": "p"}), ("as random", {})):
            study = jb.ScoreStudy.from_items(
                frame, score="score", human="human", system="system", **kw
            )
            iv = study.fit("closed_form", random_seed=r).interval()
            t = truth[iv.index]
            err[how].append((iv["estimate"] - t).to_numpy())
            if how == "weighted":
                hits += list((iv["lower"] <= t) & (t <= iv["upper"]))
    for how, e in err.items():
        e = np.array(e)
        z = np.abs(e.mean(0)) / (e.std(0, ddof=1) / np.sqrt(len(e)))
        assert (z < 3).all() if how == "weighted" else (z > 3).any(), (how, e.mean(0))
    assert np.mean(hits) >= 0.91, np.mean(hits)
    study = jb.ScoreStudy.from_items(
        frame, score="score", human="human", system="system", label_prob="p"
    )
    with pytest.raises(jb.errors.MethodRefused, match="label_prob='p'"):
        study.fit("labels_only")
    with pytest.raises(jb.InputError) as err_:
        jb.ScoreStudy.from_items(frame.assign(p=frame["p"] * 3), score="score", label_prob="p")
    assert err_.value.field == "p"


def _one_fold(pred: np.ndarray) -> Calibration:
    return Calibration(pred=pred, fold=np.zeros(len(pred), int), models=pred[None, :])


def test_a_text_column_gives_the_stratified_mean_and_variance():
    # reference: sum_s (N_s/N) ebar_s and sum_s (N_s/N)^2 (1 - n_s/N_s) s_s^2 / n_s by
    # pandas, with the calibration fixed at 3 (so the residual is the label minus 3)
    frame, _ = scores_labelled_by_length(np.random.default_rng(5))
    data = scores_from_frame(
        frame, score="score", human="human", system="system", labelled_by="source"
    )
    est = augmented_means(data, _one_fold(np.full(len(frame), 3.0)), "items")
    for k, name in enumerate(data.systems):
        rows = frame[frame["system"] == name]
        g = rows.assign(e=rows["human"] - 3.0).groupby("source")
        n_big, n_lab = g.size(), g["e"].count()
        share = n_big / len(rows)
        mean = float((share * g["e"].mean()).sum())
        var = float((share**2 * (1 - n_lab / n_big) * g["e"].var() / n_lab).sum())
        assert est.estimate[k] == pytest.approx(3.0 + mean, abs=1e-12)
        assert est.se[k] ** 2 == pytest.approx(var, rel=1e-10)
        # Satterthwaite's degrees of freedom over the two strata
        v = share**2 * (1 - n_lab / n_big) * g["e"].var() / n_lab
        assert est.df[k] == pytest.approx(float(v.sum() ** 2 / (v**2 / (n_lab - 1)).sum()))


def test_a_numeric_column_makes_labels_linear_in_it_exact():
    # labels exactly 3 + 0.5 length on the labelled rows, drawn more often on long rows: the
    # residuals regressed on length vanish, so the estimate is each system's mean of
    # 3 + 0.5 length over all its rows (the calibration fixed at 3 hides nothing), and the
    # strata alone (the text column) still miss it
    frame, _ = scores_labelled_by_length(np.random.default_rng(6))
    exact = 3 + 0.5 * frame["length"]
    frame = frame.assign(human=np.where(frame["human"].notna(), exact, np.nan))
    truth = exact.groupby(frame["system"]).mean()
    fixed = _one_fold(np.full(len(frame), 3.0))
    for by, hit in (("length", True), ("source", False)):
        data = scores_from_frame(
            frame, score="score", human="human", system="system", labelled_by=by
        )
        est = augmented_means(data, fixed, "items")
        close = np.abs(est.estimate - truth[list(data.systems)].to_numpy()) < 1e-10
        assert close.all() == hit, (by, est.estimate, truth)
    assert data.label_covariates is None


def test_labels_that_follow_a_column_are_covered_with_it_and_missed_without():
    # 200 data sets of 2 systems (400 intervals at 90%, Monte-Carlo sd 0.015): labelled
    # 0.08-0.48 by length, which humans reward and the judge does not see.  Read as random
    # the closed form covers 0.03 (measured); with labelled_by="length" 0.89
    hits = {"labelled_by": [], "as random": []}
    for r in range(200):
        frame, truth = scores_labelled_by_length(np.random.default_rng([31, r]))
        for how, kw in (("labelled_by", {"labelled_by": "length"}), ("as random", {})):
            study = jb.ScoreStudy.from_items(
                frame, score="score", human="human", system="system", **kw
            )
            iv = study.fit("closed_form", random_seed=r).interval(alpha=0.1)
            t = truth[iv.index]
            hits[how] += list((iv["lower"] <= t) & (t <= iv["upper"]))
    assert np.mean(hits["labelled_by"]) >= 0.90 - 2.5 * 0.015, np.mean(hits["labelled_by"])
    assert np.mean(hits["as random"]) < 0.5


def test_random_labels_stay_covered_and_not_wider_by_much():
    # the same humans, labels a simple random 28%: stratifying costs at most a little
    ratio, hits = [], []
    for r in range(100):
        frame, truth = scores_labelled_by_length(np.random.default_rng([32, r]), follows=False)
        fits = {
            how: jb.ScoreStudy.from_items(
                frame, score="score", human="human", system="system", **kw
            ).fit("closed_form", random_seed=r)
            for how, kw in (("by", {"labelled_by": "length"}), ("plain", {}))
        }
        iv = {k: f.interval(alpha=0.1) for k, f in fits.items()}
        t = truth[iv["by"].index]
        hits += list((iv["by"]["lower"] <= t) & (t <= iv["by"]["upper"]))
        w = {k: (v["upper"] - v["lower"]).to_numpy() for k, v in iv.items()}
        ratio.append(w["by"] / w["plain"])
    # 200 intervals at 90%: Monte-Carlo sd 0.021
    assert np.mean(hits) >= 0.90 - 2.5 * 0.021, np.mean(hits)
    assert np.mean(ratio) < 1.05, np.mean(ratio)


def test_quintiles_without_a_label_fall_back_to_fewer_bins_and_say_so():
    frame, _ = scores_labelled_by_length(np.random.default_rng(9))
    low = (frame["system"] == "A") & (frame["length"] < frame["length"].quantile(0.2))
    blank = frame.assign(human=frame["human"].mask(low))
    study = jb.ScoreStudy.from_items(
        blank, score="score", human="human", system="system", labelled_by="length"
    )
    assert study.data.columns["labelled_by_bins"]["length"] < 5
    fit = study.fit("closed_form")
    assert any("labelled_by: 'length' in" in n for n in fit.notes), fit.notes
    # bins the user gave are kept, and the empty stratum is named instead
    with pytest.raises(jb.InputError, match="the stratum 'length 1/5' of system 'A'"):
        jb.ScoreStudy.from_items(blank, score="score", system="system", labelled_by={"length": 5})


# ------------------------------------------------- label_prob= with item= and cluster=
# Simulated here with numpy: humans (Likert 1-5) see the output's quality q and a share v
# of the prompt the judge does not see, so residuals are shared by a prompt's rows; a 1-10
# judge scores q (one system 1 point higher); rows are drawn for a label with a probability
# that rises with the score (0.08 at 1, 0.60 at 10), row by row or a prompt at a time.
def _label_prob(score):
    return 0.08 + 0.52 * (score - 1) / 9


def _outputs(rng, prompt, u, v, k, kinder):
    q = u[prompt] + 0.3 * k + rng.normal(0, 0.6, prompt.size)
    human = np.clip(np.round(3 + 0.9 * q + v[prompt] + rng.normal(0, 0.5, prompt.size)), 1, 5)
    raw = 5.5 + 1.8 * q + rng.normal(0, 1.0, prompt.size) + (1.0 if kinder else 0.0)
    return np.clip(np.round(raw), 1, 10), human


def _draw(rng, frame, unit, together):
    """Labels drawn row by row at p(score), or one draw per ``unit`` at p(its mean score)."""
    if together:
        codes = pd.factorize(frame[unit])[0]
        p_unit = _label_prob(np.bincount(codes, frame["score"]) / np.bincount(codes))
        p, lab = p_unit[codes], (rng.random(p_unit.size) < p_unit)[codes]
    else:
        p = _label_prob(frame["score"]).to_numpy()
        lab = rng.random(len(frame)) < p
    return frame.assign(p=p, human=np.where(lab, frame["truth"], np.nan))


def _paired_frame(rng, n_items=300, together=False):
    """Three systems (B 0.3 better, C 0.6; the judge 1 point kinder to C) on the same
    items."""
    u, v = rng.normal(0, 0.8, n_items), rng.normal(0, 0.5, n_items)
    prompt = np.arange(n_items)
    parts = []
    for k, s in enumerate("ABC"):
        score, human = _outputs(rng, prompt, u, v, k, kinder=k == 2)
        parts.append(pd.DataFrame({"system": s, "prompt": prompt, "score": score, "truth": human}))
    return _draw(rng, pd.concat(parts, ignore_index=True), "prompt", together)


def _clustered_frame(rng, n_prompts=40, size=6, together=False):
    """Two systems (B 0.3 better), each answering its own prompts ``size`` times."""
    parts = []
    for k, s in enumerate("AB"):
        prompt = np.repeat(np.arange(n_prompts), size)
        u, v = rng.normal(0, 0.8, n_prompts), rng.normal(0, 0.5, n_prompts)
        score, human = _outputs(rng, prompt, u, v, k, kinder=False)
        parts.append(
            pd.DataFrame(
                {"system": s, "prompt": [f"{s}{g}" for g in prompt], "score": score, "truth": human}
            )
        )
    return _draw(rng, pd.concat(parts, ignore_index=True), "prompt", together)


def _process_means(n_systems):
    """E[human] per system: 3 + X rounded and clipped to 1-5 with X ~ N(0.27 k, 1.31)
    (0.9 q + v + noise: 0.81 + 0.25 + 0.25), by the normal cdf at the half levels."""
    from scipy.stats import norm

    mu = 0.27 * np.arange(n_systems)
    cuts = np.array([1.5, 2.5, 3.5, 4.5])
    return 1 + norm.cdf((3 - cuts[None, :] + mu[:, None]) / np.sqrt(1.31)).sum(1)


def _rows(frame, data, k):
    """System ``k``'s weights 1 / p (0 unlabelled), the deviations of its residuals (from a
    calibration fixed at 3) from their weighted mean, and its labels, from the frame."""
    rows = frame[frame["system"] == data.systems[k]]
    h = rows["human"].to_numpy()
    w = np.where(np.isnan(h), 0.0, 1 / rows["p"].to_numpy())
    e = np.nan_to_num(h - 3.0)
    d = np.where(w > 0, e - (w * e).sum() / w.sum(), 0.0)
    return w, d, h


@pytest.mark.parametrize("together", [False, True])
def test_paired_contrasts_with_label_prob_by_hand(together):
    # the calibration fixed at 3 (one fold: no jackknife), so the residual is the label
    # minus 3; reference: the module docstring's sums over the items written out here
    frame = _paired_frame(np.random.default_rng([41, together]), n_items=60, together=together)
    data = scores_from_frame(
        frame, score="score", human="human", system="system", item="prompt", label_prob="p"
    )
    fixed = _one_fold(np.full(len(frame), 3.0))
    for estimand in ("items", "process"):
        est = augmented_means(data, fixed, estimand)
        paired = {
            (a, b): se for a, b, _, se, _, _ in paired_contrasts(data, est, estimand)["paired"]
        }
        assert len(paired) == 3
        for (a, b), se in paired.items():
            (wa, da, _), (wb, db, _) = _rows(frame, data, a), _rows(frame, data, b)
            z = wa * da - wb * db
            if estimand == "process":  # the items' influence (the prediction is flat)
                v = 60 / 59 * np.sum((z - z.mean()) ** 2) / 60**2
            elif together:  # an item labelled for every system or none
                both = (wa > 0) & (wb > 0)
                assert np.array_equal(wa > 0, wb > 0)
                m = both.sum()  # the labelled items
                v = np.sum(z**2) - np.sum((np.maximum(wa, wb) * (da - db) ** 2)[both])
                v = m / (m - 1) * v / 60**2
                # one probability an item: each item's w (w - 1) (d_a - d_b)^2
                ht = np.sum(wa * (wa - 1) * (da - db) ** 2) / 60**2
                assert v == pytest.approx(m / (m - 1) * ht)
            else:  # rows drawn apart: the Poisson variances add
                v = (np.sum(wa * (wa - 1) * da**2) + np.sum(wb * (wb - 1) * db**2)) / 60**2
            assert se**2 == pytest.approx(v, rel=1e-10), (estimand, a, b)


@pytest.mark.parametrize("together", [False, True])
def test_clustered_means_with_label_prob_by_hand(together):
    frame = _clustered_frame(np.random.default_rng([42, together]), 12, 5, together=together)
    data = scores_from_frame(
        frame, score="score", human="human", system="system", cluster="prompt", label_prob="p"
    )
    fixed = _one_fold(np.full(len(frame), 3.0))
    for estimand in ("items", "process"):
        est = augmented_means(data, fixed, estimand)
        for k in range(2):
            w, d, h = _rows(frame, data, k)
            g = data.cluster[data.system == k]
            t = np.bincount(g, w * d)
            poisson = np.sum(w * (w - 1) * d**2) / 60**2
            n = np.sum(w > 0)
            if estimand == "process":  # cluster totals of the influence, never below the rows'
                h_w = np.nansum(w * h) / w.sum()
                rows = poisson + np.nansum(w * (h - h_w) ** 2) / w.sum() / 60
                g_lab = np.unique(g[w > 0]).size  # prompts with a label
                v, df = max(12 / 11 * np.sum(t**2) / 60**2, rows), min(n, g_lab) - 1
            elif together:  # whole prompts drawn: the Horvitz-Thompson variance over them
                w_g = np.bincount(g, w) / 5
                m = np.sum(w_g > 0)
                v = m / (m - 1) * np.sum(t**2 - w_g * np.bincount(g, d) ** 2) / 60**2
                df = min(n, m) - 1
            else:  # rows drawn one by one: the clusters do not enter the rows' mean
                v, df = poisson, n - 1
            assert est.se[k] ** 2 == pytest.approx(v, rel=1e-10), (estimand, k)
            assert est.df[k] == df


def test_a_label_lost_in_a_prompt_drawn_whole_keeps_the_whole_prompts_variance():
    # prompts drawn whole; one label of one labelled prompt blank (lost): still the units
    # were drawn, and the variance is still over them (it halved, read as rows)
    frame = _clustered_frame(np.random.default_rng([43, True]), together=True)
    fixed = _one_fold(np.full(len(frame), 3.0))
    roles = dict(score="score", human="human", system="system", cluster="prompt", label_prob="p")
    whole = augmented_means(scores_from_frame(frame, **roles), fixed, "items")
    lost = frame.copy()
    lost.loc[lost["human"].notna().idxmax(), "human"] = np.nan
    one_less = augmented_means(scores_from_frame(lost, **roles), fixed, "items")
    assert np.all(one_less.se > 0.8 * whole.se), (one_less.se, whole.se)


def test_constant_label_prob_is_the_unweighted_paired_design():
    # each item labelled for all three systems or none, label_prob= the share labelled: the
    # weighted means are the unweighted ones, and so is the items contrast's variance but
    # for the covariance's divisor (n - 1 here, n there):
    # v_unweighted - v_weighted = 2 (N - n) / (N n^2 (n - 1)) sum d_a d_b
    frame = _paired_frame(np.random.default_rng(43), n_items=200, together=True)
    n = frame.groupby("system")["human"].count().iloc[0]
    frame = frame.assign(p=n / 200)
    kw = dict(score="score", human="human", system="system", item="prompt")
    weighted = scores_from_frame(frame, label_prob="p", **kw)
    plain = scores_from_frame(frame, **kw)
    fixed = _one_fold(np.full(len(frame), 3.0))
    ew, ep = augmented_means(weighted, fixed, "items"), augmented_means(plain, fixed, "items")
    np.testing.assert_allclose(ew.estimate, ep.estimate, rtol=0, atol=1e-12)
    tw, tp = paired_contrasts(weighted, ew, "items"), paired_contrasts(plain, ep, "items")
    for (a, b, dw, sw, *_), (_, _, dp, sp, *_) in zip(tw["paired"], tp["paired"], strict=True):
        assert dw == pytest.approx(dp, abs=1e-12)
        cross = np.sum(_rows(frame, weighted, a)[1] * _rows(frame, weighted, b)[1])
        assert sp**2 - sw**2 == pytest.approx(2 * (200 - n) / (200 * n**2 * (n - 1)) * cross)


def test_label_prob_goes_with_item_and_cluster_in_a_study():
    frame = _paired_frame(np.random.default_rng(44), n_items=120)
    kw = dict(score="score", human="human", system="system", label_prob="p")
    fit = jb.ScoreStudy.from_items(frame, item="prompt", **kw).fit(random_seed=0)
    assert fit.contrasts()["estimand"].str.contains("paired on 120 items").all()
    frame = _clustered_frame(np.random.default_rng(45))
    fit = jb.ScoreStudy.from_items(frame, cluster="prompt", estimand="process", **kw).fit()
    assert "cluster-robust" in fit.info["estimator"]
    # the strata's estimated rates still have no paired variance: refused, by name
    with pytest.raises(jb.InputError) as err:
        jb.ScoreStudy.from_items(
            frame, score="score", system="system", cluster="prompt", labelled_by="score"
        )
    assert err.value.field == "labelled_by"
    assert "label_prob=" in str(err.value)


def design_coverage(reps: int, seed: int = 51, plain: bool = False) -> pd.DataFrame:
    """Coverage of the closed form's 95% intervals with ``label_prob=`` over ``reps`` sets
    of each design (rows drawn one by one, or a prompt at a time): each system's mean and
    each contrast, ``items`` (truth: the rows' mean) and ``process`` (truth: the normal
    cdf).  One row per (design, drawn, estimand, quantity) with ``hits``, ``n`` and the
    intervals' mean ``width``; ``plain=True`` adds the same fits without ``item=`` / ``cluster=``
    (benchmarks/scores_weighted_design.py).
    """
    out = []
    kw = dict(score="score", human="human", system="system", label_prob="p")
    for r in range(reps):
        for drawn in ("one by one", "a prompt at a time"):
            rng = np.random.default_rng([seed, r, drawn == "one by one"])
            for design, frame, role in (
                ("paired", _paired_frame(rng, together=drawn != "one by one"), "item"),
                ("clustered", _clustered_frame(rng, together=drawn != "one by one"), "cluster"),
            ):
                rows = frame.groupby("system")["truth"].mean()
                for estimand in ("items", "process"):
                    truth = (
                        rows
                        if estimand == "items"
                        else pd.Series(_process_means(len(rows)), rows.index)
                    )
                    for how in (role, "none") if plain else (role,):
                        given = {} if how == "none" else {how: "prompt"}
                        study = jb.ScoreStudy.from_items(frame, estimand=estimand, **given, **kw)
                        fit = study.fit(random_seed=r)
                        iv = fit.interval()
                        t = truth[iv.index]
                        hit = (iv["lower"] <= t) & (t <= iv["upper"])
                        c = fit.contrasts()
                        c = c[c["a"] < c["b"]]
                        td = truth[c["a"]].to_numpy() - truth[c["b"]].to_numpy()
                        chit = (c["lower"] <= td) & (td <= c["upper"])
                        for q, h, x in (("means", hit, iv), ("contrasts", chit, c)):
                            out.append(
                                dict(
                                    design=design,
                                    drawn=drawn,
                                    estimand=estimand,
                                    given=how,
                                    quantity=q,
                                    hits=int(h.sum()),
                                    n=len(h),
                                    width=float(np.mean(x["upper"] - x["lower"])),
                                )
                            )
    keys = ["design", "drawn", "estimand", "given", "quantity"]
    return (
        pd.DataFrame(out)
        .groupby(keys, sort=False)
        .agg(hits=("hits", "sum"), n=("n", "sum"), width=("width", "mean"))
        .reset_index()
    )


@pytest.mark.slow
def test_label_prob_with_item_and_cluster_covers():
    # 200 sets of each design, labels drawn at p(score) row by row or a prompt at a time
    # (known to the estimator); every (design, drawing, estimand) pools 3 or 2 systems' means
    # and 3 or 1 contrasts.  Tolerance 0.95 - 2.5 Monte-Carlo sd of 200 sets (0.0154, taking
    # the systems of a set as one draw): 0.9115
    cov = design_coverage(200)
    rate = cov["hits"] / cov["n"]
    low = cov[rate < 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / 200)]
    assert low.empty, low
