"""Bias-aware Bradley-Terry: data contract, analytic engine, summaries, active loop.

Every check against an independent reference: choix for the naive MAP, finite
differences for the gradient and Hessian, Monte-Carlo tolerances from the known
sampling error of the draws (stated at each assertion).
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.pairwise import identifiability_report, pairwise_from_arrays
from judgebayes.errors import ConvergenceWarning, IdentifiabilityWarning, InputError
from judgebayes.inference.bradley_terry import bt_design, fit_map, laplace_draws
from judgebayes.inference.ranking_baselines import (
    length_residualisation,
    naive_scores,
    order_swap_majority,
    trusted_anchor_gate,
    win_counts,
)
from judgebayes.inference.sampling import convergence_diagnostics
from judgebayes.inference.topk import (
    prob_better,
    rank_draws,
    separable_groups,
    top_k_probabilities,
    top_k_set,
)
from judgebayes.models.bradley_terry import RankingPriors
from judgebayes.simulate.ranking import controlled_benchmark, simulate_bt_judge
from judgebayes.studies.ranking import PairwiseRanking
from judgebayes.workflows.active import CallableOracle, MatrixOracle, run_active
from tests.test_cli import run


def _random_data(N=12, n=600, seed=0, c=0.8, kappa=0.4, ties=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1.25, N)
    x = rng.normal(size=N)
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    eta = theta[a] - theta[b] + c * (x[a] - x[b]) + kappa
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    y[:ties] = 0.5
    return a, b, y, x, theta


# ------------------------------------------------------------------ data contract
def test_frames_contract_ties_and_errors():
    comps = pd.DataFrame(
        {
            "first": ["a", "b", "c", "a", "b"],
            "second": ["b", "c", "a", "c", "a"],
            "winner": ["a", "c", "", "tie", "a"],
        }
    )
    items = pd.DataFrame({"item": ["a", "b", "c"], "length": [10.0, 20.0, 60.0]})
    r = PairwiseRanking.from_frames(comps, items, covariates=["length"])
    assert r.data.n == 3 and r.data.n_ties == 2 and r.data.ties == "drop"
    np.testing.assert_array_equal(r.data.y, [1.0, 0.0, 0.0])
    # standardised over items, scale kept for reporting
    mean, sd, level = r.data.scales["length"]
    assert (
        level == "item"
        and mean == pytest.approx(30.0)
        and sd == pytest.approx(np.std([10, 20, 60]))
    )
    h = PairwiseRanking.from_frames(comps, items, covariates=["length"], ties="half")
    assert h.data.n == 5 and h.data.n_ties == 2 and h.data.has_ties
    np.testing.assert_array_equal(h.data.y, [1.0, 0.0, 0.5, 0.5, 0.0])

    bad = comps.assign(second=["b", "c", "zz", "c", "a"])
    with pytest.raises(InputError, match="unknown item id 'zz'"):
        PairwiseRanking.from_frames(bad, items, covariates=["length"])
    with pytest.raises(InputError, match="with itself"):
        PairwiseRanking.from_frames(comps.assign(second=["a", "c", "a", "c", "a"]), items)
    with pytest.raises(InputError, match="neither shown item"):
        PairwiseRanking.from_frames(comps.assign(winner=["c", "c", "", "", "a"]), items)
    with pytest.raises(InputError, match="constant") as exc:
        PairwiseRanking.from_frames(comps, items.assign(length=5.0), covariates=["length"])
    assert exc.value.field == "length"
    with pytest.raises(InputError, match="neither an items column"):
        PairwiseRanking.from_frames(comps, items, covariates=["format"])


def test_comparison_level_covariates_enter_as_differences():
    comps = pd.DataFrame(
        {
            "first": ["a", "b", "a"],
            "second": ["b", "a", "c"],
            "winner": ["a", "a", "c"],
            "len_first": [100, 50, 10],
            "len_second": [20, 40, 30],
        }
    )
    d = PairwiseRanking.from_frames(comps, covariates=["len"]).data
    vals = np.array([100, 50, 10, 20, 40, 30], float)
    z = (vals - vals.mean()) / vals.std()
    np.testing.assert_allclose(d.X[:, 0], z[:3] - z[3:])
    assert d.scales["len"][2] == "comparison"
    assert identifiability_report(d).covariate_in_likelihood["len"]


# ------------------------------------------------------------------ analytic engine
def test_naive_map_equals_choix():
    choix = pytest.importorskip("choix")
    a, b, y, *_ = _random_data(N=15, n=900, seed=3, c=0, kappa=0)
    y = (y > 0.5).astype(float)
    d = pairwise_from_arrays(a, b, y, n_items=15)
    lam = 0.7
    res = fit_map(bt_design(d, bias=False, lam=lam))
    pairs = [
        (int(i), int(j)) if v == 1 else (int(j), int(i)) for i, j, v in zip(a, b, y, strict=True)
    ]
    # choix penalises alpha * ||theta||^2, ours lam/2 * ||theta||^2
    ref = choix.opt_pairwise(15, pairs, alpha=lam / 2, tol=1e-12)
    np.testing.assert_allclose(res.theta, ref, atol=1e-6)


def _objective_loop(beta, a, b, F, y, prec, N):
    # independent, loop-based log-posterior (no sparse algebra)
    total = 0.5 * np.sum(prec * beta**2)
    for r in range(a.size):
        eta = beta[a[r]] - beta[b[r]] + F[r] @ beta[N:]
        total += np.logaddexp(0, eta) - y[r] * eta
    return total


def test_gradient_hessian_and_laplace_covariance():
    a, b, y, x, _ = _random_data(N=6, n=150, seed=1, ties=10)
    d = pairwise_from_arrays(a, b, y, n_items=6, item_covariates={"x": x}, ties="half")
    des = bt_design(d, lam=1.0, lam_b=0.1)
    res = fit_map(des)
    F = np.column_stack([d.X, np.ones(d.n)])
    f = lambda bt: _objective_loop(bt, d.first, d.second, F, d.y, des.prec, 6)  # noqa: E731
    p, h = res.beta.size, 1e-4
    E = np.eye(p) * h
    grad = np.array([(f(res.beta + E[i]) - f(res.beta - E[i])) / (2 * h) for i in range(p)])
    assert np.max(np.abs(grad)) < 1e-5  # the mode: gradient zero
    hess = np.array(
        [
            [
                (f(res.beta + E[i] + E[j]) - f(res.beta + E[i] - E[j])
                 - f(res.beta - E[i] + E[j]) + f(res.beta - E[i] - E[j])) / (4 * h * h)
                for j in range(p)
            ]
            for i in range(p)
        ]
    )  # fmt: skip
    np.testing.assert_allclose(res.hessian, hess, atol=2e-3 * np.abs(hess).max())
    cov = res.covariance()
    np.testing.assert_allclose(cov, np.linalg.inv(res.hessian), rtol=1e-9, atol=1e-12)
    S = 40_000
    dr = laplace_draws(res, S, np.random.default_rng(0))
    emp = np.cov(dr.T)
    # sd of a sample covariance entry: sqrt((s_ii s_jj + s_ij^2) / S); allow 5 sd
    tol = 5 * np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / S)
    assert np.all(np.abs(emp - cov) <= tol)
    assert np.all(np.abs(dr.mean(0) - res.beta) <= 5 * np.sqrt(np.diag(cov) / S))


def test_warm_start_converges_to_same_mode():
    a, b, y, x, _ = _random_data(seed=4)
    d = pairwise_from_arrays(a, b, y, n_items=12, item_covariates={"x": x})
    des = bt_design(d)
    cold = fit_map(des)
    warm = fit_map(des, cold.beta + 0.3)
    np.testing.assert_allclose(warm.beta, cold.beta, atol=1e-7)
    assert warm.iterations <= cold.iterations + 2


def test_bias_aware_recovers_truth_where_naive_fails():
    # controlled benchmark, c* = 1 (standardised flag), kappa* = 0.35; Laplace, 4 pools
    naive, bias, cover_c, cover_k = [], [], 0, 0
    for seed in range(4):
        sim = controlled_benchmark(seed=seed)
        r = sim.ranking()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn = r.fit("naive", random_seed=seed)
            fb = r.fit("laplace", random_seed=seed)
        naive.append(sim.recall(top_k_set(fn.point, 5)))
        bias.append(sim.recall(top_k_set(fb.point, 5)))
        bt = fb.bias_table().set_index("coefficient")
        cover_c += bt.loc["x", "lower"] <= sim.c <= bt.loc["x", "upper"]
        cover_k += bt.loc["position", "lower"] <= sim.kappa <= bt.loc["position", "upper"]
    assert np.mean(bias) - np.mean(naive) >= 0.2, (naive, bias)
    assert cover_c >= 3 and cover_k >= 3


def test_unbiased_control_costs_little():
    naive, bias = [], []
    for seed in range(6):
        sim = simulate_bt_judge(seed=seed, c=0.0, kappa=0.0)
        r = sim.ranking()
        naive.append(sim.recall(top_k_set(r.fit("naive").point, 5)))
        bias.append(sim.recall(top_k_set(r.fit("laplace").point, 5)))
    assert np.mean(naive) - np.mean(bias) <= 0.1, (naive, bias)


def test_hierarchical_empirical_bayes_shrinks_unbiased_judge_more():
    taus = {}
    for c in (0.0, 1.5):
        sim = simulate_bt_judge(seed=11, c=c, kappa=c / 2, covariate="normal")
        f = sim.ranking().fit("laplace", "hierarchical")
        taus[c] = f.info["tau_b"]
    assert taus[0.0] < taus[1.5]


def test_several_judges_share_theta_with_own_biases():
    rng = np.random.default_rng(5)
    N, n = 20, 3000
    theta = rng.normal(0, 1.25, N)
    cov = rng.normal(size=(n, 2))  # per-comparison length of both responses
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    judge = rng.integers(0, 2, n)
    c = np.where(judge == 0, 1.2, 0.0)
    eta = theta[a] - theta[b] + c * (cov[:, 0] - cov[:, 1])
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    r = PairwiseRanking.from_arrays(
        a, b, y, n_items=N, comparison_covariates={"len": (cov[:, 0], cov[:, 1])},
        judge=judge, judges=("cheap", "strong"), priors=RankingPriors(lam_b=0.1, lam_judge=1.0),
    )  # fmt: skip
    f = r.fit("laplace")
    bt = f.bias_table().set_index(["judge", "coefficient"])
    sd = r.data.scales["len"][1]
    # per standardised unit the true coefficients are 1.2 * sd and 0
    assert abs(bt.loc[("cheap", "len"), "estimate"] - 1.2 * sd) < 0.15
    assert abs(bt.loc[("strong", "len"), "estimate"]) < 0.15
    assert np.corrcoef(f.point, theta)[0, 1] > 0.95


# ------------------------------------------------------------------ identifiability
def test_identifiability_failures_are_reported():
    N = 8
    x = np.array([0, 1] * 4, float)
    a, b = np.nonzero(~np.eye(N, dtype=bool))
    cross = x[a] != x[b]
    d = pairwise_from_arrays(
        a[cross], b[cross], np.ones(cross.sum()), n_items=N, item_covariates={"x": x}
    )
    rep = identifiability_report(d)
    assert any("within one of its levels" in p for p in rep.problems)
    assert rep.covariate_in_likelihood["x"] is False  # item-level: the prior identifies c
    # one presentation order where the first-shown item always comes from one group
    grp = np.arange(N) < 4
    ia, ib = np.meshgrid(np.flatnonzero(grp), np.flatnonzero(~grp))
    d2 = pairwise_from_arrays(ia.ravel(), ib.ravel(), np.ones(16), n_items=N)
    rep2 = identifiability_report(d2)
    assert not rep2.position_in_likelihood and rep2.position_confounding > 0.999
    with pytest.warns(IdentifiabilityWarning, match="confounded"):
        PairwiseRanking(d2).fit("laplace")
    # ordered by index on a complete graph: weakly identified, reported
    iu, ju = np.triu_indices(N, 1)
    rep3 = identifiability_report(pairwise_from_arrays(iu, ju, np.ones(iu.size), n_items=N))
    assert rep3.position_in_likelihood and any("weakly" in p for p in rep3.problems)
    # random orders of the same pairs: fine
    sw = np.random.default_rng(0).random(iu.size) < 0.5
    rep4 = identifiability_report(
        pairwise_from_arrays(
            np.where(sw, ju, iu), np.where(sw, iu, ju), np.ones(iu.size), n_items=N
        )
    )
    assert rep4.ok
    # two components
    rep5 = identifiability_report(pairwise_from_arrays([0, 2], [1, 3], [1, 0], n_items=4))
    assert rep5.components == 2 and not rep5.ok


# ------------------------------------------------------------------ summaries
def test_top_k_rank_and_group_summaries():
    rng = np.random.default_rng(0)
    S = 4000
    draws = np.column_stack(
        [
            rng.normal(3, 0.1, S),
            rng.normal(2, 1.0, S),
            rng.normal(2, 1.0, S),
            rng.normal(-3, 0.1, S),
        ]
    )
    p = top_k_probabilities(draws, 1)
    # items 1, 2 exchangeable: P(beat 3.0) = P(N(2,1) > 3) ~ 0.16 each; exact sum 1
    assert p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(top_k_probabilities(draws, 3), [1, 1, 1, 0], atol=0.02)
    r = rank_draws(draws)
    assert np.all(np.sort(r, axis=1) == np.arange(1, 5))
    P = prob_better(draws)
    np.testing.assert_allclose(P + P.T + np.eye(4), 1.0)
    g = separable_groups(draws, level=0.95)
    # leader 0 beats 1 and 2 with P ~ 0.84 < 0.95 (same tier), and 3 with P = 1
    assert [sorted(x.tolist()) for x in g] == [[0, 1, 2], [3]]
    g80 = separable_groups(draws, level=0.8)
    assert g80[0].tolist() == [0]


def test_fit_summaries_contract():
    sim = controlled_benchmark(seed=2)
    f = sim.ranking().fit("laplace", random_seed=0)
    tk = f.top_k(5)
    assert tk["p_top_k"].sum() == pytest.approx(5.0)
    assert set(f.point_top_k(5)) == set(tk.index[tk["in_point_top_k"]])
    ri = f.rank_intervals()
    assert (ri["rank_lower"] <= ri["rank_median"]).all() and (
        ri["rank_median"] <= ri["rank_upper"]
    ).all()
    groups = f.groups(0.95)
    assert sorted(it for g in groups for it in g) == sorted(sim.ranking().data.items)
    with pytest.raises(InputError, match="k must be"):
        f.top_k(0)


# ------------------------------------------------------------------ active loop
def test_active_loop_never_repeats_unless_allowed():
    sim = controlled_benchmark(seed=0)
    n_pairs = 30 * 29 // 2
    res = run_active(
        sim.verdicts, k=5, budget=n_pairs + 40, rule="topk", item_covariates=sim.x, seed=1
    )
    key = np.minimum(res.first, res.second) * 30 + np.maximum(res.first, res.second)
    assert res.first.size == n_pairs and np.unique(key).size == n_pairs
    rep = run_active(
        sim.verdicts, k=5, budget=n_pairs + 40, rule="random", seed=1, allow_repeats=True
    )
    assert rep.first.size == n_pairs + 40
    # presentation order is random and recorded; verdicts are the oracle's
    assert 0.4 < np.mean(res.first < res.second) < 0.6
    np.testing.assert_array_equal(res.y, sim.verdicts[res.first, res.second])


def test_active_rules_and_online_oracle():
    sim = controlled_benchmark(seed=3)
    calls = []

    def judge(a, b):
        calls.append((a, b))
        return int(sim.verdicts[a, b])

    for rule in ("topk", "global", "entropy", "no_variance", "no_informativeness", "round_robin"):
        res = run_active(
            CallableOracle(judge, 30), k=5, budget=48, rule=rule, item_covariates=sim.x,
            truth=sim, record_at=(16, 32), seed=0,
        )  # fmt: skip
        assert set(res.recall) == {16, 32, 48}
        assert res.refits >= 6
    assert len(calls) == 6 * 48
    with pytest.raises(InputError, match="rule"):
        run_active(MatrixOracle(sim.verdicts), k=5, budget=8, rule="best")


def test_round_robin_schedule_balances_items():
    sim = simulate_bt_judge(seed=0)
    res = run_active(sim.verdicts, k=5, budget=60, rule="round_robin", seed=3)
    games = np.bincount(np.r_[res.first, res.second], minlength=30)
    assert games.min() == games.max() == 4  # 60 pairs = 4 full rounds of 15


# ------------------------------------------------------------------ baselines
def test_baselines():
    sim = controlled_benchmark(seed=1)
    d = sim.ranking().data
    wc = win_counts(d)
    games = np.bincount(np.r_[d.first, d.second], minlength=30)
    assert np.all(games == 58)
    wins = np.bincount(d.first, weights=d.y, minlength=30) + np.bincount(
        d.second, weights=1 - d.y, minlength=30
    )
    np.testing.assert_allclose(wc, wins / 58)
    res = length_residualisation(d)
    assert abs(np.corrcoef(res, d.item_X[:, 0])[0, 1]) < 1e-10
    osm = order_swap_majority(d)
    assert osm.shape == (30,)
    # order swap pools both orders: the same as naive BT when each pair is seen once
    iu, ju = np.triu_indices(30, 1)
    once = pairwise_from_arrays(iu, ju, sim.verdicts[iu, ju].astype(float), n_items=30)
    np.testing.assert_allclose(order_swap_majority(once), naive_scores(once), atol=1e-9)


def test_trusted_anchor_gate_spurious_vs_legitimate():
    rng = np.random.default_rng(0)
    # spurious covariate: the judge rewards it, quality does not depend on it
    sim = controlled_benchmark(seed=0)
    pr = rng.choice(30, (120, 2))
    pr = pr[(pr[:, 0] != pr[:, 1]) & (sim.quality[pr[:, 0]] != sim.quality[pr[:, 1]])][:60]
    anchors = np.where((sim.quality[pr[:, 0]] > sim.quality[pr[:, 1]])[:, None], pr, pr[:, ::-1])
    g = trusted_anchor_gate(sim.ranking().data, anchors)
    assert g.enabled and g.bias_agreement >= g.naive_agreement
    # legitimate covariate: quality rises with it and the judge is unbiased
    x = np.repeat([0.0, 1.0], 15)
    quality = rng.normal(0, 0.5, 30) + 2.0 * x
    a, b = np.nonzero(~np.eye(30, dtype=bool))
    y = (rng.random(a.size) < 1 / (1 + np.exp(-(quality[a] - quality[b])))).astype(float)
    d = pairwise_from_arrays(a, b, y, n_items=30, item_covariates={"x": x})
    pr = rng.choice(30, (200, 2))
    pr = pr[(pr[:, 0] != pr[:, 1])][:60]
    anchors = np.where((quality[pr[:, 0]] > quality[pr[:, 1]])[:, None], pr, pr[:, ::-1])
    g2 = trusted_anchor_gate(d, anchors)
    assert not g2.enabled and g2.naive_agreement > g2.bias_agreement


# ------------------------------------------------------------------ CLI
def _write_csvs(tmp_path, sim):
    a, b, y = sim.comparisons()
    comps = pd.DataFrame(
        {"first": [f"i{v}" for v in a], "second": [f"i{v}" for v in b],
         "winner": [f"i{i}" if v == 1 else f"i{j}" for i, j, v in zip(a, b, y, strict=True)]}
    )  # fmt: skip
    items = pd.DataFrame({"item": [f"i{v}" for v in range(sim.n_items)], "verbose": sim.x})
    comps.to_csv(tmp_path / "c.csv", index=False)
    items.to_csv(tmp_path / "i.csv", index=False)
    return tmp_path / "c.csv", tmp_path / "i.csv"


def test_cli_rank_json_and_table(tmp_path):
    sim = controlled_benchmark(seed=0)
    c, i = _write_csvs(tmp_path, sim)
    out = run("rank", c, "--items", i, "--covariate", "verbose", "--k", "5", "--format", "json")
    assert out.returncode == 0, out.stderr
    js = json.loads(out.stdout)
    assert js["n_comparisons"] == 870 and js["k"] == 5 and len(js["top_k"]) == 5
    assert {r["coefficient"] for r in js["coefficients"]} == {"verbose", "position"}
    assert sum(r["p_top_k"] for r in js["items"]) == pytest.approx(5.0, abs=1e-9)
    # the CLI's top set is the API's
    r = PairwiseRanking.from_frames(pd.read_csv(c), pd.read_csv(i), covariates=["verbose"])
    assert js["top_k"] == r.fit("laplace", random_seed=0).point_top_k(5)
    tab = run("rank", c, "--items", i, "--covariate", "verbose", "--method", "naive")
    assert tab.returncode == 0 and "point top 5" in tab.stdout


@pytest.mark.parametrize(
    "extra, needle",
    [
        (("--covariate", "nope"), "covariate 'nope'"),
        (("--k", "99"), "--k must be"),
    ],
)
def test_cli_rank_bad_input(tmp_path, extra, needle):
    c, i = _write_csvs(tmp_path, controlled_benchmark(seed=0))
    out = run("rank", c, "--items", i, *extra)
    assert out.returncode == 2
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ NUTS (real sampling)
@pytest.fixture(scope="session")
def horseshoe_fits():
    sim = controlled_benchmark(seed=0)
    r = sim.ranking()
    nuts = {"draws": 500, "chains": 4, "tune": 600}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # read from hs.diagnostics
        hs = r.fit("nuts", "horseshoe", random_seed=1, sampler=nuts, log_likelihood=True)
    naive = r.fit("naive", random_seed=1, log_likelihood=True)
    lap = r.fit("laplace", "horseshoe", random_seed=1)
    return sim, r, hs, naive, lap


def test_horseshoe_nuts_recovers_biases_without_divergences(horseshoe_fits):
    sim, _, hs, naive, _ = horseshoe_fits
    # the gate on the reported quantities: R-hat <= 1.01, ESS >= 400, zero divergences
    # (target_accept 0.99).  The full gate also reads the horseshoe's non-centred offsets
    # b_z, which mix slowly (R-hat 1.036 at 4 x 500, 1.017 at 4 x 1000): the horseshoe's
    # geometry is issue 13's, and the fit says so in its diagnostics
    reported = convergence_diagnostics(hs.idata, ["theta", "b"])
    assert reported.passed and hs.diagnostics.divergences == 0, reported
    assert hs.diagnostics.passed or hs.diagnostics.worst[0] == "b_z"
    bt = hs.bias_table().set_index("coefficient")
    assert bt.loc["x", "lower"] <= sim.c <= bt.loc["x", "upper"]
    assert bt.loc["position", "lower"] <= sim.kappa <= bt.loc["position", "upper"]
    assert sim.recall(hs.point_top_k(5)) >= sim.recall(naive.point_top_k(5)) + 0.2


def test_loo_prefers_bias_aware_and_laplace_differs_under_horseshoe(horseshoe_fits):
    from judgebayes.studies.ranking import compare_loo, compare_posteriors

    _, _, hs, naive, lap = horseshoe_fits
    loo = compare_loo({"bias-aware": hs, "naive": naive})
    assert list(loo.index) == ["bias-aware", "naive"]
    tab = compare_posteriors({"nuts": hs, "laplace": lap}).set_index(["parameter", "fit"])
    # the unconstrained-space Laplace cannot hold the horseshoe's shape: its coefficient
    # sd is larger than NUTS' (a statement about the approximation, checked both ways)
    assert tab.loc[("b[x]", "laplace"), "sd"] > tab.loc[("b[x]", "nuts"), "sd"]


def test_nuts_matches_laplace_on_large_well_identified_problem():
    rng = np.random.default_rng(7)
    N, n = 6, 6000
    theta = np.linspace(-1, 1, N)
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    y = (rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))).astype(float)
    r = PairwiseRanking.from_arrays(a, b, y, n_items=N)
    lap = r.fit("naive", draws=4000, random_seed=0)
    nuts = r.fit("nuts", "none", random_seed=0, sampler={"draws": 1000, "tune": 500})
    assert nuts.diagnostics.passed
    import arviz as az

    mcse = az.mcse(nuts.idata, var_names=["theta"])["theta"].values
    ln = lap.theta_draws()
    # means: 5 MCSE of NUTS + 5 MC errors of the Laplace mean + 0.01 for the Laplace
    # approximation itself (its skewness error is O(1/n) per comparison count)
    tol = 5 * mcse + 5 * ln.std(0) / np.sqrt(ln.shape[0]) + 0.01
    assert np.all(np.abs(nuts.theta_draws().mean(0) - ln.mean(0)) <= tol)
    np.testing.assert_allclose(nuts.theta_draws().std(0), ln.std(0), rtol=0.1)


# ------------------------------------------------------------------ slow tier
@pytest.mark.slow
def test_slow_horseshoe_recovery_across_pools():
    # 6 biased pools: zero divergences every time; the 95% intervals of c and kappa cover
    # the truth in at least 4 of 6 (binomial(6, 0.95): P(<= 3) < 0.003)
    cover, div, gain = 0, 0, []
    for seed in range(6):
        sim = controlled_benchmark(seed=100 + seed)
        r = sim.ranking()
        f = r.fit("nuts", "horseshoe", random_seed=seed, sampler={"draws": 1000})
        div += f.diagnostics.divergences
        bt = f.bias_table().set_index("coefficient")
        cover += (bt.loc["x", "lower"] <= sim.c <= bt.loc["x", "upper"]) and (
            bt.loc["position", "lower"] <= sim.kappa <= bt.loc["position", "upper"]
        )
        gain.append(sim.recall(f.point_top_k(5)) - sim.recall(r.fit("naive").point_top_k(5)))
    assert div == 0
    assert cover >= 4
    assert np.mean(gain) >= 0.2


@pytest.mark.slow
def test_slow_budget_grid_ordering():
    # 10 pools x 6 seeds (benchmarks/ranking.py); s.e. of a recall mean is ~0.02-0.03,
    # so orderings are checked with a margin of one s.e. of the paired difference
    budgets = (60, 120, 200, 320)
    rec = {r: [] for r in ("topk", "global", "round_robin")}
    for j in range(10):
        sim = controlled_benchmark(seed=1000 + j)
        for s in range(6):
            for rule in rec:
                res = run_active(
                    sim.verdicts, k=5, budget=320, rule=rule, item_covariates=sim.x,
                    truth=sim, record_at=budgets, seed=s,
                )  # fmt: skip
                rec[rule].append([res.recall[b] for b in budgets])
    t, rr, g = (np.asarray(rec[k]) for k in ("topk", "round_robin", "global"))
    se = lambda d: d.std(0, ddof=1) / np.sqrt(d.shape[0])  # noqa: E731
    assert np.all((t - rr).mean(0) >= -se(t - rr))
    assert np.all((t - g).mean(0)[:2] >= -se(t - g)[:2])


def test_pymc_models_build_for_every_variant():
    # several judges, per-comparison covariate, half-win ties: the graph and its dims
    rng = np.random.default_rng(0)
    a, b, y, *_ = _random_data(N=5, n=60, seed=2, ties=4)
    cov = rng.normal(size=(60, 2))
    r = PairwiseRanking.from_arrays(
        a, b, y, n_items=5, comparison_covariates={"len": (cov[:, 0], cov[:, 1])},
        judge=rng.integers(0, 3, 60), judges=("j0", "j1", "j2"), ties="half",
    )  # fmt: skip
    for prior in ("none", "normal", "hierarchical", "horseshoe"):
        m = r.build_model(prior)
        assert m.named_vars_to_dims["theta"] == ("item",)
        if prior != "none":
            assert m.named_vars_to_dims["b_judge"] == ("judge", "bias")
            assert list(m.coords["bias"]) == ["len", "position"]
        lp = m.point_logps()
        assert all(np.isfinite(v) for v in lp.values())
    # a tie contributes log sigma(eta)/2 + log sigma(-eta)/2: check the observed logp
    m = r.build_model("none")
    ip = m.initial_point()
    ll = m.compile_fn(m.logp(vars=[m["y"]], sum=False)[0], inputs=m.value_vars)(ip)
    # at the initial point theta = 0, so eta = 0 and every verdict contributes log(1/2)
    np.testing.assert_allclose(ll, np.log(0.5), rtol=1e-12)
