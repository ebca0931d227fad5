"""The binary accuracy variant (judgebayes/studies/accuracy/binary.py): NUTS against the exact
posterior, compare and the forest plot, identical seeds, Laplace in large samples and at the
boundary, the gate, the calibration designs, better than chance by default and the mirror
case, the better-than-chance mass against Monte-Carlo, and the contract's cases (with the
trees, checks and LOO of its NUTS fit).
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import ConvergenceWarning, InputError, LaplaceError, MethodRefused
from judgebayes.studies import STUDIES
from tests.contract import SMALL, ContractTests
from tests.helpers import NUTS, laplace_vs_nuts
from tests.plots import check_forest, title


def test_better_than_chance_mass_against_monte_carlo_and_a_closed_form():
    """The refusal check's P(q0 + q1 > 1) under the calibration-only Betas.  References:
    Monte-Carlo (400,000 draws: sd <= 0.0008, tolerance 0.004 = 5 sd) on small counts, and
    at a million labels per class, where scipy's adaptive quad of the density form (the
    previous rule) returned 0 for q1 ~ 1, q0 ~ 0.25 (mass 1) and 0.05 for the case below,
    whose closed form is 0.25: with tp = 0 of 1e6 and tn = 1e6 - 1 of 1e6, q1 ~ Exp(1e6)
    and 1 - q0 ~ Gamma(2, 1e6) in the limit, so P(q1 > 1 - q0) = (1 / 2)^2."""
    from judgebayes.studies.accuracy import better_than_chance_mass

    rng = np.random.default_rng(0)
    for tp, m1, tn, m0 in ((4, 6, 3, 6), (1, 2, 0, 2), (30, 100, 60, 100), (5, 20, 2, 5)):
        q1 = rng.beta(1 + tp, 1 + m1 - tp, 400_000)
        q0 = rng.beta(1 + tn, 1 + m0 - tn, 400_000)
        assert better_than_chance_mass(tp, m1, tn, m0) == pytest.approx(
            np.mean(q0 + q1 > 1), abs=0.004
        )
    m = 10**6
    assert better_than_chance_mass(0, m, m - 1, m) == pytest.approx(0.25, abs=1e-3)
    assert better_than_chance_mass(m, m, m // 4, m) == pytest.approx(1.0, abs=1e-9)


@pytest.fixture(scope="session")
def one_system():
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    return study, study.fit("nuts", random_seed=11, sampler=NUTS)


def test_nuts_matches_exact(one_system):
    study, fit = one_system
    exact = study.fit("exact", random_seed=0)
    ex = exact.interval(0.05).iloc[0]
    nu = fit.interval(0.05).iloc[0]
    # Monte-Carlo error of NUTS quantiles from ArviZ (mcse of the 2.5%/97.5% quantiles);
    # 4 MCSE plus 2e-4 for the quadrature error of the exact reference (64 nodes)
    import arviz as az

    lo_se = float(
        az.mcse(fit.idata, var_names=["theta"], method="quantile", prob=0.025)[
            "theta"
        ].values.item()
    )
    hi_se = float(
        az.mcse(fit.idata, var_names=["theta"], method="quantile", prob=0.975)[
            "theta"
        ].values.item()
    )
    mean_se = float(az.mcse(fit.idata, var_names=["theta"], method="mean")["theta"].values.item())
    assert abs(nu["lower"] - ex["lower"]) <= 4 * lo_se + 2e-4
    assert abs(nu["upper"] - ex["upper"]) <= 4 * hi_se + 2e-4
    assert abs(nu["estimate"] - ex["estimate"]) <= 4 * mean_se + 2e-4
    assert fit.diagnostics.passed


def test_compare_table_and_ppc(one_system):
    study, fit = one_system
    cf = study.fit("closed_form")
    lap = study.fit("laplace", random_seed=0)
    table = jb.compare([cf, lap, fit])
    pc = jb.plot_forest([cf, lap, fit])
    assert title(pc).startswith("theta")
    check_forest(pc, [cf, lap, fit])
    assert list(table["method"]) == ["closed_form", "laplace", "nuts"]
    assert set(jb.results.COMPARISON_COLUMNS) == set(table.columns)
    lr = jb.estimators.lang_reiczigel_interval(0.62, 0.7, 0.9, 1000, 100, 100)
    assert table.loc[0, "lower"] == pytest.approx(lr.lower)
    assert table.loc[2, "r_hat"] <= 1.01 and table.loc[2, "divergences"] == 0
    # hdi and equal-tailed both work; a point method returns its own interval for both
    assert cf.interval(kind="hdi").iloc[0]["lower"] == pytest.approx(lr.lower)
    h = fit.interval(kind="hdi").iloc[0]
    assert (
        h["upper"] - h["lower"]
        <= fit.interval().iloc[0].pipe(lambda r: r["upper"] - r["lower"]) + 1e-3
    )
    ppc = study.check(fit)["ppc"].table
    assert ppc.loc[0, "observed"] == 620 and ppc.loc[0, "p_value"] > 0.1
    jb.plot_intervals(table)


def test_identical_seeds_identical_numbers(one_system):
    study, fit = one_system
    again = study.fit("nuts", random_seed=11, sampler=NUTS)
    np.testing.assert_array_equal(
        again.idata.posterior["theta"].values, fit.idata.posterior["theta"].values
    )
    assert again.info["cache_hit"] is True  # refit on the compiled model
    l1 = study.fit("laplace", random_seed=5).idata.posterior["theta"].values
    l2 = study.fit("laplace", random_seed=5).idata.posterior["theta"].values
    np.testing.assert_array_equal(l1, l2)


def test_laplace_close_in_large_samples_different_at_boundary():
    big = jb.AccuracyStudy.from_counts(k=6200, n=10_000, tn=1400, m0=2000, tp=1800, m1=2000)
    ex = big.fit("exact", random_seed=0).interval().iloc[0]
    la = big.fit("laplace", random_seed=0).interval().iloc[0]
    # large samples: the posterior is close to normal; Laplace bounds agree to 0.005
    assert abs(ex["lower"] - la["lower"]) < 0.005 and abs(ex["upper"] - la["upper"]) < 0.005
    # boundary: naive rate below 1 - q0 puts theta at 0. The exact posterior piles up
    # against 0 (lower bound ~1e-3); the plain Gaussian cannot reach 0 and its interval is
    # centred too high (bounds off by > 0.01), and the importance check sees it: Laplace
    # is refused with a LaplaceError that names NUTS (k-hat 0.73-1.11 over seeds 0-5)
    edge = jb.AccuracyStudy.from_counts(k=280, n=1000, tn=70, m0=100, tp=90, m1=100)
    ex = edge.fit("exact", random_seed=0).interval().iloc[0]
    plain = edge.fit("laplace", random_seed=0, importance=False).interval().iloc[0]
    assert ex["lower"] < 0.01
    assert abs(plain["upper"] - ex["upper"]) > 0.01 or abs(plain["lower"] - ex["lower"]) > 0.01
    with pytest.raises(LaplaceError, match="nuts"):
        edge.fit("laplace", random_seed=0)


def test_gate_fires_on_a_bad_fit(one_system):
    study, _ = one_system
    with pytest.warns(ConvergenceWarning, match="ESS"):
        fit = study.fit("nuts", random_seed=0, sampler={"draws": 20, "tune": 10, "chains": 2})
    assert not fit.diagnostics.passed
    assert "ESS" in fit.diagnostics.message()


def test_designs_random_and_shifted():
    rand = jb.AccuracyStudy.from_counts(
        k=620, n=1000, tn=70, m0=100, tp=90, m1=100, design="random"
    )
    m = rand.build_model()
    assert "m1_obs" in m.named_vars and "theta_cal" not in m.named_vars
    shifted = jb.AccuracyStudy.from_counts(
        k=620, n=1000, tn=70, m0=100, tp=90, m1=100, design="shifted"
    )
    assert "theta_cal" in shifted.build_model().named_vars
    # random design: the calibration's human labels (m1/m = 0.5) also inform theta
    lap_r = rand.fit("laplace", random_seed=0).interval().iloc[0]
    lap_s = (
        jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
        .fit("laplace", random_seed=0)
        .interval()
        .iloc[0]
    )
    assert lap_r["upper"] - lap_r["lower"] < lap_s["upper"] - lap_s["lower"]
    with pytest.raises(InputError, match="one system"):
        jb.AccuracyStudy.from_counts(
            k=[1, 2], n=[10, 10], tn=7, m0=10, tp=9, m1=10, design="random"
        )


def test_better_than_chance_is_the_default_and_its_conflict_is_refused():
    s = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    m = s.build_model()
    assert {"u0", "u1", "q_prior"} <= set(m.named_vars)
    lap = s.fit("laplace", random_seed=0).idata.posterior
    assert float((lap["q0"] + lap["q1"]).min()) > 1
    worse = jb.AccuracyStudy.from_counts(k=50, n=100, tn=20, m0=100, tp=30, m1=100)
    with pytest.raises(MethodRefused, match="excludes the data") as e:
        worse.fit("laplace")
    assert e.value.field == "better_than_chance"
    # the closed form needs no prior: NaN with a note, no error
    with pytest.warns(jb.errors.MirrorWarning, match="favour a judge worse than chance"):
        notes = " ".join(worse.fit("closed_form").notes)
    assert "no better than chance" in notes and "P(q0 + q1 < 1 | data) = 1.00" in notes


def test_mirror_case_engines_agree_and_the_mass_is_reported():
    # a reported case: k = 96/120, tp 4/6, tn 3/6; 26% of the unrestricted mass has
    # q0 + q1 < 1.  Restricted (default): exact [0.118, 0.991].  Tolerances from the
    # acceptance criteria (0.03 NUTS, 0.08 Laplace); the Monte-Carlo sd of a 2.5% quantile
    # of this flat posterior is ~0.01 at 4000 NUTS draws and ~0.015 at Laplace's
    # importance ESS (~1700), so the bounds are > 2 sd inside them.
    s = jb.AccuracyStudy.from_counts(96, 120, 3, 6, 4, 6)
    fits = {}
    for m in ("exact", "laplace", "nuts"):
        with pytest.warns(jb.errors.MirrorWarning, match="0.26"):
            fits[m] = s.fit(m, random_seed=1, **({"sampler": NUTS} if m == "nuts" else {}))
    ex = fits["exact"].interval().iloc[0]
    assert (ex["lower"], ex["upper"]) == pytest.approx((0.118, 0.991), abs=1e-3)
    for m, tol in (("nuts", 0.03), ("laplace", 0.08)):
        iv = fits[m].interval().iloc[0]
        assert abs(iv["lower"] - ex["lower"]) < tol and abs(iv["upper"] - ex["upper"]) < tol, m
        assert fits[m].info["p_mirror"] == pytest.approx(0.263, abs=1e-3)
        assert any("worse than chance" in n for n in fits[m].notes)
    assert fits["nuts"].diagnostics.passed
    # unrestricted: the exact posterior is bimodal and Laplace refuses (k-hat 0.79)
    free = jb.AccuracyStudy.from_counts(96, 120, 3, 6, 4, 6, better_than_chance=False)
    with pytest.warns(jb.errors.MirrorWarning):
        lo = free.fit("exact").interval().iloc[0]["lower"]
    assert lo < 0.05
    with pytest.raises(LaplaceError, match="nuts"):
        free.fit("laplace", random_seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("design", ["random", "shifted"])
def test_laplace_matches_nuts_on_the_random_and_shifted_designs(design):
    # the same check for the binary model's other two calibration designs, on a data set
    # away from the boundary (q0, q1 well above chance, 200 labels)
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100, design=design)
    gap, nuts = laplace_vs_nuts(study)
    assert nuts.diagnostics.passed
    assert gap < 0.03, gap


def test_nuts_trees_carry_the_groups_arviz_reads(mock_fits):
    # the groups the code around the sampler adds to a trace: prior draws for a posterior
    key = "accuracy.binary"
    import arviz as az

    fit = mock_fits[(key, "nuts")]
    assert {"posterior", "sample_stats", "observed_data", "log_likelihood", "prior"} <= set(
        fit.idata.children
    )
    # the posterior predictive of every observed variable, for arviz-plots' plot_ppc_*
    assert set(fit.idata.posterior_predictive.data_vars) == {"k_obs", "tp_obs", "tn_obs"}
    assert fit.idata.posterior_predictive.sizes["draw"] == SMALL["draws"]
    assert "prior_predictive" in fit.idata.children
    assert fit.idata.prior.sizes["draw"] == 200
    # only the model's named variables and their dims: no transformed variable's own dim
    dims = set(fit.idata.posterior.dims)
    assert not any("__" in d for d in dims), dims
    loo = az.loo(fit.idata, var_name="k_obs")  # the test counts; tp_obs, tn_obs also there
    assert np.isfinite(loo.elpd)


def test_check_gathers_every_check_that_applies(studies, mock_fits):
    # which checks run, not what they find: prior draws for a posterior
    key = "accuracy.binary"
    binary = studies[key]
    acc = binary.check(mock_fits[(key, "nuts")])
    assert {r.check for r in acc} == {"transfer", "ppc"}
    assert list(acc.table.columns[:7]) == list(jb.checks.CHECK_COLUMNS)
    assert all(r.policy == jb.checks.POLICY for r in acc)
    # the data-only check runs without a fit; a point fit adds nothing
    assert {r.check for r in binary.check()} == {"transfer"}
    assert {r.check for r in binary.check(mock_fits[(key, "closed_form")])} == {"transfer"}
    # every registered check applies to some registered study
    keys = {k for c in STUDIES.values() for k in c.keys()}
    for check in jb.checks.registered().values():
        assert set(check.applies_to) <= keys, check.name


def test_loo_compares_accuracy_fits_on_all_their_observations(mock_fits):
    # the accuracy model keeps one log-likelihood per observed count (test, calibration):
    # az.compare failed on it ("Encountered error trying to compute ELPD"); the table's
    # shape is tested, on prior draws
    fit = mock_fits[("accuracy.binary", "nuts")]
    assert len(fit.idata["log_likelihood"].data_vars) > 1
    table = jb.compare_loo({"a": fit, "b": fit})
    assert list(table.index) == ["a", "b"] and table["elpd_diff"].abs().max() < 1e-9
    one = jb.compare_loo({"a": fit, "b": fit}, var_name="k_obs")
    assert one.loc["a", "elpd"] > table.loc["a", "elpd"]  # fewer observations' log density
    with pytest.raises(jb.InputError) as err:
        jb.compare_loo({"a": fit, "b": fit}, var_name="nope")
    assert err.value.field == "var_name"


class TestContract(ContractTests):
    keys = ("accuracy.binary",)
