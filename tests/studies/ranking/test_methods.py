"""The ranking methods (judgebayes/studies/ranking/methods.py): identified intervals against
the sandwich (tests/reference.py) and choix, per component, Davidson's ties, the item-level
coefficient's learnt spread, bias-aware recovery, several judges; NUTS against Laplace and
the horseshoe across pools (slow).
"""

import json
import warnings

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.inference.ranking.topk import top_k_set
from judgebayes.models.ranking import RankingPriors
from judgebayes.simulate.ranking import controlled_benchmark, simulate_bt_judge
from judgebayes.studies.ranking import PairwiseRanking
from tests.simulators import bt_sample


def test_identified_intervals_match_the_sandwich_on_large_data():
    """Naive BT on 10,000 comparisons: the identified (sum-to-zero) 95% intervals have the
    width of the MLE's sandwich interval (written from the formulas in tests/reference.py)
    and the point is choix's MLE up to the prior's shrinkage."""
    choix = pytest.importorskip("choix")
    from tests.reference import bt_mle_sandwich

    rng = np.random.default_rng(11)
    N, n = 20, 10_000
    _, a, b, y = bt_sample(N, n, 1.0, rng)
    fit = PairwiseRanking.from_arrays(a, b, y, n_items=N).fit("naive", draws=4000, random_seed=0)
    assert fit.info["identification"] == "sum_to_zero"
    assert json.loads(fit.idata.posterior.attrs["identification"]) == "sum_to_zero"
    iv = fit.interval()
    np.testing.assert_allclose(fit.theta_draws().sum(1), 0, atol=1e-9)
    w, lo = np.where(y == 1, a, b), np.where(y == 1, b, a)
    mle, V = bt_mle_sandwich(N, w, lo)
    ref_width = 2 * 1.959964 * np.sqrt(np.diag(V))
    ratio = (iv["upper"] - iv["lower"]).to_numpy() / ref_width
    # 4000 draws: each quantile has sd ~0.035 sd(theta), so a width's relative MC sd is
    # ~1.3%; the prior (precision 1 against ~200 of data) narrows by ~0.3%: 10% is > 7 sd
    assert np.all(np.abs(ratio - 1) < 0.10), ratio
    assert np.abs(np.median(ratio) - 1) < 0.03
    pairs = list(zip(w.tolist(), lo.tolist(), strict=True))
    ref = choix.opt_pairwise(N, pairs, tol=1e-10)
    np.testing.assert_allclose(mle, ref - ref.mean(), atol=1e-4)
    # MAP vs MLE: shrinkage (A + I)^-1 A is ~0.5% here, so within 0.02 on |theta| <= 3
    np.testing.assert_allclose(fit.point, mle, atol=0.02)


def test_identified_intervals_on_pandalm_human_votes():
    """A reported case: PandaLM human votes (5 generators, 999 comparisons).  Before,
    the 95% intervals were 1.83-1.88 wide (the prior's level); on the identified scale
    they are the sandwich's width (peers' bootstrap and sandwich: 0.34-0.38)."""
    from judgebayes.datasets import pandalm_comparisons
    from tests.reference import bt_mle_sandwich

    comp = pandalm_comparisons("human")
    rk = PairwiseRanking.from_frames(comp)
    fit = rk.fit("naive", draws=4000, random_seed=0)
    width = (fit.interval()["upper"] - fit.interval()["lower"]).to_numpy()
    d = rk.data
    w, lo = np.where(d.y == 1, d.first, d.second), np.where(d.y == 1, d.second, d.first)
    _, V = bt_mle_sandwich(d.n_items, w, lo)
    ratio = width / (2 * 1.959964 * np.sqrt(np.diag(V)))
    assert np.all(width < 0.5), width
    assert np.all(np.abs(ratio - 1) < 0.10), ratio  # MC error as above
    # a reference item: its quality is 0, the others are differences from it
    ref = rk.fit("naive", draws=4000, random_seed=0, reference=d.items[0])
    assert ref.info["identification"] == f"reference={d.items[0]}"
    np.testing.assert_allclose(ref.theta_draws()[:, 0], 0)
    np.testing.assert_allclose(ref.point[1:], fit.point[1:] - fit.point[0], atol=1e-12)
    with pytest.raises(InputError, match="reference"):
        rk.fit("naive", reference="nobody")


