"""A ranking's fit (judgebayes/studies/ranking/fit.py): top-k tables, rank intervals and
groups, and the top-k set of most expected recall.
"""

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.simulate.ranking import controlled_benchmark
from judgebayes.studies.ranking import PairwiseRanking
from tests.simulators import bt_sample


def test_top_k_set_maximises_expected_recall():
    rng = np.random.default_rng(5)
    _, a, b, y = bt_sample(10, 150, 0.4, rng)
    fit = PairwiseRanking.from_arrays(a, b, y, n_items=10).fit("naive", random_seed=0)
    tk = fit.top_k(3)
    best = fit.top_k_set(3)
    assert set(best) == set(tk.index[tk["in_top_k"]])
    # no other 3-set has a larger expected recall (sum of P(top 3) / 3)
    p = tk["p_top_k"]
    assert tk.attrs["expected_recall"] == pytest.approx(p[best].sum() / 3)
    assert p[best].sum() >= p[fit.point_top_k(3)].sum()


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
