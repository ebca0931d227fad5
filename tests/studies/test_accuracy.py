"""Bayesian accuracy models: NUTS vs the exact reference, Laplace, recovery, the gate.

Each model structure is compiled once per test session (the engines cache compiled
models; the fixtures below reuse them), because compiling, not sampling, dominates time.
"""

import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import (
    ConvergenceWarning,
    EmptyClassError,
    InputError,
    LaplaceError,
    MethodRefused,
)
from judgebayes.inference.nuts import interpreted
from judgebayes.studies import STUDIES
from tests.contract import EXAMPLES, SMALL, ContractTests
from tests.plots import check_forest, title

NUTS = dict(draws=1000, tune=1000, chains=4)


@pytest.fixture(scope="session")
def one_system():
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    return study, study.fit("nuts", random_seed=11, sampler=NUTS)


@pytest.fixture(scope="session")
def three_systems():
    # counts at their expected values: recovery without sampling noise (a noisy shared
    # calibration set shifts every system the same way, which is the model, not a failure)
    truth = {"A": 0.5, "B": 0.6, "C": 0.8}
    q0, q1, n = 0.8, 0.9, 4000
    k = [round(n * (t * q1 + (1 - t) * (1 - q0))) for t in truth.values()]
    study = jb.AccuracyStudy.from_counts(
        k=k,
        n=[n] * 3,
        tn=round(400 * q0),
        m0=400,
        tp=round(400 * q1),
        m1=400,
        systems=list(truth),
    )
    return truth, study, study.fit("nuts", random_seed=3, sampler=NUTS)


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


def test_several_systems_recovery_and_contrasts(three_systems):
    truth, study, fit = three_systems
    iv = fit.interval(0.01)
    for s, t in truth.items():
        assert iv.loc[s, "lower"] <= t <= iv.loc[s, "upper"]
    con = fit.contrasts()
    ca = con[(con["a"] == "C") & (con["b"] == "A")].iloc[0]
    assert ca["p_a_greater"] > 0.99
    best = fit.prob_best()
    assert best.idxmax() == "C" and best.sum() == pytest.approx(1.0)
    with pytest.raises(InputError):
        study.fit("closed_form").contrasts()


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_strata_recovery():
    rng = np.random.default_rng(8)
    strata = ("short", "long")
    q0 = {"short": 0.9, "long": 0.6}  # the judge is lenient on long answers
    q1 = {"short": 0.9, "long": 0.95}
    theta = {"short": 0.3, "long": 0.7}
    n = {"short": 3000, "long": 1000}
    k = [[rng.binomial(n[s], theta[s] * q1[s] + (1 - theta[s]) * (1 - q0[s])) for s in strata]]
    cal = jb.io.CalibrationCounts(
        tp=[rng.binomial(150, q1[s]) for s in strata],
        m1=[150, 150],
        tn=[rng.binomial(150, q0[s]) for s in strata],
        m0=[150, 150],
        strata=strata,
    )
    test = jb.io.TestCounts(k=k, n=[[n[s] for s in strata]], n_missing=[[0, 0]], strata=strata)
    study = jb.AccuracyStudy(test, cal)
    assert study.kind == "strata"
    fit = study.fit("nuts", random_seed=2, sampler={**NUTS, "target_accept": 0.95})
    true_overall = (3000 * 0.3 + 1000 * 0.7) / 4000
    iv = fit.interval(0.01).iloc[0]
    assert iv["lower"] <= true_overall <= iv["upper"]
    assert fit.diagnostics.divergences == 0
    # the gate ran on every free variable: non-centred offsets and per-stratum rates too
    assert {"z_q0", "z_q1", "theta_stratum", "sigma_q0"} <= set(fit.diagnostics.var_names)
    cf = study.fit("closed_form").interval(0.01).iloc[0]
    assert cf["lower"] <= true_overall <= cf["upper"]
    # pooling everything into one confusion matrix mis-corrects (the invariance failure)
    pooled = (
        jb.AccuracyStudy(jb.io.TestCounts.from_arrays(int(np.sum(k)), 4000), cal.pooled())
        .fit("closed_form")
        .interval()
        .iloc[0]
    )
    assert abs(pooled["estimate"] - true_overall) > abs(iv["estimate"] - true_overall)


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_multiclass_recovery():
    rng = np.random.default_rng(5)
    classes = ("bad", "ok", "good")
    C = np.array([[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.02, 0.18, 0.8]])
    pi = np.array([0.2, 0.3, 0.5])
    conf = np.stack([rng.multinomial(200, C[i]) for i in range(3)])
    test = rng.multinomial(5000, pi @ C)
    study = jb.AccuracyStudy.from_multiclass_counts(conf, test, classes=classes)
    fit = study.fit("nuts", random_seed=1, sampler=NUTS)
    iv = fit.interval(0.01)
    for i, c in enumerate(classes):
        assert iv.loc[("all", c), "lower"] <= pi[i] <= iv.loc[("all", c), "upper"]
    cf = study.fit("closed_form").interval(0.01)
    assert np.allclose(cf["estimate"].sum(), 1.0)
    assert np.all(np.abs(cf["estimate"].values - iv["estimate"].values) < 0.05)


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