def test_disconnected_graph_is_identified_per_component():
    a, b, y = [0, 0, 1, 2, 3, 3], [1, 1, 0, 3, 2, 2], [1, 1, 0, 1, 0, 1]
    fit = PairwiseRanking.from_arrays(a, b, y, n_items=4).fit("naive", warn=False, random_seed=0)
    th = fit.theta_draws()
    np.testing.assert_allclose(th[:, :2].sum(1), 0, atol=1e-12)
    np.testing.assert_allclose(th[:, 2:].sum(1), 0, atol=1e-12)
    assert fit.info["components"] == 2 and any("components" in n for n in fit.notes)


def _item_covariate_sample(spread, rng, N=30, c=1.0, kappa=0.4):
    a, b = np.nonzero(~np.eye(N, dtype=bool))
    th = rng.normal(0, spread, N)
    x = rng.normal(size=N)
    x = (x - x.mean()) / x.std()
    eta = th[a] - th[b] + c * (x[a] - x[b]) + kappa
    y = (rng.random(a.size) < 1 / (1 + np.exp(-eta))).astype(float)
    return PairwiseRanking.from_arrays(
        a, b, y, n_items=N, item_covariates={"x": x}, standardise=False
    )


def test_item_level_coefficient_learns_the_quality_spread():
    """A reported case: 30 items with quality spread 2, c* = 1.  With lambda fixed at 1
    the coefficient's interval is too narrow (coverage 0.75 over 100 replicates, see
    BENCHMARKS); learning the spread (the default with an item-level covariate) widens it
    by the ratio of the spreads, and the table says the coefficient rests on the prior."""
    rk = _item_covariate_sample(2.0, np.random.default_rng(4))
    assert rk.learns_spread("normal") and not rk.learns_spread("none")
    learned = rk.fit("laplace", random_seed=0, warn=False)
    fixed = rk.fit("laplace", random_seed=0, warn=False, theta_spread="fixed")
    # the EB spread of 30 draws from N(0, 2^2): sd of the sample sd ~0.26, so 1.2-2.8
    assert 1.2 < learned.info["theta_sd"] < 2.8 and "theta_sd" not in fixed.info
    bl = learned.bias_table().set_index("coefficient")
    bf = fixed.bias_table().set_index("coefficient")
    wl, wf = (t.loc["x", "upper"] - t.loc["x", "lower"] for t in (bl, bf))
    assert wl > 1.4 * wf
    assert bl.loc["x", "lower"] <= 1.0 <= bl.loc["x", "upper"]
    assert bl.loc["x", "identified_by"] == "prior"
    assert bl.loc["position", "identified_by"] == "data"
    with pytest.raises(InputError, match="theta_spread"):
        rk.fit("laplace", theta_spread="big")


@pytest.mark.slow
@pytest.mark.parametrize("spread", [0.5, 1.0, 2.0])
def test_item_level_coefficient_coverage(spread):
    """Acceptance: 95% intervals of an item-level coefficient cover c* >= 0.9 of the time
    at quality spreads 0.5, 1 and 2 (100 replicates each; binomial sd at 0.95 is 0.022,
    so 0.9 is > 2 sd below nominal).  Measured: 0.93, 0.99, 0.97 (fixed lambda: 1.00,
    0.99, 0.75)."""
    rng = np.random.default_rng([17, int(10 * spread)])
    hits = []
    for r in range(100):
        fit = _item_covariate_sample(spread, rng).fit("laplace", random_seed=r, warn=False)
        row = fit.bias_table().set_index("coefficient").loc["x"]
        hits.append(row["lower"] <= 1.0 <= row["upper"])
    assert np.mean(hits) >= 0.9


