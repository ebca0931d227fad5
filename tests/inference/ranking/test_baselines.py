"""The ranking baselines (judgebayes/inference/ranking/baselines.py): win counts by hand,
length residualisation, the order-swap majority against naive Bradley-Terry, the trusted-
anchor gate on a spurious and a legitimate covariate.
"""

import numpy as np

from judgebayes.data.ranking import pairwise_from_arrays
from judgebayes.inference.ranking.baselines import (
    length_residualisation,
    naive_scores,
    order_swap_majority,
    trusted_anchor_gate,
    win_counts,
)
from judgebayes.simulate.ranking import controlled_benchmark


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
