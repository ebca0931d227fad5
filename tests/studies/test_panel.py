"""Generator x validator panels: data contract, regression, ensembles, Bayesian model, CLI."""

import itertools
import json
import warnings
from math import comb

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.panel import panel_from_arrays, panel_from_items
from judgebayes.errors import ConvergenceWarning, CountError, InputError, MethodRefused
from judgebayes.inference.panel import ensembles as ens
from judgebayes.inference.panel.regression import fit_regression, regression_loss
from judgebayes.simulate.panel import simulate_panel
from judgebayes.studies.panel import HierarchicalPanel, PooledPanel, ValidatorPanel
from tests.contract import PANEL_DEFAULT, ContractTests
from tests.helpers import cli, run
from tests.plots import title


@pytest.fixture(scope="session")
def sim():
    return simulate_panel(seed=3, n_outputs=200)


# ------------------------------------------------------------------ data contract
def test_items_aggregate_with_missing_verdicts_counted():
    items = pd.DataFrame(
        {
            "output": ["a", "a", "a", "b", "b", "b", "c", "c", "c"],
            "generator": ["G1"] * 6 + ["G2"] * 3,
            "validator": ["V1", "V2", "V3"] * 3,
            "verdict": ["valid", "invalid", None, "valid", "valid", "valid", "no", "yes", ""],
            "human": ["valid", "valid", "valid", "invalid", None, "invalid", None, None, None],
        }
    )
    d = panel_from_items(items)
    assert d.generators == ("G1", "G2") and d.validators == ("V1", "V2", "V3")
    np.testing.assert_array_equal(d.n_judged, [[2, 2, 1], [1, 1, 0]])
    np.testing.assert_array_equal(d.n_valid, [[2, 1, 1], [0, 1, 0]])
    np.testing.assert_array_equal(d.n_missing, [[0, 0, 1], [0, 0, 1]])
    # output a is valid (human), b invalid: each counted once for the annotation
    np.testing.assert_array_equal(d.n_annotated, [2, 0])
    np.testing.assert_array_equal(d.n_valid_human, [1, 0])
    np.testing.assert_array_equal(d.tp, [[1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(d.fn, [[0, 1, 0], [0, 0, 0]])
    np.testing.assert_array_equal(d.fp, [[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(d.tn, [[0, 0, 0], [0, 0, 0]])
    assert np.isnan(d.rate[1, 2])  # a missing cell


def test_bad_inputs_are_named():
    nj = np.array([[10, 10], [10, 10]])
    nv = np.array([[9, 8], [7, 6]])
    with pytest.raises(CountError, match="n_valid 11 > n_judged 10") as e:
        panel_from_arrays(nj, np.array([[11, 8], [7, 6]]))
    assert e.value.field == "n_valid"
    with pytest.raises(InputError, match="no judged outputs"):
        panel_from_arrays(np.array([[10, 10], [0, 0]]), np.array([[9, 8], [0, 0]]))
    with pytest.raises(InputError, match="at least two validators"):
        panel_from_arrays(nj[:, :1], nv[:, :1])
    cells = pd.DataFrame(
        {"generator": ["A", "A", "B", "B"], "validator": ["x", "y", "x", "y"],
         "n_judged": [10, 10, 10, 10], "n_valid": [9, 8, 7, 6]}
    )  # fmt: skip
    ann = pd.DataFrame({"generator": ["C"], "n_annotated": [10], "n_valid_human": [9]})
    with pytest.raises(InputError, match="generator 'C' is not in the cells table"):
        ValidatorPanel.from_frames(cells, ann)
    with pytest.raises(CountError, match="n_valid_human"):
        ValidatorPanel.from_frames(cells, ann.assign(generator="A", n_valid_human=11))
    with pytest.raises(CountError, match="confusion counts"):
        ValidatorPanel.from_frames(cells.assign(tp=[9, 0, 0, 0], fp=[5, 0, 0, 0]))


def test_missing_cells_need_no_imputation(sim):
    d = sim.panel()
    nj = d.n_judged.copy()
    nv = d.n_valid.copy()
    nj[0, :5] = 0
    nv[0, :5] = 0
    p = ValidatorPanel.from_arrays(
        nj, nv, generators=d.generators, validators=d.validators,
        n_annotated=d.n_annotated, n_valid_human=d.n_valid_human,
    )  # fmt: skip
    r = p.fit("regression", random_seed=0)
    assert np.all(np.isfinite(r.estimate()))
    vm = p.fit("validator_mean")
    np.testing.assert_allclose(vm.estimate()[0], np.mean(nv[0, 5:] / nj[0, 5:]))


# ------------------------------------------------------------------ regression
def _loss_loop(x, P, obs, H, g_hat, tpr, tnr, lam=(2.0, 1.0, 10.0)):
    # the paper's Eqs. 2-3 written out cell by cell (independent reference)
    G, V = P.shape
    g, vp, vn = x[:G], x[G : G + V], x[G + V :]
    tot, C = 0.0, 0
    for i in range(G):
        for j in range(V):
            if obs[i, j]:
                ph = min(max(g[i] * vp[j] + (1 - g[i]) * (1 - vn[j]), 1e-9), 1 - 1e-9)
                tot -= P[i, j] * np.log(ph) + (1 - P[i, j]) * np.log(1 - ph)
                C += 1
    loss = tot / C
    if len(H):
        loss += lam[0] * np.sqrt(
            np.mean([(g[i] - gh) ** 2 for i, gh in zip(H, g_hat, strict=True)])
        )
        ok = np.isfinite(tpr)
        loss += lam[1] * np.sqrt(np.mean((vp[ok] - tpr[ok]) ** 2))
        ok = np.isfinite(tnr)
        loss += lam[2] * np.sqrt(np.mean((vn[ok] - tnr[ok]) ** 2))
    return loss


def test_regression_gradient_and_scipy_reference():
    from scipy import optimize

    from judgebayes.inference.panel.regression import calibration_targets

    small = simulate_panel(5, 4, n_outputs=150, n_annotated=3, seed=1).panel()
    P, obs = small.rate, small.n_judged > 0
    H, g_hat, tpr, tnr = calibration_targets(small)
    rng = np.random.default_rng(0)
    x = rng.uniform(0.2, 0.95, 5 + 8)
    loss, grad = regression_loss(x[None], P, obs, H, g_hat, tpr, tnr)
    assert loss[0] == pytest.approx(_loss_loop(x, P, obs, H, g_hat, tpr, tnr), rel=1e-12)
    h = 1e-6
    args = (P, obs, H, g_hat, tpr, tnr)
    fd = [
        (_loss_loop(x + h * e, *args) - _loss_loop(x - h * e, *args)) / (2 * h)
        for e in np.eye(x.size)
    ]
    np.testing.assert_allclose(grad[0], fd, atol=1e-6)
    # direct scipy reference: finite-difference L-BFGS-B, one restart at a time, keep best
    ours = fit_regression(small, restarts=5, seed=2)
    rng = np.random.default_rng(2)
    rowmean = np.nanmean(np.where(obs, P, np.nan), axis=1)
    best = np.inf
    for _ in range(5):
        x0 = np.concatenate([rowmean, 1 - rng.uniform(0, 0.1, 8)])
        r = optimize.minimize(
            _loss_loop, x0, args=(P, obs, H, g_hat, tpr, tnr), method="L-BFGS-B",
            bounds=[(0, 1)] * x0.size, options={"ftol": 1e-13, "gtol": 1e-9, "maxiter": 20000},
        )  # fmt: skip
        best = min(best, r.fun)
    # the stacked analytic fit reaches the reference optimum (to optimiser tolerance)
    assert ours.loss <= best + 1e-4
    assert ours.loss == pytest.approx(
        _loss_loop(np.r_[ours.g, ours.tpr, ours.tnr], P, obs, H, g_hat, tpr, tnr)
    )


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_regression_recovers_truth_with_constant_rates():
    s = simulate_panel(seed=7, rate_shift=0.0, difficulty_sd=0.0, n_outputs=1000)
    p = ValidatorPanel(s.panel())
    A = p.data.annotated
    errs = []
    for held in A:
        sub = p.with_data(p.data.calibrate_on(np.setdiff1d(A, [held])))
        f = sub.fit("regression", random_seed=0)
        errs.append(abs(f.estimate()[held] - s.precision[held]))
    # the cells carry g only through Youden's J = TPR + TNR - 1 ~ 0.26: the sd of the
    # validator mean over 14 x 1,000 verdicts (~0.0022) becomes ~0.009 in g; 5 sd for the
    # worst of six held-out generators, 2.5 sd for their mean
    assert max(errs) < 0.05 and np.mean(errs) < 0.025, errs


# ------------------------------------------------------------------ ensembles
def test_votes_treat_missing_votes_as_the_paper_says():
    items = pd.DataFrame(
        {
            "output": np.repeat(["a", "b"], 4),
            "generator": ["G"] * 4 + ["H"] * 4,
            "validator": ["v1", "v2", "v3", "v4"] * 2,
            # a: 2 valid, 1 invalid, 1 missing; b: 1 valid, 3 invalid
            "verdict": [
                "valid",
                "valid",
                "invalid",
                None,
                "valid",
                "invalid",
                "invalid",
                "invalid",
            ],
        }
    )
    d = panel_from_items(items, human=None)
    # majority with t = 3 needs 3 valid votes: the missing vote counts against a
    assert ens.vote(d, "majority", 3).tolist() == [0.0, 0.0]
    assert ens.vote(d, "majority", 2).tolist() == [1.0, 0.0]
    # veto with t = 2 needs 2 invalid votes: the missing vote counts for a
    assert ens.vote(d, "veto", 2).tolist() == [1.0, 0.0]
    assert ens.vote(d, "veto", 4).tolist() == [1.0, 1.0]


def test_plug_in_rogan_gladen_is_exact_on_expected_counts():
    g = np.array([0.9, 0.8, 0.95])
    vp = np.array([0.97, 0.9, 0.99])
    vn = np.array([0.3, 0.5, 0.2])
    n = 10_000
    P = g[:, None] * vp + (1 - g[:, None]) * (1 - vn)
    pos = np.round(np.outer(g * n, np.ones(3)))
    neg = n - pos
    tp = np.round(pos * vp)
    tn = np.round(neg * vn)
    d = panel_from_arrays(
        np.full((3, 3), n), np.round(P * n), n_annotated=[n, 0, 0], n_valid_human=[pos[0, 0], 0, 0],
        tp=np.where([[1], [0], [0]], tp, 0), fn=np.where([[1], [0], [0]], pos - tp, 0),
        tn=np.where([[1], [0], [0]], tn, 0), fp=np.where([[1], [0], [0]], neg - tn, 0),
    )  # fmt: skip
    np.testing.assert_allclose(ens.plug_in_rogan_gladen(d), g, atol=2e-4)


def test_baseline_methods_and_thresholds(sim):
    p = ValidatorPanel(sim.panel())
    for m in ("validator_mean", "best_individual", "majority", "super_majority", "veto", "plug_in"):
        f = p.fit(m)
        est = f.estimate()
        assert est.shape == (14,) and np.all((est >= 0) & (est <= 1))
    A = p.data.annotated
    t = p.fit("veto").info["threshold"]
    errs = {
        tt: np.max(np.abs(ens.vote(p.data, "veto", tt)[A] - p.data.human_precision[A]))
        for tt in range(1, 15)
    }
    assert errs[t] == min(errs.values())


# ------------------------------------------------------------------ leave-s-out
def test_cross_validate_bookkeeping(sim):
    p = ValidatorPanel(sim.panel())
    cv = p.cross_validate(s=range(6), methods=("validator_mean", "veto"))
    assert list(cv["n_subsets"][cv.method == "veto"]) == [comb(6, k) for k in range(6)]
    # the validator mean ignores annotations: the same MaxAE for every subset size's mean
    vm = cv[cv.method == "validator_mean"]
    A = p.data.annotated
    full = np.max(np.abs(ens.validator_mean(p.data)[A] - p.data.human_precision[A]))
    assert vm["worst_maxae"].max() == pytest.approx(full)
    sub = p.data.calibrate_on(A[:2])
    assert np.array_equal(sub.annotated, A[:2])
    assert sub.tp[A[2:]].sum() == 0 and sub.n_judged.sum() == p.data.n_judged.sum()
    with pytest.raises(InputError, match="s must be"):
        p.cross_validate(s=[6], methods=("veto",))
    # point methods have no gate: the failure columns are empty, not zero
    assert cv[["n_failed", "coverage_passed", "mean_maxae_passed"]].isna().all().all()


def test_cross_validate_counts_fits_that_miss_the_gate(shifted, mock_nuts):
    """A sweep of NUTS fits too short to converge (2 chains x 30 draws): every fit is
    counted as failed, the summaries over passed fits are empty, and the ones over all
    fits are still shown beside them; no warning per fit (the count is the report).
    The traces are prior draws: 60 of them cannot reach the gate's ESS either, and the
    counting, not the sampler, is tested."""
    # one model for every subset (the door would choose per subset)
    p = HierarchicalPanel(shifted.panel())
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        cv = p.cross_validate(
            s=[4], methods=("nuts",), sampler={"draws": 30, "tune": 30, "chains": 2}
        )
    row = cv.iloc[0]
    assert row["n_failed"] == row["n_subsets"] == 5  # 4 of the 5 annotated generators
    assert np.isnan(row["coverage_passed"]) and np.isnan(row["mean_maxae_passed"])
    assert 0 <= row["coverage"] <= 1 and np.isfinite(row["mean_maxae"])


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_paper_ordering_individual_majority_veto_regression():
    # constant-rate panel (the regression's assumption) at the paper's scale
    s = simulate_panel(seed=11, rate_shift=0.0, n_outputs=700, difficulty_sd=0.5)
    p = ValidatorPanel(s.panel())
    cv = p.cross_validate(
        s=[2, 3], methods=("best_individual", "majority", "veto", "regression", "validator_mean")
    ).set_index(["method", "s"])["mean_maxae"]
    for k in (2, 3):
        assert cv[("regression", k)] < cv[("veto", k)] <= cv[("majority", k)] + 1e-9
        assert cv[("veto", k)] < cv[("best_individual", k)]


# ------------------------------------------------------------------ Bayesian (real sampling)
@pytest.fixture(scope="session")
def shifted():
    """10 generators x 8 validators whose rates shift with the generator, 5 annotated."""
    return simulate_panel(10, 8, seed=5, rate_shift=0.6, n_outputs=600, n_annotated=5)


@pytest.fixture(scope="session")
def bayes_fits(shifted):
    s = shifted
    p = ValidatorPanel(s.panel())
    A = p.data.annotated
    d = p.data.calibrate_on(A[1:])
    kw = {
        # 4 x 2000, tune 1500 (the panel default) at 0.95 rather than the default 0.99:
        # this panel passes the full gate there in 90 s instead of 124 s (the default is
        # held to the gate on a small panel in test_contract.py).  The gate reads the
        # hyperparameters too: mu_tpr's R-hat was 1.026 at 4 x 1000 with tune 800, and
        # tau_gen_tpr's 1.011 at 4 x 1000 with tune 1500 on one machine's floating point
        "sampler": {"target_accept": 0.95},
        "random_seed": 0,
        "log_likelihood": True,
    }
    pooled = PooledPanel(d).fit("nuts", **kw)
    hier = HierarchicalPanel(d).fit("nuts", **kw)
    return s, p, A[0], pooled, hier


def test_bayesian_held_out_generator_honest_width(bayes_fits):
    s, p, held, pooled, hier = bayes_fits
    assert pooled.diagnostics.divergences == 0 and hier.diagnostics.divergences == 0
    ip = pooled.interval(0.1).iloc[held]
    ih = hier.interval(0.1).iloc[held]
    # generator-dependent validator rates: the full model is less sure about a held-out
    # generator than the constant-rate model, and its interval holds the truth.  Measured:
    # 0.088 vs 0.065 (1.35x); before the realised-share layer the constant-rate interval
    # counted each output once per validator and the ratio was above 1.5
    assert (ih.upper - ih.lower) > 1.2 * (ip.upper - ip.lower)
    # one held-out generator is one draw from a 90% interval's coverage, so the test asks
    # only what a single case can show: the truth is plausible under the full model (two-
    # sided tail probability >= 1%); the coverage contrast with constant rates is the slow
    # test's (18 held-out generators)
    tail = {
        k: 2 * min(np.mean(f.draws().values[:, held] < s.precision[held]),
                   np.mean(f.draws().values[:, held] > s.precision[held]))
        for k, f in (("pooled", pooled), ("hier", hier))
    }  # fmt: skip
    assert tail["hier"] >= 0.01, tail
    # annotated generators are pinned by their human counts in both models
    ann = p.data.annotated[1:]
    hum = p.data.human_precision[ann]
    assert np.all(np.abs(hier.estimate()[ann] - hum) < 0.03)


def test_loo_compares_panel_variants(bayes_fits):
    import arviz as az

    _, _, _, pooled, hier = bayes_fits
    cmp = az.compare({"pooled": pooled.idata, "hierarchical": hier.idata})
    assert set(cmp.index) == {"pooled", "hierarchical"}
    # the simulated rates shift by generator: the hierarchical variant predicts better
    assert cmp.index[0] == "hierarchical"


def test_laplace_is_refused_by_name_with_the_method_to_use(sim):
    p = ValidatorPanel(sim.panel())
    with pytest.raises(MethodRefused, match="nuts") as e:
        p.fit("laplace")
    assert (e.value.field, e.value.value) == ("method", "laplace")
    assert "hierarchical" in str(e.value)


# ------------------------------------------------------------------ CLI


def test_cli_panel_items_and_cells(tmp_path, sim):
    sim.items.to_csv(tmp_path / "items.csv", index=False)
    out = run("panel", tmp_path / "items.csv", "--items", "--method", "veto", "--format", "json")
    assert out.returncode == 0, out.stderr
    js = json.loads(out.stdout)
    assert js["methods"] == ["validator_mean", "veto"] and len(js["generators"]) == 14
    d = sim.panel()
    np.testing.assert_allclose(
        [r["validator_mean"] for r in js["generators"]], ens.validator_mean(d), rtol=1e-12
    )
    assert sum(r["n_missing"] for r in js["generators"]) == d.n_missing.sum() > 0
    cells = pd.DataFrame(
        [
            {
                "generator": g,
                "validator": v,
                "n_judged": d.n_judged[i, j],
                "n_valid": d.n_valid[i, j],
            }
            for (i, g), (j, v) in itertools.product(
                enumerate(d.generators), enumerate(d.validators)
            )
        ]
    )
    cells.to_csv(tmp_path / "cells.csv", index=False)
    tab = cli("panel", tmp_path / "cells.csv", "--method", "regression")
    assert tab.returncode == 0 and "validator mean" in tab.stdout and "regression" in tab.stdout
    bad = cells.assign(n_valid=cells.n_judged + 1)
    bad.to_csv(tmp_path / "bad.csv", index=False)
    err = cli("panel", tmp_path / "bad.csv")
    assert err.returncode == 2 and "n_valid" in err.stderr
    assert len(err.stderr.strip().splitlines()) == 1
    # one spelling of method names across subcommands: plug_in is plug-in
    a, b = (cli("panel", tmp_path / "items.csv", "--items", "--method", m, "--format", "json")
            for m in ("plug-in", "plug_in"))  # fmt: skip
    assert a.returncode == 0 and a.stdout == b.stdout and '"plug_in"' in a.stdout
    # a sampler flag that no chosen method uses is refused, not ignored
    err = cli("panel", tmp_path / "cells.csv", "--method", "regression", "--variant", "pooled")
    assert err.returncode == 2 and "--variant pooled" in err.stderr
    assert len(err.stderr.strip().splitlines()) == 1


def test_cli_panel_sampler_flags_reach_the_sampler_and_the_gate_goes_to_stderr(
    tmp_path, capsys, mock_nuts
):
    from judgebayes.cli import main

    # the contract's panel (tests/studies/test_base.py); the traces are prior draws of the
    # shape the flags ask for (the flags' way to the sampler and the gate's report are
    # tested, not the sampler)
    small = simulate_panel(5, 4, n_outputs=80, n_annotated=3, seed=2, rate_shift=0.0)
    small.items.to_csv(tmp_path / "items.csv", index=False)
    argv = ["panel", str(tmp_path / "items.csv"), "--items", "--method", "nuts",
            "--variant", "pooled", "--draws", "40", "--tune", "60", "--chains", "2",
            "--target-accept", "0.9", "--format", "json"]  # fmt: skip
    assert main(argv) == 0
    cap = capsys.readouterr()
    js = json.loads(cap.out)
    gate = js["diagnostics"]["nuts"]
    assert js["variant"] == {"nuts": "pooled"}
    assert gate["sampler"] == {"draws": 40, "tune": 60, "chains": 2, "target_accept": 0.9,
                               "backend": "nutpie"}  # fmt: skip
    # 80 draws cannot reach a bulk and tail ESS of 400 each: the gate fails, and says so
    # once on stderr (as accuracy and rank do) and in the JSON, never on stdout
    assert gate["passed"] is False and "ESS" in gate["message"]
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("judgebayes panel: warning (nuts): ")
    assert "warning" not in cap.out.replace('"message"', "")
    # without --variant the model is chosen from the data, and the text output says which
    assert main(argv[:5] + argv[7:-2]) == 0
    out = capsys.readouterr().out
    assert "model (nuts): the hierarchical cell model: 3 annotated generator(s)" in out


# ------------------------------------------------------------------ slow tier
@pytest.mark.slow
def test_slow_constant_rate_model_undercovers_where_full_model_covers():
    # 3 panels x 6 held-out generators (s = 5), rates that shift by generator (0.6 logit)
    import warnings

    from judgebayes.errors import ConvergenceWarning

    models = {"pooled": PooledPanel, "hierarchical": HierarchicalPanel}
    cover = {"pooled": [], "hierarchical": []}
    width = {"pooled": [], "hierarchical": []}
    for seed in range(3):
        s = simulate_panel(seed=seed, rate_shift=0.6, n_outputs=1000)
        for variant in cover:
            p = models[variant](s.panel())
            with warnings.catch_warnings():
                # a coverage study: a fit that misses the gate still counts (and is rare)
                warnings.simplefilter("ignore", ConvergenceWarning)
                cv = p.cross_validate(
                    s=[5], methods=("nuts",), truth=s.precision,
                    sampler={"draws": 1000, "chains": 2, "tune": 800},
                )  # fmt: skip
            cover[variant].append(cv["coverage"].iloc[0])
            width[variant].append(cv["mean_width"].iloc[0])
    print("coverage", cover, "width", width)
    # 18 held-out intervals per variant at 90%: binomial sd ~0.07
    assert np.mean(cover["hierarchical"]) >= 0.75
    assert np.mean(cover["pooled"]) < np.mean(cover["hierarchical"]) - 0.15


def test_item_level_dawid_skene_model_samples():
    # small panel: 5 generators x 4 validators x 80 outputs, 3 annotated
    s = simulate_panel(5, 4, n_outputs=80, n_annotated=3, seed=2, rate_shift=0.0)
    p = ValidatorPanel(s.panel())
    spec = p.item_model_spec()
    assert spec.data["y"].size == p.data.n_judged.sum()  # missing verdicts left out
    # 4 chains x 500 draws.  The gate now checks the hyperparameters too, and the item
    # model's rate-deviation scales (tau) mix slowly here (R-hat ~1.01-1.02): recorded,
    # not hidden; making this model pass quickly is open
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        f = p.fit("nuts_items", random_seed=1, sampler={"draws": 500, "chains": 4, "tune": 500})
    assert f.diagnostics.divergences == 0
    assert {"tau_tpr", "sigma_g"} <= set(f.diagnostics.var_names)
    ann = p.data.annotated
    # annotated generators: the human labels observe every latent label, so the posterior
    # of g is Beta(1 + valid, 1 + invalid)-like around the human share (sd ~0.03 at n = 80)
    np.testing.assert_allclose(f.estimate()[ann], p.data.human_precision[ann], atol=0.06)
    iv = f.interval(0.1)
    assert np.all(iv.lower <= iv.estimate) and np.all(iv.estimate <= iv.upper)


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_cell_model_counts_each_output_once_however_many_validators():
    # ten near-perfect validators all judged the same N = 100 outputs of each generator:
    # together they say which outputs are valid, and nothing more.  The precision g of the
    # process is then known as well as from N labelled outputs: sd ~ sqrt(g(1-g)/N), not
    # sqrt(g(1-g)/(V N)) as when each validator's counts were independent samples of g
    # (3.2x too small here); the share among the judged outputs is pinned down.
    G, V, N = 6, 10, 100
    valid = np.array([80, 60, 90, 70, 85, 75])  # 6 generators: no funnel in sigma_g
    n = np.full((G, V), N)
    k = np.repeat(valid[:, None], V, axis=1)
    pr = jb.PanelPriors(mu_tpr=(6.0, 0.1), mu_tnr=(6.0, 0.1), sigma_tpr=0.05, sigma_tnr=0.05)
    panel = PooledPanel(panel_from_arrays(n, k), priors=pr)
    # near-degenerate validator priors make a narrow ridge (small steps, 0.99), and data
    # this strong make the non-centred g hierarchy mix slowly in mu_g (R-hat 1.023 at
    # 4 x 1000): 4 x 2000
    smp = {"target_accept": 0.99, "draws": 2000, "tune": 1500}
    fit = panel.fit("nuts", random_seed=0, sampler=smp)
    assert fit.diagnostics.passed, fit.diagnostics.message()
    g = valid / N
    binomial_sd = np.sqrt(g * (1 - g) / N)
    # the hierarchical prior on g pulls a little; 4000 draws give the sd to ~2%
    ratio = fit.draws("g").std("sample").values / binomial_sd
    assert np.all((ratio > 0.75) & (ratio < 1.25)), ratio
    judged = fit.interval(0.05, var="precision_judged")
    assert np.all(np.abs(judged["estimate"].to_numpy() - g) < 0.01)
    assert np.all((judged["upper"] - judged["lower"]).to_numpy() < 0.5 * 3.92 * binomial_sd)


def test_annotations_without_confusion_counts_are_refused_by_the_bayesian_models():
    cells = pd.DataFrame(
        {"generator": ["A", "A", "B", "B"], "validator": ["x", "y", "x", "y"],
         "n_judged": [10, 10, 10, 10], "n_valid": [9, 8, 7, 6]}
    )  # fmt: skip
    ann = pd.DataFrame({"generator": ["A"], "n_annotated": [10], "n_valid_human": [9]})
    p = ValidatorPanel.from_frames(cells, ann)
    assert p.data.annotation_overlap == ("A",)
    with pytest.raises(MethodRefused, match="count them twice") as e:
        p.fit("nuts")
    assert (e.value.field, e.value.value) == ("annotations", "A")
    assert "annotations_disjoint=True" in str(e.value)
    # point methods use the human precision as a target, not as a likelihood: allowed
    assert np.isfinite(p.fit("validator_mean").estimate()).all()
    # declared disjoint (human labels on outputs outside the cells): nothing to refuse
    q = ValidatorPanel.from_frames(cells, ann, annotations_disjoint=True)
    assert q.data.annotation_overlap == ()


def _crowd_items(seed, n=200, judges=8, gold=30):
    """The Dawid-Skene setting: one generator, 8 judges (TPR U(0.65, 0.95), TNR U(0.5, 0.9)),
    outputs valid with probability 0.7, 30 with a human label (same as
    benchmarks/dawid_skene.py)."""
    rng = np.random.default_rng(seed)
    tpr = rng.uniform(0.65, 0.95, judges)
    tnr = rng.uniform(0.50, 0.90, judges)
    valid = rng.random(n) < 0.7
    verdict = rng.random((n, judges)) < np.where(valid[:, None], tpr, 1 - tnr)
    human = np.full(n, np.nan)
    lab = rng.choice(n, gold, replace=False)
    human[lab] = valid[lab]
    rows = pd.DataFrame(
        {
            "output": np.repeat(np.arange(n), judges),
            "generator": "gen",
            "validator": np.tile([f"j{j}" for j in range(judges)], n),
            "verdict": verdict.ravel().astype(float),
            "human": np.repeat(human, judges),
        }
    )
    return rows, verdict.astype(float), human, tpr, tnr


# slow tier: a recovery study against Dawid-Skene (DESIGN: recovery and coverage studies are
# `slow`); the fast suite samples the item model in test_item_level_dawid_skene_model_samples
# and in the contract's nuts_items case
@pytest.mark.slow
def test_single_generator_item_model_is_as_accurate_as_dawid_skene_em():
    """The item model of one generator (no generator hierarchy, no rate shifts) passes the
    gate with its default sampler and estimates the judges' rates as well as Dawid-Skene's
    EM (the reference in tests/reference.py, which reproduces crowd-kit's DawidSkene errors
    to 1e-4 on these data; benchmarks/dawid_skene.py runs crowd-kit itself).  Tolerance:
    0.005 on the summed mean absolute errors, a tenth of their spread over seeds.
    """
    from tests.reference import dawid_skene_binary

    ours, em = 0.0, 0.0
    for seed in (1, 2):
        rows, Y, human, tpr, tnr = _crowd_items(seed)
        panel = ValidatorPanel.from_items(rows)
        fit = panel.fit("nuts_items", random_seed=seed)
        assert fit.diagnostics.passed, fit.diagnostics.message()
        assert fit.info["sampler"].target_accept == 0.9  # the single-generator default
        order = np.argsort([int(v[1:]) for v in panel.data.validators])
        ours += np.abs(fit.tpr[order] - tpr).mean() + np.abs(fit.tnr[order] - tnr).mean()
        _, p, n = dawid_skene_binary(Y, human)
        em += np.abs(p - tpr).mean() + np.abs(n - tnr).mean()
    assert ours <= em + 0.005, (ours, em)


def test_cell_checks_flag_an_altered_cell_and_plot_through_arviz(bayes_fits):
    """The cells check against the fitted data and against a copy with one cell altered;
    the InferenceData of predictive() carries the same replicates (same seed), and
    plot_check draws ArviZ's u-value plot from it."""
    import dataclasses

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, p, held, _, hier = bayes_fits
    d = p.data.calibrate_on(p.data.annotated[1:])
    table = p.with_data(d).check(hier)["cells"].table
    cells = table[table["count"] == "cell"]
    # the counts the model was fitted to: a cell's predictive p-value below 0.01 is rare
    # (expect ~1% of the cells; a posterior predictive is conservative, so fewer): at most
    # 3%.  6 generators x 8 validators have unannotated verdicts (the annotated
    # generators' outputs are all labelled).  The tpr/tnr rows test the annotated
    # confusion counts against each validator's panel-level rate: this panel was
    # simulated with generator-dependent rates (rate_shift 0.6), which they exist to
    # flag, so they are not held to the 1% rate here
    assert len(cells) == 48 and (cells["p_raw"] < 0.01).mean() <= 0.03, cells
    rates = table[table["count"] != "cell"]
    assert len(rates) == 2 * 4 * 8, rates
    # one cell of the held-out generator altered: every verdict "invalid"
    j = 2
    nv = d.n_valid.copy()
    nv[held, j] = d.tp[held, j] + d.fp[held, j]
    altered = dataclasses.replace(d, n_valid=nv)
    t2 = p.with_data(altered).check(hier)["cells"].table
    t2 = t2.set_index(["generator", "validator", "count"])
    key = (d.generators[held], d.validators[j], "cell")
    assert t2.loc[key, "flagged"] and t2.loc[key, "p_value"] < 1e-3
    # predictive(): the same replicates as the table's (same seed)
    idata = p.predictive(hier, data=d)
    assert {"posterior_predictive", "observed_data"} <= set(idata.children)
    rep = idata.posterior_predictive["cell"].values[0]
    obs = idata.observed_data["cell"].values
    pv = np.minimum(1, 2 * np.minimum((rep <= obs).mean(0), (rep >= obs).mean(0)))
    np.testing.assert_allclose(pv, cells["p_raw"].to_numpy())
    pc = jb.plot_check(idata, "cell")
    assert title(pc).startswith("cell: predictive pit")
    plt.close("all")
    with pytest.raises(InputError) as e:
        jb.plot_check(idata, "nope")
    assert e.value.field == "var"


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("panel.hierarchical", "panel.pooled", "panel.overdispersed")


def test_default_panel_model_passes_the_gate_on_a_small_plain_panel(studies, all_fits):
    key = PANEL_DEFAULT
    # the contract's panel: 5 generators x 4 validators, 80 outputs each, constant rates.
    # The default (hierarchical cell model, 4 x 2000, tune 1500, 0.99) must pass the full
    # gate, every free variable included.  Before: R-hat 1.020 and bulk ESS 185 at 4 x 1000
    # on such a panel, and 12 of 30 small panels with divergences from the realised-share
    # layer's unbounded logit sd (benchmarks/panel_gate.py: 28 of 30 pass now, 10 of 10
    # plain ones)
    assert all_fits[(key, "nuts")] is not None  # the model is compiled: only sampling here
    fit = studies[key].fit("nuts", random_seed=0)
    assert fit.diagnostics.passed, fit.diagnostics.message()
    assert fit.idata.posterior.sizes["draw"] == 2000 and fit.info["variant"] == "hierarchical"


def test_panel_check_gathers_its_checks(studies, mock_fits):
    # which checks run and which the model assumes, not what they find: prior draws
    key = PANEL_DEFAULT
    pan = studies[key].check(mock_fits[(key, "nuts")])
    assert {r.check for r in pan} == {"cells", "leniency"} and pan.table["flagged"].dtype == bool
    # the leniency model's check runs on the data; the cell model does not assume it
    assert pan["cells"].relevant and not pan["leniency"].relevant
