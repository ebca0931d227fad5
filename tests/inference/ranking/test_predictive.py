"""Posterior predictive checks of pairwise models (judgebayes/inference/ranking/predictive.py):
the pairs indexed by hand, replicated verdicts at their Bradley-Terry and Davidson
probabilities, a 3-cycle and an order swap counted by hand."""

import numpy as np

from judgebayes.inference.ranking.predictive import (
    pair_index,
    predictive_check_table,
    replicate_outcomes,
)


def test_each_comparison_gets_its_unordered_pair_and_the_side_shown_first():
    pid, lo, hi, sign = pair_index(np.array([0, 2, 1]), np.array([1, 0, 0]), 3)
    assert pid.tolist() == [0, 1, 0] and lo.tolist() == [0, 0] and hi.tolist() == [1, 2]
    assert sign.tolist() == [1.0, -1.0, -1.0]  # +1: the lower-indexed item shown first


def test_replicates_follow_bradley_terry_and_davidson_probabilities():
    rng = np.random.default_rng(0)
    n = 30_000  # a share's Monte-Carlo sd is at most 0.003: 0.012 is 4 sd
    bt = replicate_outcomes(np.full((1, n), np.log(4.0)), None, rng)
    assert abs(bt.mean() - 0.8) < 0.012  # sigma(log 4) = 4 / 5
    # Davidson at equal quality with nu = 1: win, loss and tie each 1/3
    dv = replicate_outcomes(np.zeros((1, n)), np.ones(1), rng)
    for value in (1.0, 0.0, 0.5):
        assert abs(np.mean(dv == value) - 1 / 3) < 0.012


def test_a_three_cycle_and_an_order_swap_are_counted():
    # 0 beats 1, 1 beats 2, 2 beats 0 (one 3-cycle); instance 7 shows (0, 1) in both
    # orders and item 0 wins both times
    first, second = np.array([0, 1, 2, 1]), np.array([1, 2, 0, 0])
    y = np.array([1.0, 1.0, 1.0, 0.0])
    eta = np.zeros((50, 4))
    rows, pairs = predictive_check_table(
        y, first, second, 3, eta, None, np.random.default_rng(1), instance=np.array([7, 8, 9, 7])
    )
    by = {r["statistic"]: r for r in rows}
    assert by["intransitive"]["observed"] == 1.0
    assert by["order_swap"]["observed"] == 1.0 and by["order_swap"]["n"] == 1
    # pair (0, 1) compared twice, item 0 winning both: its observed share is 1
    assert pairs["n"].tolist() == [2.0, 1.0, 1.0] and pairs["observed"][0] == 1.0
