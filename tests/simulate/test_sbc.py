"""Simulation-based calibration of the NUTS fits (slow tier).

Each study draws parameters from the prior the model states, simulates data, fits by NUTS
and records the rank of the true value among thinned posterior draws; a calibrated
posterior gives uniform ranks (Talts et al. 2018).  The binary model is fitted for all
datasets at once through :class:`~judgebayes.studies.accuracy.ReplicateStudy` (independent
replicates on one dim, so one NUTS run is R separate posteriors), with the default
better-than-chance prior: (q0, q1) uniform on q0 + q1 > 1.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from judgebayes.errors import ConvergenceWarning, MirrorWarning
from judgebayes.studies.accuracy import ReplicateStudy

pytestmark = pytest.mark.slow

N_BINS = 10


def _uniformity_p(ranks: np.ndarray, n_ranks: int) -> float:
    counts = np.bincount(ranks * N_BINS // (n_ranks + 1), minlength=N_BINS)
    return float(stats.chisquare(counts).pvalue)


def _prior_draws(rng, size):
    """theta ~ U(0, 1); (q0, q1) uniform on q0 + q1 > 1 (rejection from the unit square)."""
    q = rng.random((4 * size, 2))
    q = q[q.sum(1) > 1][:size]
    return rng.random(size), q[:, 0], q[:, 1]


@pytest.mark.parametrize(("n", "m"), [(200, 20), (50, 6)])
def test_sbc_binary_model_nuts(n, m):
    # 400 datasets in 4 batches of 100 replicates; 4 chains x 1000 draws thinned by 10
    # (every replicate's ESS >= 400 by the gate) -> ranks 0..400
    rng = np.random.default_rng(2026 + n)
    ranks = {"theta": [], "q0": [], "q1": []}
    failed = 0
    for batch in range(4):
        th, q0, q1 = _prior_draws(rng, 100)
        k = rng.binomial(n, th * q1 + (1 - th) * (1 - q0))
        tp, tn = rng.binomial(m, q1), rng.binomial(m, q0)
        study = ReplicateStudy(k, np.full(100, n), tp, np.full(100, m), tn, np.full(100, m))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MirrorWarning)
            fit = study.fit("nuts", random_seed=batch, sampler={"draws": 1000, "tune": 1000})
        ok = fit.info["passed"]
        failed += int((~ok).sum())
        post = fit.idata.posterior
        for name, truth in (("theta", th), ("q0", q0), ("q1", q1)):
            d = post[name].values[:, ::10, :].reshape(-1, 100)  # (400 draws, replicate)
            ranks[name].append((d < truth[None, :]).sum(0)[ok])
    # failed fits are counted, and the uniformity test runs on the passed ones
    assert failed <= 20, failed
    for name, r in ranks.items():
        p = _uniformity_p(np.concatenate(r), 400)
        assert p > 0.01, (name, p)


def test_sbc_bradley_terry_nuts_identified_scale():
    """Naive Bradley-Terry under NUTS: theta ~ N(0, 1) per item (the model's prior with
    lambda = 1), 200 comparisons of 6 items on one fixed design, 100 datasets (one compile,
    reused).  Ranks of the identified (sum-to-zero) truth among the identified draws are
    uniform: identification is a function of theta, so it keeps SBC's guarantee.  4 x 1000
    draws thinned by 10.  Measured: 0 of 100 fits failed the gate (9 at 4 x 500); uniformity
    p = 0.12-0.83 over the six items; 100 s on 2 cores."""
    from judgebayes.inference.ranking.topk import identify
    from judgebayes.studies.ranking import PairwiseRanking

    rng = np.random.default_rng(13)
    N, n, R = 6, 200, 100
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    comps = np.zeros(N, dtype=int)
    ranks, failed = [], 0
    for r in range(R):
        theta = rng.normal(0, 1, N)
        y = (rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # counted below
            fit = PairwiseRanking.from_arrays(a, b, y, n_items=N).fit(
                "nuts", prior="none", random_seed=r, sampler={"draws": 1000, "tune": 1000}
            )
        if not fit.diagnostics.passed:
            failed += 1
            continue
        d = fit.idata.posterior["theta"].values[:, ::10, :].reshape(-1, N)  # 400 draws
        truth = identify(theta[None, :], comps)[0]
        ranks.append((d < truth[None, :]).sum(0))
    ranks = np.asarray(ranks)
    assert failed <= 5, failed
    for i in range(N):
        assert _uniformity_p(ranks[:, i], 400) > 0.01, (i, np.bincount(ranks[:, i] * N_BINS // 401))


def test_sbc_judge_error_model():
    """The judge-error ranking under NUTS: theta ~ N(0, 1) per item (lambda = 1), each
    judge's confusion rows ~ Dirichlet(4, 1) (the model's prior), 4 items, 2 judges, 300
    instances with a fifth human-labelled, 100 datasets on the complete group table (one
    compile).  Ranks of the identified qualities and of each judge's two agreement rates
    among 400 thinned draws are uniform.
    """
    from judgebayes.inference.nuts import sample_nuts
    from judgebayes.inference.ranking.topk import identify
    from judgebayes.inference.registry import SamplerConfig
    from judgebayes.simulate import simulate_judged_pairs

    rng = np.random.default_rng(21)
    N, R = 4, 100
    items = [f"m{i}" for i in range(N)]
    ranks: dict[str, list] = {"theta": [], "agreement": []}
    failed = 0
    for r in range(R):
        theta = rng.normal(0, 1, N)
        agree = rng.beta(4, 1, (2, 2))  # judge x human outcome: P(verdict = human)
        conf = np.stack([[[q[0], 1 - q[0]], [1 - q[1], q[1]]] for q in agree])
        sim = simulate_judged_pairs(
            N, 300, labelled=0.2, confusion=conf, theta=theta, items=items, seed=r
        )
        spec = sim.ranking().channel_spec(complete=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # counted below
            idata, diag, _ = sample_nuts(
                spec, random_seed=r, sampler=SamplerConfig(draws=1000, tune=1000)
            )
        if not diag.passed:
            failed += 1
            continue
        post = idata.posterior
        th = identify(post["theta"].values[:, ::10].reshape(-1, N), np.zeros(N, dtype=int))
        truth = identify(theta[None, :], np.zeros(N, dtype=int))[0]
        ranks["theta"].append((th < truth).sum(0))
        ag = post["agreement"].values[:, ::10].reshape(-1, 4)
        ranks["agreement"].append((ag < agree.reshape(-1)).sum(0))
    assert failed <= 5, failed
    for name, rs in ranks.items():
        rs = np.asarray(rs)
        for i in range(rs.shape[1]):
            assert _uniformity_p(rs[:, i], 400) > 0.01, (name, i)


def _bias_prior_draw(prior: str, rng) -> np.ndarray:
    """The two bias coefficients (length, position) drawn from ``prior`` as the model states
    it (RankingPriors defaults)."""
    from judgebayes.models.ranking import RankingPriors

    if prior == "normal":
        return rng.normal(0, 1 / np.sqrt(RankingPriors().lam_b), 2)
    if prior == "hierarchical":
        return abs(rng.normal(0, 1)) * rng.normal(0, 1, 2)
    # regularized horseshoe: tau = tau0 |N| sqrt(IG(1.5, 1.5)), lambda = |N| sqrt(IG(0.5,
    # 0.5)), c2 ~ IG(2, 8), b = z tau lambda~
    tau = abs(rng.normal()) * np.sqrt(stats.invgamma(1.5, scale=1.5).rvs(random_state=rng))
    lam = np.abs(rng.normal(size=2)) * np.sqrt(
        stats.invgamma(0.5, scale=0.5).rvs(2, random_state=rng)
    )
    c2 = stats.invgamma(2.0, scale=8.0).rvs(random_state=rng)
    return rng.normal(0, 1, 2) * tau * np.sqrt(c2 * lam**2 / (c2 + tau**2 * lam**2))


@pytest.mark.parametrize(
    ("prior", "seed", "R", "max_failed"),
    [("normal", 17, 100, 5), ("hierarchical", 17, 100, 5), ("horseshoe", 23, 60, 10)],
)
def test_sbc_bias_aware_bradley_terry(prior, seed, R, max_failed):
    """The bias-aware model under NUTS with each bias prior: theta ~ N(0, 1) per item and
    the length and position coefficients drawn from the prior (:func:`_bias_prior_draw`);
    6 items, 300 comparisons with a per-comparison length covariate (unstandardised N(0, 1)
    values, so the truth is on the model's scale) on one fixed design, one compile, 4 x
    1000 draws at each prior's default target_accept.  Ranks of the identified qualities
    and of both coefficients among 400 thinned draws are uniform over the fits that pass
    the gate.

    Measured: normal and hierarchical (100 data sets) pass with at most 5 gate failures
    (the hierarchical one needed target_accept 0.99: 25 of 100 failed at 0.95); the
    horseshoe (60 data sets) fails the gate 6 times (R-hat 1.01-1.02 on the scales'
    half-normal / inverse-gamma factors, or one divergence), ranks uniform (p 0.13-0.84)
    over the 54 that pass.  Failures are Binomial(60, ~0.1) (sd 2.3): at most 10.
    """
    from judgebayes.data.ranking import pairwise_from_arrays
    from judgebayes.inference.ranking.topk import identify
    from judgebayes.studies.ranking import PairwiseRanking

    rng = np.random.default_rng(seed)
    N, n = 6, 300
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    xa, xb = rng.normal(0, 1, n), rng.normal(0, 1, n)
    comps = np.zeros(N, dtype=int)
    ranks: dict[str, list] = {"theta": [], "b": []}
    failed = 0
    for r in range(R):
        theta = rng.normal(0, 1, N)
        coef = _bias_prior_draw(prior, rng)
        eta = theta[a] - theta[b] + coef[0] * (xa - xb) + coef[1]
        y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
        data = pairwise_from_arrays(
            a, b, y, n_items=N, comparison_covariates={"length": (xa, xb)}, standardise=False
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # counted below
            fit = PairwiseRanking(data).fit(
                "nuts",
                prior=prior,
                random_seed=r,
                warn=False,
                sampler={"draws": 1000, "tune": 1000},
            )
        if not fit.diagnostics.passed:
            failed += 1
            continue
        post = fit.idata.posterior
        th = post["theta"].values[:, ::10].reshape(-1, N)  # identified already
        ranks["theta"].append((th < identify(theta[None, :], comps)[0]).sum(0))
        ranks["b"].append((post["b"].values[:, ::10].reshape(-1, 2) < coef).sum(0))
    assert failed <= max_failed, failed
    for name, rs in ranks.items():
        rs = np.asarray(rs)
        for i in range(rs.shape[1]):
            assert _uniformity_p(rs[:, i], 400) > 0.01, (name, i)


# the other NUTS models, through the package's SBC sweep (judgebayes.simulate.sbc): each
# problem draws its datasets from the model's own default prior and fits them at the
# model's default sampler settings.  Measured in benchmarks/sbc.py (BENCHMARKS.md, same
# seeds and sizes): failures and the smallest p-value per problem are recorded there.
@pytest.mark.parametrize(
    ("problem", "n", "max_failed"),
    [
        ("binary_random", 200, 10),
        ("binary_shifted", 200, 10),
        ("strata", 200, 10),
        ("multiclass", 200, 10),
        # the item model at its default (4 x 1000 at 0.9) missed the gate on 17 of 100
        # prior draws (1-3 divergences, or R-hat 1.010-1.012 on mu_tpr: the validator
        # population's funnel when the prior draws a small spread); ranks over the 83 that
        # passed are uniform.  Binomial(100, 0.17) sd 3.8: at most 25
        ("panel_items", 100, 25),
        ("panel_cells", 100, 15),
        # the judge's rates pooled across systems: 10 of 200 missed the gate (R-hat
        # 1.010-1.011 on the typical sensitivity); Binomial(200, 0.05) sd 3.1: at most 20
        ("items_pooled", 200, 20),
        # rate and judge rates logistic in a covariate: 2 of 200 (a divergence): at most 8
        ("items_covariate", 200, 8),
        # the judge's rates and the rate as random walks with two-normal mixture steps over
        # 6 periods: 8 of 200 missed the gate (R-hat 1.010-1.012, one divergence);
        # Binomial(200, 0.04) sd 2.8: at most 17 (3 sd)
        ("items_over_time", 200, 17),
        # the scores model (ordinal, partially pooled system offsets): 0 of 30 missed the
        # gate (seed 0, 14 draws refused for a level without labels); at most 8 of 200
        ("scores", 200, 8),
        # the leaderboard's one-parameter model (5 systems x 40 items): 0 of 200 missed the
        # gate (seed 2026); at most 8
        ("board", 200, 8),
    ],
)
def test_sbc_of_every_nuts_model(problem, n, max_failed):
    """Ranks uniform over the fits that pass the gate, for every reported quantity and
    judge rate.  A problem has up to 16 components (4 generators x 4 quantities), so the
    uniformity test runs at a family-wise level: every component's chi-square p-value
    above 0.01 / (number of components) (Bonferroni), which is p > 0.01 for the problem
    as a whole.  Failed fits are counted (the bound is Binomial-noise room above what
    was measured), never pooled into the ranks tested."""
    from judgebayes.simulate.sbc import sbc_study

    res = sbc_study(problem, n, random_seed=2026)
    assert res.n_failed <= max_failed, (res.n_failed, res.messages)
    u = res.uniformity()
    assert u["p_value"].min() > 0.01 / len(u), u.sort_values("p_value").head()