def test_mirror_probability_against_monte_carlo():
    # independent reference: (q0, q1) from their calibration Beta posteriors, theta
    # uniform, weighted by the test likelihood; 400,000 draws give Monte-Carlo sd < 0.002
    from scipy import stats

    from judgebayes.inference.accuracy.exact import mirror_probability

    rng = np.random.default_rng(0)
    N = 400_000
    for k, n, tp, m1, tn, m0 in ((96, 120, 4, 6, 3, 6), (30, 90, 5, 6, 2, 3), (0, 0, 2, 4, 1, 4)):
        q0 = rng.beta(1 + tn, 1 + m0 - tn, N)
        q1 = rng.beta(1 + tp, 1 + m1 - tp, N)
        th = rng.random(N)
        w = stats.binom.pmf(k, n, th * q1 + (1 - th) * (1 - q0))
        ref = np.sum(w * (q0 + q1 < 1)) / np.sum(w)
        assert mirror_probability(k, n, tp, m1, tn, m0) == pytest.approx(ref, abs=0.01)


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


def test_bad_inputs():
    import pandas as pd

    with pytest.raises(EmptyClassError):
        jb.AccuracyStudy.from_counts(k=5, n=10, tn=0, m0=0, tp=5, m1=10)
    test = pd.DataFrame({"judge": [1, 0, 1], "len": ["short", "long", "huge"]})
    cal = pd.DataFrame(
        {"human": [1, 0, 1, 0], "judge": [1, 0, 0, 0], "len": ["short"] * 2 + ["long"] * 2}
    )
    with pytest.raises(InputError, match="'huge'"):
        jb.AccuracyStudy.from_frames(test, cal, stratum="len")
    s = jb.AccuracyStudy.from_counts(k=[1, 2], n=[10, 10], tn=7, m0=10, tp=9, m1=10)
    with pytest.raises(MethodRefused, match="one system"):
        s.fit("exact")
    with pytest.raises(InputError, match="method"):
        s.fit("bootstrap")
    with pytest.raises(InputError, match="kind"):
        s.fit("closed_form").interval(kind="wide")


def test_laplace_hessian_matches_pytensor_exact_hessian():
    # the Laplace engine differences the compiled gradient; the reference is PyTensor's
    # symbolic Hessian of the same model (slow to compile, so only here)
    from pymc.blocking import DictToArrayBijection, RaveledVars

    from judgebayes.inference.laplace import hessian

    study = jb.AccuracyStudy.from_counts(k=[620, 40], n=[1000, 100], tn=70, m0=100, tp=90, m1=100)
    model = study.model_spec().build()
    with interpreted() as kw:  # NumPy per node: the same numbers, nothing compiled
        dlogp = model.compile_dlogp(jacobian=True, **kw)
        d2logp = model.compile_d2logp(jacobian=True, negate_output=False, **kw)
    ip = model.initial_point()
    info = DictToArrayBijection.map(ip).point_map_info
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = DictToArrayBijection.map(ip).data + rng.normal(0, 0.5, 4)
        pt = DictToArrayBijection.rmap(RaveledVars(x, info))
        exact = np.asarray(d2logp(pt))
        fd = hessian(
            lambda u: np.asarray(dlogp(DictToArrayBijection.rmap(RaveledVars(u, info)))), x
        )
        # central differences at step eps^(1/3): error ~ eps^(2/3) * |third derivative|
        np.testing.assert_allclose(fd, exact, rtol=1e-6, atol=1e-6 * np.abs(exact).max())


