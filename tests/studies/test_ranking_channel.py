"""Judge-error-corrected rankings: the study's refusals, prediction-powered Bradley-Terry
against ppi_py and against a likelihood written here, the NUTS model's recovery of a
simulated truth, and PandaLM with a fifth of its human votes against all of them (the
channel data themselves: tests/data/ranking/test_channel.py).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.stats import kendalltau

import judgebayes as jb
from judgebayes.datasets import pandalm_comparisons, pandalm_judged
from judgebayes.errors import ConvergenceWarning, InputError, MethodRefused
from judgebayes.inference.ranking.ppi import ppi_bradley_terry
from judgebayes.studies.ranking import PairwiseRanking
from tests.contract import ContractTests
from tests.helpers import cli


# ------------------------------------------------------------------ study
def _frame():
    return pd.DataFrame(
        {
            "pair": [0, 0, 1, 1, 2],
            "first": ["a", "a", "b", "b", "c"],
            "second": ["b", "b", "c", "c", "a"],
            "winner": ["a", "b", "c", "", "c"],
            "judge": ["j1", "j2", "j1", "j2", "j1"],
            "human": ["a", "a", None, None, "tie"],
        }
    )


def test_half_ties_and_missing_human_column_are_refused():
    with pytest.raises(InputError, match="half a win"):
        PairwiseRanking.from_frames(_frame(), human="human", instance="pair", ties="half")
    rk = PairwiseRanking.from_frames(_frame())
    with pytest.raises(MethodRefused, match="human="):
        rk.fit("judge_error")
    # without humans the instance ids serve the order-swap check of the judges' verdicts
    assert PairwiseRanking.from_frames(_frame(), instance="pair").instance is not None
    # the judge-error methods have no bias terms, so no bias prior (an unknown keyword)
    with pytest.raises(InputError, match="prior") as e:
        PairwiseRanking.from_frames(_frame(), human="human", instance="pair").fit(
            "ppi", prior="normal"
        )
    assert e.value.field == "prior"


# ------------------------------------------------------------------ PPI
def _sim_binary(seed, n_lab=300, n_unl=3000, items=6):
    rng = np.random.default_rng(seed)
    th = rng.normal(0, 1, items)

    def draw(m):
        a = rng.integers(0, items, m)
        b = (a + rng.integers(1, items, m)) % items
        y = (rng.random(m) < 1 / (1 + np.exp(-(th[a] - th[b])))).astype(float)
        flip = rng.random(m) < np.where(y == 1, 0.1, 0.25)  # a first-favouring judge
        return a, b, y, np.where(flip, 1 - y, y)

    return draw(n_lab), draw(n_unl), items


@pytest.mark.parametrize("lam", [None, 1.0, 0.3])
def test_ppi_bradley_terry_is_ppi_py_logistic_on_two_outcomes(lam):
    from ppi_py import ppi_logistic_ci

    (al, bl, yl, hl), (au, bu, _, hu), items = _sim_binary(3)

    def onehot(v):
        return np.column_stack([v, 1 - v])

    res = ppi_bradley_terry(al, bl, onehot(yl), onehot(hl), au, bu, onehot(hu), items, lam=lam)

    def X(a, b):  # BT as logistic regression without the reference item's column
        return (np.eye(items)[a] - np.eye(items)[b])[:, 1:]

    lo, hi = ppi_logistic_ci(X(al, bl), yl, hl, X(au, bu), hu, alpha=0.05, lam=lam)
    # ppi_py optimises by L-BFGS to ftol 1e-15, we by Newton to 1e-12: agreement to 1e-6
    np.testing.assert_allclose(res.theta[1:], (lo + hi) / 2, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(res.cov)), (hi - lo) / 2 / 1.959963984540054,
                               atol=1e-6)  # fmt: skip
    if lam is not None:
        assert res.lam == lam
    else:
        assert 0 < res.lam < 1


def _davidson_nll(phi, a, b, t, items):
    """Mean cross-entropy of Davidson's model (written from Davidson 1970), theta_0 = 0."""
    th = np.concatenate([[0.0], phi[: items - 1]])
    eta = th[a] - th[b]
    u = np.column_stack([eta / 2, -eta / 2, np.full_like(eta, phi[-1])])
    logp = u - np.log(np.exp(u).sum(1, keepdims=True))
    return -(t * logp).sum(1).mean()


