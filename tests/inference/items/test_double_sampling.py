"""Double sampling (judgebayes/inference/items/double_sampling.py): Tenenbein's estimator and
the finite-population variance written out, cluster-robust intervals (CR2, Bell-McCaffrey
degrees of freedom against the matrix formula), weights, several judges' vote count and the
coverage studies.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.items import items_from_frame
from judgebayes.errors import MethodRefused
from judgebayes.inference import items as ie
from judgebayes.inference.accuracy import closed_form as cf
from tests.helpers import labelled_arrays, systems_frame
from tests.simulators import unequal_clusters


def test_double_sampling_process_estimand_is_tenenbeins_estimator():
    f = systems_frame(seed=7, systems=("a",))
    d = items_from_frame(f)
    e = ie.double_sampling_items(d, "process", smooth=0)  # the textbook variance
    c = d.cells()
    tp, fp = c["H1"].sum(), (c["L1"] - c["H1"]).sum()
    fn, tn = c["H0"].sum(), (c["L0"] - c["H0"]).sum()
    k, n = (c["N1"] - c["L1"]).sum(), (c["N1"] + c["N0"] - c["L1"] - c["L0"]).sum()
    ref = cf.double_sampling(k, n, tp, tp + fn, tn, tn + fp)
    np.testing.assert_allclose([e.estimate[0], e.se[0]], [ref.estimate, ref.se], rtol=1e-12)


def test_items_estimand_variance_is_the_finite_population_formula():
    f = systems_frame(seed=8, systems=("a",))
    h, v = f["human"].to_numpy(), f["judge"].to_numpy()
    lab = ~np.isnan(h)
    n = len(f)
    a = h[lab & (v == 1)].mean()
    b = h[lab & (v == 0)].mean()
    l1, l0 = (lab & (v == 1)).sum(), (lab & (v == 0)).sum()
    u1, u0 = (~lab & (v == 1)).sum(), (~lab & (v == 0)).sum()
    # R = (labelled positives + unlabelled positives) / N; each unlabelled judge-positive
    # is positive with prob. a (estimated from l1 labels), each judge-negative with b
    est = (np.nansum(h) + u1 * a + u0 * b) / n
    var = (u1**2 * a * (1 - a) / l1 + u1 * a * (1 - a)) / n**2
    var += (u0**2 * b * (1 - b) / l0 + u0 * b * (1 - b)) / n**2
    e = ie.double_sampling_items(items_from_frame(f), "items", smooth=0)
    np.testing.assert_allclose([e.estimate[0], e.se[0]], [est, np.sqrt(var)], rtol=1e-12)
    # the default floors each verdict's variance at the smoothed rate's: never narrower
    assert ie.double_sampling_items(items_from_frame(f), "items").se[0] >= e.se[0]


def test_fully_labelled_items_have_a_zero_width_interval_at_the_true_rate():
    sim = jb.simulate.simulate_items(500, n_labelled=500, seed=1)
    iv = jb.AccuracyStudy.from_items(sim.frame).fit("closed_form").interval().iloc[0]
    assert iv["lower"] == iv["upper"] == pytest.approx(sim.rate_items, abs=1e-12)


def test_closed_form_covers_both_estimands_and_the_finite_one_narrows():
    ppi_py = pytest.importorskip("ppi_py")
    # 300 replicates; MC sd of a 0.95 coverage is sqrt(.95 * .05 / 300) = 0.0126, so
    # [0.91, 0.99] is a 3-sd band
    cover = {"process": [], "items": []}
    w_items, w_ppi = [], []
    for r in range(300):
        sim = jb.simulate.simulate_items(2000, n_labelled=1000 if r < 100 else 200, seed=100 + r)
        d = items_from_frame(sim.frame)
        for est, truth in (("process", sim.theta), ("items", sim.rate_items)):
            lo, hi = ie.double_sampling_items(d, est).interval(0.05)
            cover[est].append(lo[0] <= truth <= hi[0])
            if est == "items" and r < 100:
                w_items.append(hi[0] - lo[0])
        if r < 100:
            lo, hi = ppi_py.ppi_mean_ci(*labelled_arrays(sim.frame), alpha=0.05)
            w_ppi.append(hi[0] - lo[0])
    for est, c in cover.items():
        assert 0.91 <= np.mean(c) <= 0.99, (est, np.mean(c))
    # at 50% labelled the N-item interval is visibly narrower than PPI++'s
    assert np.mean(w_items) < 0.8 * np.mean(w_ppi)


def test_clustered_items_iid_intervals_undercover_and_cluster_robust_ones_cover():
    # 150 replicates of 100 prompts x 10 responses, ICC 0.3 (deff 1 + 9 * 0.3 = 3.7 for
    # the judge's rate); MC sd at 0.95 is 0.018: the 0.90 floor is 2.8 sd below
    cov = {None: [], "cluster": []}
    for r in range(150):
        sim = jb.simulate.simulate_items(
            1000, n_labelled=200, cluster_size=10, icc=0.3, seed=500 + r
        )
        for cl in cov:
            d = items_from_frame(sim.frame, cluster=cl)
            lo, hi = ie.double_sampling_items(d, "process").interval(0.05)
            cov[cl].append(lo[0] <= sim.theta <= hi[0])
    assert np.mean(cov["cluster"]) >= 0.90
    assert np.mean(cov[None]) < np.mean(cov["cluster"]) - 0.04


def test_verdict_stratified_labelling_is_unbiased_where_labels_only_is_not():
    # label 80% judge-positives: the labelled mean is biased upwards, double sampling
    # (which conditions on the verdict) is not.  200 replicates; MC sd of the mean error
    # is about 0.03 / sqrt(200) = 0.002
    err_ds, err_lab = [], []
    for r in range(200):
        sim = jb.simulate.simulate_items(
            2000, n_labelled=200, design="verdict", positive_share=0.8, seed=900 + r
        )
        d = items_from_frame(sim.frame)
        err_ds.append(ie.double_sampling_items(d, "process").estimate[0] - sim.theta)
        err_lab.append(ie.labels_only_items(d).estimate[0] - sim.theta)
    assert abs(np.mean(err_ds)) < 0.008
    assert np.mean(err_lab) > 0.05


def test_weights_give_the_hajek_estimate_of_an_unequal_probability_design():
    # labelling probability 0.3 for judge-positives, 0.05 for negatives, weights 1/pi:
    # the weighted a, b equal the unweighted ones within each verdict (pi constant there)
    rng = np.random.default_rng(4)
    sim = jb.simulate.simulate_items(3000, n_labelled=3000, seed=4)
    f = sim.frame.copy()
    pi = np.where(f["judge"] == 1, 0.3, 0.05)
    keep = rng.random(len(f)) < pi
    f["human"] = f["human"].where(keep)
    f["w"] = 1 / pi
    plain = ie.double_sampling_items(items_from_frame(f), "process")
    weighted = ie.double_sampling_items(items_from_frame(f, weights="w"), "process")
    np.testing.assert_allclose(weighted.estimate, plain.estimate, rtol=1e-12)
    np.testing.assert_allclose(weighted.se, plain.se, rtol=1e-12)
    with pytest.raises(MethodRefused) as e:
        jb.AccuracyStudy.from_items(f, weights="w").fit("exact")
    assert e.value.field == "weights"


def test_several_judges_narrow_the_interval_of_the_best_single_judge():
    # three conditionally independent judges vs each alone, 100 frames of 3000 items with
    # 300 labels: the vote count separates true positives from negatives better than any
    # one verdict, so its double-sampling variance is smaller (mean se, run-to-run sd of
    # the mean ~2e-5)
    se = {"joint": [], "best single": []}
    for r in range(100):
        f = jb.simulate.simulate_items(
            3000, sensitivity=[0.85, 0.8, 0.75], specificity=[0.8, 0.75, 0.85], seed=40 + r
        ).frame
        judges = ["judge_1", "judge_2", "judge_3"]
        se["joint"].append(ie.double_sampling_items(items_from_frame(f, judge=judges)).se[0])
        se["best single"].append(
            min(ie.double_sampling_items(items_from_frame(f, judge=j)).se[0] for j in judges)
        )
    assert np.mean(se["joint"]) < 0.9 * np.mean(se["best single"])


@pytest.mark.parametrize("n_clusters", [4, 8])
def test_few_clusters_cr2_with_t_critical_values_covers(n_clusters):
    # 300 replicates of n_clusters prompts x 50 responses, ICC 0.1, 15 labels per prompt.
    # MC sd of a 0.95 coverage over 300: 0.0126, so 0.92 is 2.4 sd below nominal.  With
    # CR1 and a normal critical value the same simulation covered 0.865 (4) and 0.91 (8).
    hits = []
    for r in range(300):
        sim = jb.simulate.simulate_items(
            n_clusters * 50, n_labelled=n_clusters * 15, cluster_size=50, icc=0.1, seed=r
        )
        d = items_from_frame(sim.frame, cluster="cluster")
        lo, hi = ie.double_sampling_items(d, "process").interval(0.05)
        hits.append(lo[0] <= sim.theta <= hi[0])
    assert np.mean(hits) >= 0.92


def test_closed_form_never_returns_nan_and_spans_an_unlabelled_category():
    # 1,000 items, 300 judged positive; the 20 labelled items are all judge-negatives, so
    # the human rate among the judge's positives is unknown: anywhere in [0, 1]
    rng = np.random.default_rng(3)
    judge = (np.arange(1000) < 300).astype(float)
    human = np.full(1000, np.nan)
    labelled = rng.choice(np.arange(300, 1000), size=20, replace=False)
    human[labelled] = rng.random(20) < 0.1
    frame = pd.DataFrame({"judge": judge, "human": human})
    for estimand in ("process", "items"):
        fit = jb.AccuracyStudy.from_items(frame, estimand=estimand).fit("closed_form")
        iv = fit.interval().iloc[0]
        assert np.isfinite(iv[["estimate", "lower", "upper"]].astype(float)).all()
        assert any("known only to lie in [0, 1]" in n for n in fit.notes)
        # every value the positives' rate could take is inside: 0.3 wide at least
        assert iv["upper"] - iv["lower"] >= 0.3 - 1e-12
        lab_neg = np.nanmean(human)
        assert iv["lower"] <= 0.7 * lab_neg + 1e-12 and iv["upper"] >= 0.3 + 0.7 * lab_neg - 1e-12


def test_bell_mccaffrey_degrees_of_freedom_against_the_matrix_formula():
    # the Satterthwaite degrees of freedom of CR2 written as a G x G quadratic form
    for sizes in ([10] * 5, [190] + [10] * 19, [3, 40, 7, 1, 90, 12]):
        w = np.array(sizes, float)
        u = w / w.sum()
        q = np.eye(w.size) - np.outer(u, np.ones(w.size))
        b = q.T @ np.diag(1 / (1 - u)) @ q @ np.diag(w)
        want = np.trace(b) ** 2 / np.trace(b @ b)
        frame = pd.DataFrame(
            {"judge": 1.0, "human": np.nan, "prompt": np.repeat(np.arange(w.size), sizes)}
        )
        frame.loc[:1, "human"] = 1.0
        d = items_from_frame(frame, cluster="prompt")
        assert ie.bell_mccaffrey_df(d)[0] == pytest.approx(want, rel=1e-10)
    assert want != w.size - 1  # unequal sizes count for less than G - 1


@pytest.mark.parametrize(("kind", "n_clusters"), [("big", 10), ("lognormal", 5)])
def test_unequal_clusters_cover_with_bell_mccaffrey_degrees_of_freedom(kind, n_clusters):
    # 300 sets; MC sd of a 0.95 coverage 0.0126, the bar 2.5 sd below nominal.  With
    # t(G - 1) these covered 0.89 (big, 10) and 0.87 (lognormal, 5) over 400 sets.
    hits = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.errors.FewClustersWarning)
        for seed in range(300):
            frame, truth = unequal_clusters(seed, n_clusters, kind)
            d = items_from_frame(frame, cluster="prompt")
            lo, hi = ie.double_sampling_items(d, "process").interval(0.05)
            hits.append(lo[0] <= truth <= hi[0])
    assert np.mean(hits) >= 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / 300)