def test_davidson_recovers_the_tie_rate_and_uses_the_ties():
    """Simulated from Davidson's model (nu = 0.8, 20% ties at equal quality): the fit
    recovers nu, and keeping the ties narrows the intervals compared with dropping them."""
    rng = np.random.default_rng(3)
    N, n, nu = 8, 3000, 0.8
    theta = np.linspace(-1, 1, N)
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    eta = theta[a] - theta[b]
    P = np.column_stack([np.exp(eta / 2), np.exp(-eta / 2), np.full(n, nu)])
    P /= P.sum(1, keepdims=True)
    out = (rng.random(n)[:, None] > np.cumsum(P, 1)).sum(1)
    y = np.choose(out, [1.0, 0.0, 0.5])
    dav = PairwiseRanking.from_arrays(a, b, y, n_items=N).fit("naive", random_seed=0)
    drop = PairwiseRanking.from_arrays(a, b, y, n_items=N, ties="drop").fit("naive", random_seed=0)
    nu_iv = dav.interval(var="nu")
    assert nu_iv["lower"].item() <= nu <= nu_iv["upper"].item()
    w = lambda f: (f.interval()["upper"] - f.interval()["lower"]).mean()  # noqa: E731
    assert w(dav) < w(drop)
    iv = dav.interval()
    truth = theta - theta.mean()
    assert np.mean((iv["lower"] <= truth) & (truth <= iv["upper"])) >= 6 / 8


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
        f = sim.ranking().fit("laplace", prior="hierarchical")
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


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_nuts_matches_laplace_on_large_well_identified_problem():
    """Davidson's tie model, identified (sum-to-zero) scale: the PyMC model under NUTS and
    the Newton engine's Laplace agree on theta and nu."""
    rng = np.random.default_rng(7)
    N, n = 6, 6000
    theta = np.linspace(-1, 1, N)
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    eta = theta[a] - theta[b]
    P = np.column_stack([np.exp(eta / 2), np.exp(-eta / 2), np.full(n, 0.5)])
    out = (rng.random(n)[:, None] > np.cumsum(P / P.sum(1, keepdims=True), 1)).sum(1)
    y = np.choose(out, [1.0, 0.0, 0.5])
    r = PairwiseRanking.from_arrays(a, b, y, n_items=N)
    assert r.data.ties == "davidson" and r.data.n_ties > 500
    lap = r.fit("naive", draws=4000, random_seed=0)
    nuts = r.fit("nuts", prior="none", random_seed=0, sampler={"draws": 1000, "tune": 500})
    assert nuts.diagnostics.passed
    import arviz as az

    mcse = az.mcse(nuts.idata, var_names=["theta"])["theta"].values
    ln = lap.theta_draws()
    # means: 5 MCSE of NUTS + 5 MC errors of the Laplace mean + 0.01 for the Laplace
    # approximation itself (its skewness error is O(1/n) per comparison count)
    tol = 5 * mcse + 5 * ln.std(0) / np.sqrt(ln.shape[0]) + 0.01
    assert np.all(np.abs(nuts.theta_draws().mean(0) - ln.mean(0)) <= tol)
    np.testing.assert_allclose(nuts.theta_draws().std(0), ln.std(0), rtol=0.1)
    np.testing.assert_allclose(nuts.theta_draws().sum(1), 0, atol=1e-9)
    nu_n, nu_l = nuts.draws("nu").values, lap.draws("nu").values
    # nu's posterior sd ~0.02 here; NUTS MCSE < 0.002, Laplace MC error < 0.001
    assert abs(nu_n.mean() - nu_l.mean()) < 0.01 and abs(nu_n.mean() - 0.5) < 4 * nu_n.std()


# ------------------------------------------------------------------ slow tier
@pytest.mark.slow
def test_slow_horseshoe_recovery_across_pools():
    # 6 biased pools: zero divergences every time; the 95% intervals of c and kappa cover
    # the truth in at least 4 of 6 (binomial(6, 0.95): P(<= 3) < 0.003)
    cover, div, gain = 0, 0, []
    for seed in range(6):
        sim = controlled_benchmark(seed=100 + seed)
        r = sim.ranking()
        f = r.fit("nuts", prior="horseshoe", random_seed=seed, sampler={"draws": 1000})
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
def test_identified_interval_coverage_and_width_on_large_data():
    """Plain BT, 10,000 comparisons of 20 items, 200 replicates: the identified 95%
    intervals cover the centred truth 0.93-0.97 of the time and are within 10% of the
    sandwich interval's width (tests/reference.py)."""
    from tests.reference import bt_mle_sandwich

    rng = np.random.default_rng(2026)
    N, n, R = 20, 10_000, 200
    cover, ratio = [], []
    for r in range(R):
        theta, a, b, y = bt_sample(N, n, 1.0, rng)
        fit = PairwiseRanking.from_arrays(a, b, y, n_items=N).fit("naive", random_seed=r)
        iv = fit.interval()
        truth = theta - theta.mean()
        cover.append((iv["lower"] <= truth) & (truth <= iv["upper"]))
        if r < 20:  # the reference MLE is slow (BFGS); 20 replicates pin the width
            w, lo = np.where(y == 1, a, b), np.where(y == 1, b, a)
            _, V = bt_mle_sandwich(N, w, lo)
            ratio.append((iv["upper"] - iv["lower"]) / (2 * 1.959964 * np.sqrt(np.diag(V))))
    c = np.mean(cover)
    # 4,000 item-intervals: binomial sd of the coverage ~0.0035 (items within a replicate
    # are nearly independent on this design), so 0.93-0.97 is a > 5 sd band around 0.95
    assert 0.93 <= c <= 0.97, c
    assert np.all(np.abs(np.asarray(ratio) - 1) < 0.10)
