"""The ``channel`` check (judgebayes/checks/ranking/channel.py), on fits built from known draws.

The comparisons are simulated here with numpy: five systems, a human who prefers by
Bradley-Terry, and a judge who reports the human's preference with probability 0.85,
except that with probability ``override`` it picks s0 whenever s0 is in the pair.  The
fit's draws of the constant channel are the conjugate posterior of the labelled
(human, verdict) counts: Dirichlet(prior + counts) per human outcome, the channel a
model without item favouritism would learn from them.  So the check should pass when the
judge's errors are constant and flag the cells of s0 when they follow the item.
"""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.results.trees import tree
from judgebayes.studies.ranking import PairwiseRanking
from judgebayes.studies.ranking.fit import RankingFit
from tests.helpers import length_biased_judge

SYSTEMS = ["s0", "s1", "s2", "s3", "s4"]
QUALITY = np.array([0.0, 0.3, -0.2, 0.5, -0.4])


def _comparisons(seed: int, override: float, n: int = 600, labelled: float = 0.5):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 5, n)) % 5
    second_wins = rng.random(n) < 1 / (1 + np.exp(-(QUALITY[b] - QUALITY[a])))
    says_second = np.where(rng.random(n) < 0.85, second_wins, ~second_wins)
    favours = ((a == 0) | (b == 0)) & (rng.random(n) < override)
    says_second = np.where(favours, b == 0, says_second)
    names = np.array(SYSTEMS)
    human = np.where(second_wins, names[b], names[a]).astype(object)
    human[rng.random(n) >= labelled] = np.nan
    return pd.DataFrame(
        {
            "first": names[a],
            "second": names[b],
            "winner": np.where(says_second, names[b], names[a]),
            "human": human,
        }
    )


def _conjugate_channel_fit(ranking, draws: int = 2000, seed: int = 0) -> RankingFit:
    """Draws of one judge's 2 x 2 confusion: Dirichlet(4 agreeing + counts, 1 + counts)
    per human outcome, over the labelled comparisons."""
    ch = ranking.channel
    rng = np.random.default_rng(seed)
    conf = np.empty((draws, 1, 2, 2))
    for h in (0, 1):
        counts = np.bincount(ch.verdicts[ch.human == h, 0], minlength=2)
        prior = np.where(np.arange(2) == h, 4.0, 1.0)
        conf[:, 0, h] = rng.dirichlet(prior + counts, draws)
    idata = tree(
        {
            "posterior": {
                "confusion": conf.reshape(4, draws // 4, 1, 2, 2),
                "theta": np.zeros((4, draws // 4, 5)),
            }
        },
        coords={"judge": list(ch.judges), "item": list(ch.items)},
        dims={"confusion": ["judge", "human_outcome", "verdict"], "theta": ["item"]},
    )
    return RankingFit(method="judge_error", idata=idata, family="ranking", unit="item")


@pytest.mark.parametrize("override, most", [(0.0, 1), (0.3, None)])
def test_the_check_flags_a_judge_whose_errors_follow_an_item(override, most):
    flagged = 0
    for seed in range(8):
        rk = PairwiseRanking.from_frames(_comparisons(seed, override), human="human")
        report = rk.check(_conjugate_channel_fit(rk, seed=seed))
        assert [r.check for r in report] == ["channel"]
        table = report["channel"].table
        # 5 items x (preferred or not); every cell holds at least the check's minimum
        assert len(table) == 10 and (table["n"] >= 10).all()
        if not report.passed:
            flagged += 1
            # what is flagged is s0's cells, the item the judge favours
            assert table.loc[table["flagged"], "unit"].str.contains("s0").all(), table
    if most is not None:  # constant errors: Holm at 0.01 over 10 cells, rare alarms
        assert flagged <= most
    else:  # s0 picked in 30% of its comparisons whatever the human said
        assert flagged >= 6


def test_the_expected_agreement_is_the_channel_s():
    rk = PairwiseRanking.from_frames(_comparisons(11, 0.0), human="human")
    fit = _conjugate_channel_fit(rk, draws=1000)  # the check's own number of draws
    table = rk.check(fit)["channel"].table.set_index("unit")
    ch = rk.channel
    conf = fit.idata.posterior["confusion"].values.reshape(-1, 2, 2)
    # the expected count of agreeing verdicts in a cell is sum over its comparisons of
    # E[confusion[h, h]]: recomputed here from the draws by hand
    row = table.loc["judge: s1, preferred by the human"]
    preferred = np.where(ch.human == 0, ch.first, np.where(ch.human == 1, ch.second, -1))
    mask = (preferred == 1) & ((ch.first == 1) | (ch.second == 1))
    h = ch.human[mask]
    expected = conf[:, h, h].sum(1).mean()
    assert row["n"] == mask.sum() and row["expected"] == pytest.approx(expected, rel=1e-9)
    assert row["observed"] == np.sum(ch.verdicts[mask, 0] == h)


def test_the_check_is_for_the_judge_error_fit_only():
    rk = PairwiseRanking.from_frames(_comparisons(3, 0.0), human="human")
    fit = _conjugate_channel_fit(rk)
    other = RankingFit(method="ppi", idata=fit.idata, family="ranking", unit="item")
    assert "channel" not in {r.check for r in rk.check(other)}


def test_channel_check_flags_a_constant_channel_on_a_judge_whose_errors_follow_the_items():
    # 8 sets each: over 20 the check flagged 80% of the length-biased sets and none of the
    # constant-confusion ones (BENCHMARKS, rankings); here >= 5 of 8 and <= 1 of 8
    flagged = {}
    for override in (0.0, 0.3):
        hits = 0
        for r in range(8):
            rk = jb.PairwiseRanking.from_frames(length_biased_judge(r, override), human="human")
            fit = rk.fit("judge_error", random_seed=r, warn=False, judge_bias="none")
            report = rk.check(fit)
            assert [r.check for r in report] == ["channel"]
            hits += not report.passed
        flagged[override] = hits
    assert flagged[0.3] >= 5 and flagged[0.0] <= 1, flagged
