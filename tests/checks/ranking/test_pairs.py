"""The ``pairs`` check (judgebayes/checks/ranking/pairs.py): the Bradley-Terry fit's replicated
verdicts against the observed ones, on Laplace fits (no sampler) of data simulated here.
"""

import numpy as np
import pytest

from judgebayes.checks.ranking import pairs as pair_check
from judgebayes.errors import InputError
from judgebayes.studies.ranking import PairwiseRanking


def test_predictive_checks_pass_when_the_model_holds_and_flag_what_it_misses():
    """Well-specified BT with a position effect: no check fires.  Then two departures
    the model cannot represent: a pair whose outcome defies the qualities (win matrix,
    that pair flagged) and instance effects shared by both presentation orders (order
    swap: the twins agree far more often than independent replicates)."""
    rng = np.random.default_rng(8)
    N, n_inst = 8, 1500
    theta = np.linspace(-1.5, 1.5, N)
    i = rng.integers(0, N, n_inst)
    j = (i + rng.integers(1, N, n_inst)) % N
    a, b = np.concatenate([i, j]), np.concatenate([j, i])
    inst = np.tile(np.arange(n_inst), 2)
    kappa = 0.4
    y = (rng.random(2 * n_inst) < 1 / (1 + np.exp(-(theta[a] - theta[b] + kappa)))).astype(float)
    study = PairwiseRanking.from_arrays(a, b, y, n_items=N, instance=inst)
    fit = study.fit("laplace", random_seed=0)
    ok = pair_check.table(fit, study.instance)
    assert set(ok.index) == {"win_matrix", "intransitive", "order_swap"}
    # one seed, three p-values from 500 replicates: under the model each is roughly
    # uniform, so 0.01 gives a false alarm rate of ~3%; fixed seed keeps it reproducible
    assert (ok["p_value"] > 0.01).all(), ok
    assert ok.loc["order_swap", "n"] == n_inst
    # the study's check reads the same table (Holm over its three rows)
    report = study.check(fit)
    assert [r.check for r in report] == ["pairs"] and report.passed
    # 1. the worst item always beats the best
    bad = y.copy()
    bad[(a == 0) & (b == N - 1)] = 1.0
    bad[(a == N - 1) & (b == 0)] = 0.0
    f2 = PairwiseRanking.from_arrays(a, b, bad, n_items=N).fit("laplace", random_seed=0)
    c2 = pair_check.table(f2)
    assert c2.loc["win_matrix", "p_value"] < 0.01
    assert c2.attrs["pairs"].loc[("0", str(N - 1)), "outside"]
    # 2. an instance effect: each instance has its own difficulty shift shared by both
    # orders (sd 2.5 logits), so the twins agree more often than the model predicts
    u = np.tile(rng.normal(0, 2.5, n_inst), 2) * np.where(np.arange(2 * n_inst) < n_inst, 1, -1)
    p3 = 1 / (1 + np.exp(-(theta[a] - theta[b] + kappa + u)))
    y3 = (rng.random(2 * n_inst) < p3).astype(float)
    s3 = PairwiseRanking.from_arrays(a, b, y3, n_items=N, instance=inst)
    f3 = s3.fit("laplace", random_seed=0)
    c3 = pair_check.table(f3, s3.instance)
    assert c3.loc["order_swap", "observed"] > c3.loc["order_swap", "upper"]
    assert not s3.check(f3).passed
    with pytest.raises(InputError, match="instance"):
        PairwiseRanking.from_arrays(a, b, y3, n_items=N, instance=inst[:10])
