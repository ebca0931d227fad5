"""Judge-error-corrected rankings (judgebayes/studies/ranking/channel.py): the study's
refusals, the NUTS model's recovery of a simulated truth, PandaLM with a fifth of its human
votes against all of them, the default channel that lets a judge favour items, and the
contract's cases (the channel data: tests/data/ranking/test_channel.py; PPI:
tests/inference/ranking/test_ppi.py).
"""

import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau

import judgebayes as jb
from judgebayes.errors import ConvergenceWarning, InputError, MethodRefused
from judgebayes.studies.ranking import PairwiseRanking
from tests.contract import ContractTests
from tests.helpers import channel_frame, length_biased_judge


# ------------------------------------------------------------------ study
def test_half_ties_and_missing_human_column_are_refused():
    with pytest.raises(InputError, match="half a win"):
        PairwiseRanking.from_frames(channel_frame(), human="human", instance="pair", ties="half")
    rk = PairwiseRanking.from_frames(channel_frame())
    with pytest.raises(MethodRefused, match="human="):
        rk.fit("judge_error")
    # without humans the instance ids serve the order-swap check of the judges' verdicts
    assert PairwiseRanking.from_frames(channel_frame(), instance="pair").instance is not None
    # the judge-error methods have no bias terms, so no bias prior (an unknown keyword)
    with pytest.raises(InputError, match="prior") as e:
        PairwiseRanking.from_frames(channel_frame(), human="human", instance="pair").fit(
            "ppi", prior="normal"
        )
    assert e.value.field == "prior"


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


def test_default_channel_learns_the_favoured_system_and_passes_its_check():
    # the default channel lets the judge favour items: on a set where it picks s0 in 30% of
    # s0's comparisons whatever the human said, s0's favouritism is the largest and clearly
    # positive, the check no longer flags, and s0's quality interval covers the truth
    rk = jb.PairwiseRanking.from_frames(length_biased_judge(3, 0.3), human="human")
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
        rk = jb.PairwiseRanking.from_frames(length_biased_judge(100 + r, 0.3), human="human")
        fit = rk.fit("judge_error", random_seed=r, warn=False)
        th = fit.theta_draws()
        d = th - th.mean(1, keepdims=True)
        lo, hi = np.quantile(d[:, 0], [0.025, 0.975])
        hits.append(lo <= truth[0] <= hi)
    assert np.mean(hits) >= 0.83


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("ranking.channel",)
