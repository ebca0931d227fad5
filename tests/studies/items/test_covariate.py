"""Judge rates given a covariate (judgebayes/studies/items/covariate.py): the model's log
density against the likelihood written out in scipy, a length shift corrected, a covariate
the judge ignores changing nothing, the command line's flags, and the contract's cases.
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.inference.nuts import interpreted
from tests.contract import ContractTests
from tests.helpers import cli
from tests.simulators import lenient_on_long


@pytest.mark.parametrize("judge_rates", ["shared", "pooled"])
def test_covariate_model_log_density_is_the_items_likelihood_written_out(judge_rates):
    # the model's log density at random points against the likelihood and priors written
    # here in scipy, on the constrained values PyMC reports at those points
    from scipy import stats
    from scipy.special import expit, logit

    f, _ = lenient_on_long(1, n=60, n_lab=20)
    study = jb.AccuracyStudy.from_items(
        f, system="system", covariates="length", judge_rates=judge_rates
    )
    model = study.build_model()
    with interpreted() as kw:  # NumPy per node: the same numbers, nothing compiled
        values = model.compile_fn(model.unobserved_value_vars, inputs=model.value_vars, **kw)
        logp = model.compile_logp(jacobian=False, **kw)
    d = study.data
    z = (d.covariates[:, 0] - d.covariates[:, 0].mean()) / d.covariates[:, 0].std()
    rng = np.random.default_rng(3)
    for _ in range(3):
        point = {k: v + rng.normal(0, 0.7, np.shape(v)) for k, v in model.initial_point().items()}
        c = dict(zip([v.name for v in model.unobserved_value_vars], values(point), strict=True))
        eta = logit(c["theta_stratum"][d.system, 0]) + z * c["rate_coef"][d.system, 0]
        if judge_rates == "shared":
            i1, i0 = logit(c["q1"][0]), logit(c["q0"][0])
            judge_prior = stats.uniform.logpdf([c["q0"], c["q1"]]).sum()
        else:  # per-system intercepts = the judge's typical logit + spread x N(0, 1)
            i1, i0 = (
                logit(c[f"q{r}_mean"][0]) + c[f"q{r}_sigma"] * c[f"q{r}_system"][d.system, 0]
                for r in (1, 0)
            )
            judge_prior = sum(
                stats.uniform.logpdf(c[f"q{r}_mean"]).sum()
                + stats.halfnorm(scale=1).logpdf(c[f"q{r}_sigma"])
                + stats.norm.logpdf(c[f"q{r}_system"]).sum()
                for r in (0, 1)
            )
        e1 = i1 + z * c["q1_coef"][0]
        e0 = i0 + z * c["q0_coef"][0]
        p_v1 = np.where(d.judge == 1, expit(e1), 1 - expit(e1))
        p_v0 = np.where(d.judge == 1, 1 - expit(e0), expit(e0))
        pos, neg = expit(eta) * p_v1, (1 - expit(eta)) * p_v0
        lab = d.labelled
        lik = np.sum(np.log(np.where(d.human[lab] == 1, pos[lab], neg[lab])))
        lik += np.sum(np.log(pos[~lab] + neg[~lab]))
        prior = (
            stats.beta(0.5, 0.5).logpdf(c["theta_stratum"]).sum()
            + stats.norm(0, 1).logpdf(c["rate_coef"]).sum()
            + stats.norm(0, 1).logpdf(c["q0_coef"]).sum()
            + stats.norm(0, 1).logpdf(c["q1_coef"]).sum()
            + judge_prior
        )
        np.testing.assert_allclose(logp(point), lik + prior, rtol=1e-9)


def test_judge_rates_shared_through_a_covariate_correct_a_length_shift():
    # B's answers are longer and the judge is lenient on long answers: constant shared
    # rates are wrong for both systems; rates shared as a function of length are not.
    # Over 100 sets (BENCHMARKS, misspecification, shift) the plain shared fit covered
    # A - B in few sets and the covariate fit at nominal; here one seeded set: the
    # covariate fit covers both rates and the difference, the plain fit misses the
    # difference, and the check flags the plain study only
    f, truth = lenient_on_long(4)
    kw = dict(system="system", judge_rates="shared")
    plain = jb.AccuracyStudy.from_items(f, **kw)
    given = jb.AccuracyStudy.from_items(f, covariates="length", **kw)
    fit = given.fit("nuts", random_seed=4)
    assert fit.diagnostics.passed
    iv = fit.interval()
    for s in ("A", "B"):
        assert iv.loc[s, "lower"] <= truth[s] <= iv.loc[s, "upper"], (s, truth, iv)
    d = truth["A"] - truth["B"]

    def covers(fit):
        c = fit.contrasts().iloc[0]
        sign = 1 if c["a"] == "A" else -1
        return bool(c["lower"] <= sign * d <= c["upper"])

    assert covers(fit)
    assert not covers(plain.fit("nuts", random_seed=4))
    assert not plain.check().passed
    assert given.check().passed
    assert "given length" in given.check().table.query("check == 'self_preference'")["unit"].iloc[0]


def test_a_covariate_the_judge_ignores_changes_nothing():
    # the covariate model with a pure-noise covariate against the constant-rates model on
    # the same items: two code paths, one answer.  Tolerance: both are 4,000 draws
    # (MC sd of a mean ~ sd / 40), so the means agree to 0.15 sd and the sds to 15%,
    # plus what the three N(0, 1) slopes add (they are learnt near 0 here)
    f, _ = lenient_on_long(5, follows=False)
    f["length"] = np.random.default_rng(9).normal(size=len(f))
    kw = dict(system="system", judge_rates="shared")
    plain = jb.AccuracyStudy.from_items(f, **kw).fit("nuts", random_seed=5)
    given = jb.AccuracyStudy.from_items(f, covariates="length", **kw).fit("nuts", random_seed=5)
    for s in ("A", "B"):
        a = plain.idata.posterior["theta_items"].sel(system=s).values.ravel()
        b = given.idata.posterior["theta_items"].sel(system=s).values.ravel()
        assert abs(a.mean() - b.mean()) < 0.15 * a.std(), s
        assert abs(b.std() / a.std() - 1) < 0.15, s


def test_cli_covariate_reaches_the_model_and_is_refused_where_it_has_no_meaning(tmp_path):
    # the command line's --covariate / --judge-rates against the library on the same file
    # (same seed: the Laplace draws are identical), and one-line refusals
    import json

    f, _ = lenient_on_long(6, n=200, n_lab=60)
    path = tmp_path / "items.csv"
    f.to_csv(path, index=False)
    cmd = ["accuracy", str(path), "--system", "system", "--format", "json"]
    kw = ["--covariate", "length", "--judge-rates", "shared", "--method", "laplace"]
    out = cli(*cmd, *kw)
    assert out.returncode == 0, out.stderr
    got = {r["system"]: r for r in json.loads(out.stdout)["comparison"]}
    study = jb.AccuracyStudy.from_items(
        f, system="system", covariates="length", judge_rates="shared"
    )
    lap = study.fit("laplace", random_seed=0)
    assert any("beyond them is not modelled" in n for n in lap.notes), lap.notes
    ref = lap.interval()
    for s in ("A", "B"):
        assert got[s]["lower"] == pytest.approx(ref.loc[s, "lower"], abs=1e-12)
        assert got[s]["upper"] == pytest.approx(ref.loc[s, "upper"], abs=1e-12)
    for extra, needle in (
        (["--covariate", "words"], "'words'"),
        (["--calibration", str(path), "--covariate", "length"], "--covariate belongs"),
        (["--judge-rates", "some"], "--judge-rates"),
    ):
        bad = cli(*cmd, *extra)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
        assert needle in bad.stderr, bad.stderr


class TestContract(ContractTests):
    keys = ("items.covariates",)
