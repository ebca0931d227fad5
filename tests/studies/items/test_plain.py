"""The plain items variant (judgebayes/studies/items/plain.py): compare and the forest plot
from one frame, the numpy log density Laplace uses against PyMC's, the Bayesian models
against the conjugate posterior (slow), and the contract's cases.
"""

import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.inference.nuts import interpreted
from tests.contract import ContractTests
from tests.helpers import systems_frame
from tests.plots import check_forest, title


def test_compare_table_and_forest_plot_from_one_frame():
    import matplotlib.pyplot as plt

    f = systems_frame(seed=12, systems=("a", "b"))
    study = jb.AccuracyStudy.from_items(f, system="system")
    table = study.compare(methods=("closed_form", "ppi_plus_plus", "labels_only", "exact"))
    methods = ["closed_form", "ppi_plus_plus", "labels_only", "exact"]
    assert list(table["method"].unique()) == methods
    assert set(table["quantity"]) == {"theta_items", "theta"}
    assert table["width"].notna().all()
    fits = [study.fit(m, random_seed=0) for m in ("closed_form", "exact")]
    pc = jb.plot_forest(fits)
    assert title(pc).startswith("theta_items")
    check_forest(pc, fits)
    plt.close("all")


# "shared" in the slow tier (38 s of compile); "per_system" keeps the check in the fast one
@pytest.mark.parametrize(
    "judge_rates", ["per_system", pytest.param("shared", marks=pytest.mark.slow)]
)
def test_numpy_log_density_laplace_uses_equals_pymcs_log_density(judge_rates):
    # the reference is PyMC's own compiled log density and gradient of the same model
    # (jacobian included), at random points; informative priors test the constants
    from pymc.blocking import DictToArrayBijection, RaveledVars

    from judgebayes.models.accuracy import AccuracyPriors

    rng = np.random.default_rng(5)
    f = systems_frame(n=300, labelled=40).assign(stratum=lambda d: rng.choice(["x", "y"], len(d)))
    priors = AccuracyPriors(theta=(2.0, 3.0), q0=(3.0, 1.5), q1=(4.0, 2.0))
    study = jb.AccuracyStudy.from_items(
        f, system="system", stratum="stratum", judge_rates=judge_rates, priors=priors
    )
    spec = study.model_spec()
    model, dens = spec.build(), spec.density()
    start = DictToArrayBijection.map(model.initial_point())
    # the same start (PyMC computes its logit in float32 here: 0.69314727 for log 2)
    np.testing.assert_allclose(dens.x0, start.data, atol=1e-6)
    with interpreted() as kw:  # NumPy per node: the same numbers, nothing compiled
        logp = model.compile_logp(jacobian=True, **kw)
        dlogp = model.compile_dlogp(jacobian=True, **kw)
    xs = rng.normal(0.0, 1.5, (4, dens.size))
    ref = []
    for x in xs:
        pt = DictToArrayBijection.rmap(RaveledVars(x, start.point_map_info))
        ref.append(float(logp(pt)))
        np.testing.assert_allclose(dens.grad(x), dlogp(pt), atol=1e-8)
    # PyMC folds the priors' log B(a, b) in float32 (3e-7 off); differences cancel it
    np.testing.assert_allclose(dens.logp(xs), ref, rtol=1e-8)
    np.testing.assert_allclose(np.diff(dens.logp(xs)), np.diff(ref), atol=1e-8)
    np.testing.assert_allclose(dens.logp(xs), [dens.logp(x) for x in xs])  # vectorised
    out = dens.expand(xs)
    th = out["theta_stratum"]
    assert th.shape == (4, 3, 2) and out["q0"].shape == (
        (4, 2) if judge_rates == "shared" else (4, 3, 2)
    )
    share = spec.data["share"]
    np.testing.assert_allclose(out["theta"], (share * th).sum(-1))


@pytest.mark.slow
def test_bayesian_items_model_matches_the_conjugate_posterior_and_covers():
    # Laplace and NUTS on the items model (theta, q0, q1 parametrisation) against the
    # conjugate (p, a, b) posterior: with 300 labels the priors differ negligibly.
    # Coverage over 60 replicates of the reference simulation: MC sd 0.028 at 0.95.
    hits = {"laplace": [], "nuts": []}
    for r in range(60):
        sim = jb.simulate.simulate_items(seed=r)
        study = jb.AccuracyStudy.from_items(sim.frame, estimand="process")
        ex = study.fit("exact", random_seed=r).interval().iloc[0]
        for m in hits:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = study.fit(m, random_seed=r)
            iv = fit.interval().iloc[0]
            if r < 5:
                assert abs(iv["estimate"] - ex["estimate"]) < 0.005
                assert abs((iv["upper"] - iv["lower"]) - (ex["upper"] - ex["lower"])) < 0.01
            hits[m].append(iv["lower"] <= sim.theta <= iv["upper"])
    for m, h in hits.items():
        assert 0.87 <= np.mean(h) <= 1.0, (m, np.mean(h))


@pytest.mark.slow
def test_shared_judge_rates_narrow_small_systems():
    f = systems_frame(seed=21, n=400, labelled=30, systems=("a", "b", "c", "d"))
    per = jb.AccuracyStudy.from_items(f, system="system").fit("nuts", random_seed=0)
    shared = jb.AccuracyStudy.from_items(f, system="system", judge_rates="shared").fit(
        "nuts", random_seed=0
    )
    w = lambda fit: (fit.interval()["upper"] - fit.interval()["lower"]).mean()  # noqa: E731
    assert w(shared) < w(per)
    assert per.diagnostics.passed and shared.diagnostics.passed


class TestContract(ContractTests):
    keys = ("items.plain",)