# --------------------------------------------------- Laplace against NUTS where offered
def _laplace_vs_nuts(study, seed=0):
    """Largest gap between Laplace's and NUTS' 95% interval ends of the reported
    quantity, and the NUTS fit."""
    nuts = study.fit("nuts", random_seed=seed)
    lap = study.fit("laplace", random_seed=seed)
    cols = ["lower", "upper"]
    return float((lap.interval()[cols] - nuts.interval()[cols]).abs().to_numpy().max()), nuts


def test_laplace_matches_nuts_on_the_k_class_model():
    # Laplace interval ends within 0.03 of NUTS wherever Laplace is offered.
    # Measured on these data: 0.0015-0.0060 over Laplace seeds 0-2 (k-hat 0.47-0.57, so
    # the importance weights correct the Gaussian); NUTS passes the gate.  The MC error of
    # a 2.5% quantile from 4000 draws is ~0.002, so 0.03 is 5x the measured gap.
    rng = np.random.default_rng(5)
    C = np.array([[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.02, 0.18, 0.8]])
    conf = np.stack([rng.multinomial(200, C[i]) for i in range(3)])
    test = rng.multinomial(5000, np.array([0.2, 0.3, 0.5]) @ C)
    study = jb.AccuracyStudy.from_multiclass_counts(conf, test, classes=("bad", "ok", "good"))
    gap, nuts = _laplace_vs_nuts(study, seed=1)
    assert nuts.diagnostics.passed
    assert gap < 0.03, gap


@pytest.mark.slow
@pytest.mark.parametrize("design", ["random", "shifted"])
def test_laplace_matches_nuts_on_the_random_and_shifted_designs(design):
    # the same check for the binary model's other two calibration designs, on a data set
    # away from the boundary (q0, q1 well above chance, 200 labels)
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100, design=design)
    gap, nuts = _laplace_vs_nuts(study)
    assert nuts.diagnostics.passed
    assert gap < 0.03, gap


def test_the_pooled_strata_model_refuses_laplace_by_name():
    strata = ("a", "b")
    cal = jb.io.CalibrationCounts(
        tp=[90, 80], m1=[100, 100], tn=[80, 60], m0=[100, 100], strata=strata
    )
    test = jb.io.TestCounts(k=[[500, 300]], n=[[1000, 500]], n_missing=[[0, 0]], strata=strata)
    with pytest.raises(MethodRefused, match="method='nuts'") as e:
        jb.AccuracyStudy(test, cal).fit("laplace")
    assert (e.value.field, e.value.value) == ("method", "laplace")


def test_warm_refit_data_equal_pymcs():
    """A warm refit of a model whose data are the spec's own arrays swaps them in without
    building the model: they equal what the built model holds (dtype included)."""
    from judgebayes.inference.nuts.compile import _facts, data_values

    counts = dict(tn=70, m0=100, tp=90, m1=100)
    two = jb.AccuracyStudy.from_counts(k=[620, 300], n=[1000, 900], systems=["a", "b"], **counts)
    spec = two.model_spec()
    facts = _facts(spec.build(), spec, set(spec.data))
    assert facts.data is not None and facts.free == ("theta", "u0", "u1")
    for name, value in data_values(spec.build()).items():
        np.testing.assert_array_equal(np.asarray(spec.data[name], facts.data[name]), value)
        assert np.asarray(spec.data[name], facts.data[name]).dtype == value.dtype


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("accuracy.binary", "accuracy.strata", "accuracy.multiclass", "accuracy.replicates")


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


def test_replicate_fits_mark_an_undefined_replicate(mock_nuts):
    # a replicate without data is NaN and counted in the notes, by every method: NUTS's
    # trace is prior draws (what is tested is what the fit makes of a replicate)
    rs = EXAMPLES["accuracy.replicates"]()
    for m in ("closed_form", "laplace", "nuts"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            f = rs.fit(m, random_seed=0, **({"sampler": SMALL} if m == "nuts" else {}))
        iv = f.interval()
        assert iv.loc["2"].isna().all()  # no test item: NaN, counted in notes
        assert iv.loc[["0", "1"]].notna().all().all()
        assert any("1 of 3 replicates" in n for n in f.notes)
    with pytest.raises(InputError, match="ReplicateStudy"):
        EXAMPLES["accuracy.replicates"]().fit("exact")


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