def test_ppi_with_ties_is_the_davidson_estimator():
    sim = jb.simulate.simulate_judged_pairs(5, 2000, labelled=0.3, nu=0.6, seed=4)
    ch = sim.ranking().channel
    eye = np.eye(3)
    lab, unl = ch.human >= 0, ch.human < 0
    pred = np.stack([(ch.verdicts == k).mean(1) for k in range(3)], 1)
    args = (ch.first[lab], ch.second[lab], eye[ch.human[lab]], pred[lab])
    uargs = (ch.first[unl], ch.second[unl], pred[unl])
    # lambda = 0: the human-only maximum-likelihood estimate
    r0 = ppi_bradley_terry(*args, *uargs, 5, lam=0.0)
    ref = minimize(_davidson_nll, np.zeros(5), args=(args[0], args[1], args[2], 5), tol=1e-12)
    np.testing.assert_allclose(r0.theta[1:], ref.x[:4], atol=1e-5)
    assert r0.log_nu == pytest.approx(ref.x[4], abs=1e-5)

    # lambda = 1: the minimiser of the rectified objective written here (gradient ~ 0)
    def objective(phi):
        return (
            _davidson_nll(phi, args[0], args[1], args[2], 5)
            + _davidson_nll(phi, uargs[0], uargs[1], uargs[2], 5)
            - _davidson_nll(phi, args[0], args[1], args[3], 5)
        )

    r1 = ppi_bradley_terry(*args, *uargs, 5, lam=1.0)
    phi = np.concatenate([r1.theta[1:], [r1.log_nu]])
    h = 1e-6
    grad = [(objective(phi + h * e) - objective(phi - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(grad, 0, atol=1e-7)


# ------------------------------------------------------------------ NUTS
@pytest.fixture(scope="module")
def simulated_fit():
    sim = jb.simulate.simulate_judged_pairs(6, 800, labelled=0.2, seed=3)
    return sim, sim.ranking().fit("judge_error", random_seed=0)


def test_judge_error_model_recovers_the_simulated_truth(simulated_fit):
    sim, fit = simulated_fit
    assert fit.diagnostics.passed, fit.diagnostics.message()
    assert fit.info["n_labelled"] == 187 and fit.info["identification"] == "sum_to_zero"
    iv = fit.interval()
    assert ((iv["lower"] <= sim.theta) & (sim.theta <= iv["upper"])).all()
    ct = fit.channel_table()
    truth = sim.confusion.reshape(-1)  # judge, human, verdict: the table's row order
    z = np.abs(ct["estimate"] - truth) / ((ct["upper"] - ct["lower"]) / 3.92)
    assert z.max() < 3, ct.assign(truth=truth)
    # the position-biased judge is seen as one: P(first | human second) > P(second | first)
    j0 = ct[ct["judge"] == "judge0"].set_index(["human", "verdict"])["estimate"]
    assert j0[("second", "first")] > j0[("first", "second")] + 0.1
    # the predictive checks of the judges' verdicts are not this fit's: only its channel's
    assert [r.check for r in sim.ranking().check(fit)] == ["channel"]


def test_judge_error_model_is_sharper_than_the_humans_alone(simulated_fit):
    sim, fit = simulated_fit
    humans = sim.ranking().human_only().fit("naive", random_seed=0)
    width = fit.interval().eval("upper - lower")
    assert (width < humans.interval().eval("upper - lower")).all()
    with pytest.raises(InputError, match="no judge confusion"):
        humans.channel_table()


@pytest.fixture(scope="module")
def pandalm():
    full = PairwiseRanking.from_frames(pandalm_judged(), human="human", instance="idx")
    mask = np.zeros(full.channel.n_instances, dtype=bool)
    mask[np.random.default_rng(0).choice(full.channel.n_instances, 200, replace=False)] = True
    ref = PairwiseRanking.from_frames(pandalm_comparisons("human")).fit("naive", random_seed=0)
    return full, full.with_labelled(mask), ref.point


def test_pandalm_with_a_fifth_of_the_humans_covers_the_all_human_ranking(pandalm):
    full, sub, ref = pandalm
    assert sub.channel.n_labelled == 200 and sub.channel.n_outcomes == 3
    fit = sub.fit("judge_error", random_seed=0)
    assert fit.diagnostics.passed, fit.diagnostics.message()
    iv = fit.interval()
    assert ((iv["lower"] <= ref) & (ref <= iv["upper"])).all()
    ppi = sub.fit("ppi", random_seed=0)
    pv = ppi.interval()
    assert ((pv["lower"] <= ref) & (ref <= pv["upper"])).all()
    assert 0 < ppi.info["lam"] <= 1
    # the judges' own ranking is confidently off: some interval misses the human quality
    judges = full.fit("naive", random_seed=0).interval()
    assert not ((judges["lower"] <= ref) & (ref <= judges["upper"])).all()
    # the corrected intervals are narrower than those of the 200 human votes alone
    humans = sub.human_only().fit("naive", random_seed=0).interval()
    assert (iv.eval("upper - lower") < humans.eval("upper - lower")).all()
    assert kendalltau(fit.point, ref).statistic >= 0.6


@pytest.mark.slow
def test_pandalm_corrected_ranking_beats_judges_and_humans_alone_over_50_subsets(pandalm):
    """The acceptance setting: Kendall tau against the all-human ranking, averaged over 50
    random 20% human subsets, at least that of the judge votes alone and of the 20% human
    votes alone; the 95% intervals cover the all-human qualities.  (Measured: 0.884 vs
    0.800 and 0.812, coverage 0.976; benchmarks/judge_error_pandalm.py.)
    """
    full, _, ref = pandalm
    n = full.channel.n_instances
    judges = kendalltau(full.fit("naive", random_seed=0).point, ref).statistic
    taus, human_taus, cover = [], [], []
    for s in range(50):
        mask = np.zeros(n, dtype=bool)
        mask[np.random.default_rng(s).choice(n, 200, replace=False)] = True
        sub = full.with_labelled(mask)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = sub.fit("judge_error", random_seed=s)
        iv = fit.interval()
        taus.append(kendalltau(fit.point, ref).statistic)
        cover.append(np.mean((iv["lower"] <= ref) & (ref <= iv["upper"])))
        human_taus.append(kendalltau(sub.human_only().fit("naive").point, ref).statistic)
    assert np.mean(taus) >= judges and np.mean(taus) >= np.mean(human_taus)
    # 250 (draw, item) intervals share their data, so no binomial band: a floor of 0.9
    assert np.mean(cover) >= 0.9


def test_contract_members_of_channel_fits(pandalm):
    _, sub, _ = pandalm
    fit = sub.fit("ppi", random_seed=1, reference="llama-7b", power_tuning=False)
    assert fit.label == "ppi" and fit.info["lam"] == 1.0
    assert fit.info["identification"] == "reference=llama-7b"
    assert fit.interval().loc["llama-7b", "estimate"] == 0
    assert fit.top_k(2)["p_top_k"].sum() == pytest.approx(2)
    table = jb.compare([fit], alpha=0.1)
    assert set(table["method"]) == {"ppi"}


def test_cli_ranks_by_human_preference_with_ppi(tmp_path, pandalm):
    import json

    _, sub, _ = pandalm
    df = pandalm_judged()
    labelled = set(np.asarray(sub.channel.instance_ids)[sub.channel.human >= 0].tolist())
    df["human"] = df["human"].where(df["idx"].astype(str).isin(labelled))
    path = tmp_path / "judged.csv"
    df.to_csv(path, index=False)
    cmd = ["rank", str(path), "--human", "human"]
    out = cli(*cmd, "--instance", "idx", "--method", "ppi", "--format", "json", "--quiet")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["method"] == "ppi" and res["channel"]["n_labelled"] == 200
    api = sub.fit("ppi", random_seed=0).interval()
    for row in res["items"]:
        assert row["estimate"] == pytest.approx(api.loc[row["item"], "estimate"], abs=1e-9)
    bad = cli("rank", str(path), "--method", "judge-error")
    assert bad.returncode == 2 and "--human" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def _length_biased_judge(seed, override, n=600, labelled=0.5):
    """Five systems; the judge picks s0 (whose answers are always the longer) with
    probability ``override`` whenever s0 is in the pair."""
    return jb.simulate.simulate_favouring_judge(n, override=override, labelled=labelled, seed=seed)


def test_channel_check_flags_a_constant_channel_on_a_judge_whose_errors_follow_the_items():
    # 8 sets each: over 20 the check flagged 80% of the length-biased sets and none of the
    # constant-confusion ones (BENCHMARKS, rankings); here >= 5 of 8 and <= 1 of 8
    flagged = {}
    for override in (0.0, 0.3):
        hits = 0
        for r in range(8):
            rk = jb.PairwiseRanking.from_frames(_length_biased_judge(r, override), human="human")
            fit = rk.fit("judge_error", random_seed=r, warn=False, judge_bias="none")
            report = rk.check(fit)
            assert [r.check for r in report] == ["channel"]
            hits += not report.passed
        flagged[override] = hits
    assert flagged[0.3] >= 5 and flagged[0.0] <= 1, flagged


def test_default_channel_learns_the_favoured_system_and_passes_its_check():
    # the default channel lets the judge favour items: on a set where it picks s0 in 30% of
    # s0's comparisons whatever the human said, s0's favouritism is the largest and clearly
    # positive, the check no longer flags, and s0's quality interval covers the truth
    rk = jb.PairwiseRanking.from_frames(_length_biased_judge(3, 0.3), human="human")
    fit = rk.fit("judge_error", random_seed=3, warn=False)
    assert fit.info["judge_favours_items"] and fit.diagnostics.passed
    fav = fit.idata.posterior["favour"].sel(judge="judge").values.reshape(-1, 5)
    rel = fav - fav.mean(1, keepdims=True)  # favouritism is defined up to a constant
    assert np.argmax(rel.mean(0)) == 0 and np.quantile(rel[:, 0], 0.025) > 0
    assert rk.check(fit).passed
    q = np.array([0.0, 0.3, -0.2, 0.5, -0.4])
    th = fit.theta_draws()
    d = th - th.mean(1, keepdims=True)
    lo, hi = np.quantile(d, [0.025, 0.975], axis=0)
    truth = q - q.mean()
    assert lo[0] <= truth[0] <= hi[0]
    with pytest.raises(InputError, match="judge_bias") as e:
        rk.fit("judge_error", judge_bias=["length"])
    assert e.value.field == "judge_bias"


@pytest.mark.slow
def test_default_channel_covers_where_the_constant_channel_does_not():
    # 20 sets of the length-biased judge: the constant channel's intervals for s0 covered
    # 31% of 40 sets in the report that asked for this model; measured here: see
    # BENCHMARKS (misspecification); MC sd of a 0.95 coverage over 20 sets 0.049, so the
    # rule's 2.5 sd floor is 0.83
    q = np.array([0.0, 0.3, -0.2, 0.5, -0.4])
    truth = q - q.mean()
    hits = []
    for r in range(20):
        rk = jb.PairwiseRanking.from_frames(_length_biased_judge(100 + r, 0.3), human="human")
        fit = rk.fit("judge_error", random_seed=r, warn=False)
        th = fit.theta_draws()
        d = th - th.mean(1, keepdims=True)
        lo, hi = np.quantile(d[:, 0], [0.025, 0.975])
        hits.append(lo <= truth[0] <= hi)
    assert np.mean(hits) >= 0.83


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("ranking.channel",)
