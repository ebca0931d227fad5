"""Check ``transfer`` (judgebayes/checks/accuracy/transfer.py): the judge's rates carry over
from the calibration to the test items, against the exact leave-one-stratum-out
Beta-binomial and a quadrature reference."""

import pytest

import judgebayes as jb
from tests.plots import title


def test_check_transfer_flags_rates_that_do_not_carry_over():
    from scipy import integrate, stats

    strata = ("short", "long")
    cal = jb.io.CalibrationCounts(
        tp=[90, 88], m1=[100, 100], tn=[90, 20], m0=[100, 100], strata=strata
    )
    test = jb.io.TestCounts(k=[[300, 500]], n=[[1000, 1000]], n_missing=[[0, 0]], strata=strata)
    t = jb.AccuracyStudy(test, cal).check()["transfer"].table.set_index(["unit", "count"])
    # the judge's specificity collapses on long answers: calibrated on "short", 20/100 has
    # predictive BetaBin(100, 91, 11), mean 89; the sensitivities agree (90 vs 88)
    assert t.loc[("long", "tn"), "flagged"] and t.loc[("long", "tn"), "p_value"] < 1e-6
    assert not t.loc[("long", "tp"), "flagged"] and not t.loc[("short", "tp"), "flagged"]
    ref = stats.betabinom(100, 91, 11)
    assert t.loc[("long", "tn"), "p_raw"] == pytest.approx(2 * ref.cdf(20))
    # Holm over the four rows: the smallest p-value times 4
    assert t.loc[("long", "tn"), "p_value"] == pytest.approx(min(1.0, 4 * 2 * ref.cdf(20)))
    # binary: with (nearly) known rates q0 = 0.7, q1 = 0.9 a judged rate must lie in
    # [0.3, 0.9]; reference: K ~ Bin(n, p), p uniform on [0.3, 0.9], by quadrature
    m = 1_000_000
    for k, flagged in ((600, False), (150, True)):
        s = jb.AccuracyStudy.from_counts(k, 1000, tn=700_000, m0=m, tp=900_000, m1=m)
        row = s.check()["transfer"].table.iloc[0]
        lo = integrate.quad(lambda p, k=k: stats.binom.cdf(k, 1000, p), 0.3, 0.9, points=[k / 1000])
        hi = integrate.quad(
            lambda p, k=k: stats.binom.sf(k - 1, 1000, p), 0.3, 0.9, points=[k / 1000]
        )
        ref_p = min(1.0, 2 * min(lo[0], hi[0]) / 0.6)
        # Monte-Carlo over 20,000 draws of p: relative error ~1-2% of the tail mass
        assert row["p_raw"] == pytest.approx(ref_p, rel=0.05, abs=1e-4)
        assert row["flagged"] == flagged


def test_transfer_predictive_draws_the_distributions_check_transfer_tests():
    """transfer_predictive's replicates of a stratum's count follow the leave-one-stratum-out
    Beta-binomial that check_transfer evaluates exactly; plot_check draws them through
    ArviZ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy import stats

    strata = ("short", "long")
    cal = jb.io.CalibrationCounts(
        tp=[90, 88], m1=[100, 100], tn=[90, 20], m0=[100, 100], strata=strata
    )
    test = jb.io.TestCounts(k=[[300, 500]], n=[[1000, 1000]], n_missing=[[0, 0]], strata=strata)
    study = jb.AccuracyStudy(test, cal)
    idata = study.transfer_predictive(draws=20_000, random_seed=1)
    rep = idata.posterior_predictive["tp"].sel(stratum="long").values.ravel()
    ref = stats.betabinom(100, 91, 11)  # calibrated on "short": 1 + 90 right, 1 + 10 wrong
    # Monte-Carlo: the mean of 20,000 draws has sd ~0.03 (BetaBin sd ~4.2); 4 sd
    assert rep.mean() == pytest.approx(ref.mean(), abs=0.12)
    # and the tail mass at the observed 88: sd sqrt(p(1-p)/20000) <= 0.0035; 4 sd
    assert (rep <= 88).mean() == pytest.approx(ref.cdf(88), abs=0.014)
    long_tn = idata.posterior_predictive["tn"].sel(stratum="long").values
    assert (long_tn <= 20).mean() < 1e-3  # the collapsed specificity: nothing reaches 20
    pc = jb.plot_check(idata, "tn", kind="tstat")
    assert title(pc).startswith("tn: predictive tstat")
    plt.close("all")
    binary = jb.AccuracyStudy.from_counts(600, 1000, tn=70, m0=100, tp=90, m1=100)
    assert binary.transfer_predictive(draws=100).posterior_predictive["k"].shape == (1, 100, 1)
