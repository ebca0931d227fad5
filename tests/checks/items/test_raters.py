"""The ``label_agreement`` check (judgebayes/checks/items/raters.py): do several human raters
agree enough for their majority to stand for the truth?

Raters simulated here with numpy (tests/simulators.py: each right with its accuracy,
independently); Krippendorff's nominal alpha recomputed by hand from its definition as
the reference; the check fails the majority-as-truth fits and only warns the latent-truth
model, which models each rater's errors.
"""

import importlib
import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.checks.items.raters import MIN_ALPHA
from judgebayes.results.trees import tree
from judgebayes.studies.accuracy.fit import AccuracyFit
from tests.simulators import RATERS, simulate_raters


def _study(df, truth):
    with warnings.catch_warnings():  # the labelling check's own alarms are not tested here
        warnings.simplefilter("ignore", jb.errors.LabellingWarning)
        return jb.AccuracyStudy.from_items(
            df, judge="judge", human=RATERS, system="system", truth=truth
        )


def _alpha_by_hand(df) -> float:
    """Nominal Krippendorff alpha: 1 - D_o / D_e over the items two or more raters rated,
    from the coincidence matrix (Krippendorff 2004, ch. 11)."""
    r = df[RATERS].to_numpy(float)
    r = r[(~np.isnan(r)).sum(1) >= 2]
    o = np.zeros((2, 2))
    for row in r:
        v = row[~np.isnan(row)].astype(int)
        m = v.size
        for a in range(m):
            for b in range(m):
                if a != b:
                    o[v[a], v[b]] += 1 / (m - 1)
    n_c, n = o.sum(1), o.sum()
    d_o = (o[0, 1] + o[1, 0]) / n
    d_e = 2 * n_c[0] * n_c[1] / (n * (n - 1))
    return 1 - d_o / d_e


@pytest.mark.parametrize("accuracy", [0.97, 0.8, 0.62])
def test_the_statistic_is_krippendorffs_alpha(accuracy):
    df, _ = simulate_raters(np.random.default_rng(3), n=500, accuracy=(accuracy,) * 3)
    row = _study(df, "majority").check()["label_agreement"].table.iloc[0]
    assert row["observed"] == pytest.approx(_alpha_by_hand(df), abs=1e-12)
    assert row["expected"] == MIN_ALPHA
    # and the GPL package, a test-time reference (make test installs it)
    ref = importlib.import_module("krippendorff").alpha(
        df[RATERS].to_numpy(float).T, level_of_measurement="nominal"
    )
    assert row["observed"] == pytest.approx(ref, abs=1e-12)


def test_raters_who_barely_agree_fail_the_majority_and_warn_the_latent_model():
    # alpha of three 62% raters is about (2 * 0.62 - 1)^2 = 0.06, far below 0.667
    df, _ = simulate_raters(np.random.default_rng(7), n=800, accuracy=(0.62,) * 3)
    majority = _study(df, "majority")
    report = majority.check(majority.fit("closed_form"))
    assert not report.passed and "label_agreement" in {r.check for r in report.failures}
    # the latent-truth model's fits (any fit of that study: built here from known draws,
    # as the check reads only which truth the study takes)
    latent = _study(df, "latent")
    fit = AccuracyFit("nuts", tree({"posterior": {"theta": np.full((2, 50, 2), 0.5)}}))
    res = latent.check(fit)["label_agreement"]
    assert res.table.iloc[0]["flagged"] and not res.relevant
    assert latent.check(fit).passed  # flagged, but not an assumption of this fit


def test_raters_who_agree_pass():
    # alpha of three 97% raters is about (2 * 0.97 - 1)^2 = 0.88: a one-sided test of
    # alpha >= 0.667 at 0.01 passes in all but a sliver of data sets
    passed = 0
    for seed in range(10):
        df, _ = simulate_raters(np.random.default_rng(seed), n=600, accuracy=(0.97,) * 3)
        passed += bool(_study(df, "majority").check()["label_agreement"].passed)
    assert passed == 10


def test_one_rater_gives_no_row():
    df, _ = simulate_raters(np.random.default_rng(0), n=300)
    study = jb.AccuracyStudy.from_items(df, judge="judge", human="h0", system="system")
    assert "label_agreement" not in {r.check for r in study.check()} or (
        study.check()["label_agreement"].table.empty
    )
