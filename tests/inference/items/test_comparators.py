"""The comparators of the items design (judgebayes/inference/items/comparators.py): PPI and
PPI++ against ppi_py itself (same process, same arrays), stratified PPI, and the labels-only
interval's exact coverage over the binomial.
"""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.items import items_from_frame
from judgebayes.inference import items as ie
from judgebayes.inference.accuracy import closed_form as cf
from tests.helpers import labelled_arrays, systems_frame


def test_ppi_and_ppi_plus_plus_equal_ppi_py_per_system():
    ppi_py = pytest.importorskip("ppi_py")
    f = systems_frame(seed=3)
    study = jb.AccuracyStudy.from_items(f, system="system")
    for lam, method in ((1.0, "ppi"), (None, "ppi_plus_plus")):
        iv = study.fit(method).interval(alpha=0.1)
        for s, g in f.groupby("system"):
            y, yh, yu = labelled_arrays(g)
            lo, hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.1, lam=lam)
            est = ppi_py.ppi_mean_pointestimate(y, yh, yu, lam=lam)
            np.testing.assert_allclose(iv.loc[s].to_numpy(), [est[0], lo[0], hi[0]], atol=1e-8)


def test_stratified_ppi_is_the_share_weighted_sum_of_ppi_py_per_stratum():
    ppi_py = pytest.importorskip("ppi_py")
    f = systems_frame(seed=5, systems=("a",))
    f["band"] = np.where(np.arange(len(f)) % 3 == 0, "short", "long")
    d = items_from_frame(f, stratum="band")
    e = ie.ppi_items(d)
    est = var = 0.0
    for _, g in f.groupby("band"):
        y, yh, yu = labelled_arrays(g)
        lo, hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.05)
        share = len(g) / len(f)
        est += share * ppi_py.ppi_mean_pointestimate(y, yh, yu)[0]
        var += (share * (hi[0] - lo[0]) / (2 * cf.z_value(0.05))) ** 2
    np.testing.assert_allclose([e.estimate[0], e.se[0]], [est, np.sqrt(var)], atol=1e-10)


@pytest.mark.parametrize("theta", [0.01, 0.02, 0.05, 0.95, 0.98, 0.99])
@pytest.mark.parametrize("n", [20, 50])
def test_labels_only_interval_covers_at_extreme_rates(theta, n):
    # exact coverage over the binomial (no Monte-Carlo error): Agresti-Coull holds 0.95
    # at these rates where Wald collapses to [0, 0] and Wilson drops to 0.91
    from scipy import stats

    k = np.arange(n + 1)
    frames = [
        pd.DataFrame({"judge": np.r_[np.ones(n), 0.0], "human": np.r_[(np.arange(n) < kk), np.nan]})
        for kk in k
    ]
    inside = []
    for f in frames:
        lo, hi = ie.labels_only_items(items_from_frame(f)).interval(0.05)
        inside.append(lo[0] <= theta <= hi[0])
    assert (stats.binom.pmf(k, n, theta) * np.array(inside)).sum() >= 0.95
