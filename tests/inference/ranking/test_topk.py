"""Summaries of ranking draws (judgebayes/inference/ranking/topk.py): top-k probabilities,
ranks, tiers whose joint error is controlled, identification per component, the expected-
recall set.
"""

import numpy as np
import pytest

from judgebayes.inference.ranking.topk import (
    expected_recall_set,
    identify,
    prob_better,
    rank_draws,
    separable_groups,
    top_k_probabilities,
)


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
    # item 0 beats both 1 and 2 with P = P(N(2,1) < 3)^2 ~ 0.71 < 0.95 (one tier), and the
    # three beat item 3 with P ~ 1
    assert [sorted(x.tolist()) for x in g] == [[0, 1, 2], [3]]
    assert separable_groups(draws, level=0.8)[0].tolist() != [0]
    assert separable_groups(draws, level=0.6)[0].tolist() == [0]


def test_tiers_control_the_joint_error():
    """With the truth drawn from the posterior itself, every stated separation holds at
    once in at least ``level`` of the truths (the tiers' promise); the per-cut leader rule
    it replaced kept cuts whose joint probability was lower."""
    rng = np.random.default_rng(1)
    N, S = 12, 20_000
    # pairs 0.3 apart (not separable), pairs 2.0 apart (separable at both levels)
    mean = -np.cumsum(np.tile([0.3, 2.0], N // 2))
    post = rng.normal(mean, 0.5, (S, N))
    truth = rng.normal(mean, 0.5, (S, N))
    for level in (0.8, 0.95):
        tiers = separable_groups(post, level=level)
        assert 1 < len(tiers) < N
        ok = np.ones(S, dtype=bool)
        for t in range(1, len(tiers)):
            above, below = np.concatenate(tiers[:t]), np.concatenate(tiers[t:])
            ok &= truth[:, above].min(axis=1) > truth[:, below].max(axis=1)
        # MC error of a share from 20,000 truths is at most 0.0035; 0.01 is ~3 sd
        assert ok.mean() >= level - 0.01


def test_identify_and_expected_recall_set():
    rng = np.random.default_rng(2)
    d = rng.normal(size=(50, 5)) + rng.normal(size=(50, 1)) * 10
    comps = np.array([0, 0, 0, 1, 1])
    z = identify(d, comps)
    np.testing.assert_allclose(z[:, :3].sum(1), 0, atol=1e-12)
    np.testing.assert_allclose(z[:, 3:].sum(1), 0, atol=1e-12)
    # differences within a component are untouched
    np.testing.assert_allclose(z[:, 0] - z[:, 2], d[:, 0] - d[:, 2])
    r = identify(d, comps, reference=1)
    np.testing.assert_allclose(r[:, 1], 0)
    np.testing.assert_allclose(r[:, 0], d[:, 0] - d[:, 1])
    np.testing.assert_allclose(r[:, 3:].sum(1), 0, atol=1e-12)
    # expected recall of a set is sum(p)/k: the optimum is the k largest p
    p = np.array([0.9, 0.2, 0.6, 0.55, 0.75])
    assert sorted(expected_recall_set(p, 3).tolist()) == [0, 2, 4]
