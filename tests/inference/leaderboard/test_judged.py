"""A judge's scores corrected by a few labels: the pseudo-scores' mean against the
estimator written out, and coverage on boards simulated by tests/simulators.py (a judge
kinder to one system; labels at random, and labels drawn by the verdict)."""

import numpy as np
import pytest

from judgebayes.inference.leaderboard import judged, paired
from tests.simulators import judged_board


def test_the_corrected_mean_is_the_calibration_plus_each_values_residual_mean():
    rng = np.random.default_rng(0)
    x = (rng.random((3, 60)) < 0.6).astype(float)
    h = np.where(rng.random((3, 60)) < 0.3, (rng.random((3, 60)) < 0.5).astype(float), np.nan)
    c = judged.judge_corrected(x, h)
    lab = ~np.isnan(h)
    # g: the human mean at each verdict over every system's labels, plus one pseudo-label
    # at the overall mean
    overall = h[lab].mean()
    g = {v: (h[lab & (x == v)].sum() + overall) / ((lab & (x == v)).sum() + 1) for v in (0, 1)}
    for s in range(3):
        want = np.mean([g[v] for v in x[s]])
        for v in (0, 1):
            cells, labelled = x[s] == v, lab[s] & (x[s] == v)
            want += cells.mean() * np.mean(h[s, labelled] - g[v])
        assert c.phi[s].mean() == pytest.approx(want)
    assert c.labelled.tolist() == lab.sum(axis=1).tolist() and not c.merged


def _coverage(seed, boards, labelled, by_verdict=0.0):
    """Each system's 95% interval covering its mean over the item population, per system
    (systems on the columns); m01's judge has specificity 0.4, the others' 0.75."""
    abilities = np.array([1.0, 0.6, 0.3, 0.0, -0.3, -0.6])
    hits = []
    for r in range(boards):
        rng = np.random.default_rng([seed, r])
        frame, truth = judged_board(rng, abilities, n_items=500, labelled=labelled)
        if by_verdict:  # labels kept three times as often where the judge said 1
            keep = rng.random(len(frame)) < np.where(frame["score"] == 1, 1.0, 1 / 3)
            frame["human"] = frame["human"].where(keep)
        x = frame.pivot(index="system", columns="item", values="score").to_numpy()
        h = frame.pivot(index="system", columns="item", values="human").to_numpy()
        c = judged.judge_corrected(x, h)
        pm = paired.paired_means(c.phi)
        var = np.maximum(np.diag(pm.cov), c.process_var)
        lo, hi = paired.bounded_interval(pm.mean, var, 500, c.df, 0.05, (0, 1))
        t = truth.to_numpy()
        hits.append((lo <= t) & (t <= hi))
    return np.array(hits)


def test_a_judge_kind_to_one_system_is_corrected_at_two_percent_labels():
    # 2% of 500 rows labelled (about 10 a system): 200 boards, the favoured system's
    # interval covers at 95% within 2.5 Monte-Carlo sds (0.015); measured 0.96-0.99
    hits = _coverage(1, 200, 0.02)
    bar = 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / 200)
    assert hits[:, 1].mean() >= bar, hits.mean(axis=0)
    assert hits.mean() >= bar


def test_labels_drawn_by_the_verdict_are_corrected_within_each_value():
    # 15% labels, three times as many where the judge said 1: every value carries labels,
    # the residuals are averaged within each, and the intervals still cover
    hits = _coverage(2, 150, 0.15, by_verdict=True)
    assert hits.mean() >= 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / 150), hits.mean(axis=0)


def test_few_labels_on_a_value_merge_the_values_and_the_degrees_of_freedom_fall():
    x = np.r_[np.ones(50), np.zeros(50)][None, :].repeat(2, axis=0)
    h = np.full(x.shape, np.nan)
    h[:, :6] = [1, 1, 0, 1, 1, 1]  # labels only where the judge said 1 ...
    h[0, 50] = 0  # ... and one where it said 0 for the first system, two for the second
    h[1, 50:52] = [0, 1]
    c = judged.judge_corrected(x, h)
    assert c.merged == [0]
    assert (c.df < 20).all() and (c.df_items < 10).all()
