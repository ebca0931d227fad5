"""A comparisons frame read (judgebayes/data/ranking/frames.py): ties dropped, as half wins or
Davidson's, item and comparison covariates standardised, and bad frames named.
"""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.ranking import identifiability_report
from judgebayes.errors import InputError
from judgebayes.studies.ranking import PairwiseRanking


def test_frames_contract_ties_and_errors():
    comps = pd.DataFrame(
        {
            "first": ["a", "b", "c", "a", "b"],
            "second": ["b", "c", "a", "c", "a"],
            "winner": ["a", "c", "", "tie", "a"],
        }
    )
    items = pd.DataFrame({"item": ["a", "b", "c"], "length": [10.0, 20.0, 60.0]})
    r = PairwiseRanking.from_frames(comps, items, covariates=["length"], ties="drop")
    assert r.data.n == 3 and r.data.n_ties == 2 and r.data.ties == "drop"
    np.testing.assert_array_equal(r.data.y, [1.0, 0.0, 0.0])
    dv = PairwiseRanking.from_frames(comps, items, covariates=["length"])
    assert dv.data.ties == "davidson" and dv.data.n == 5 and dv.data.n_ties == 2
    # standardised over items, scale kept for reporting
    mean, sd, level = r.data.scales["length"]
    assert (
        level == "item"
        and mean == pytest.approx(30.0)
        and sd == pytest.approx(np.std([10, 20, 60]))
    )
    h = PairwiseRanking.from_frames(comps, items, covariates=["length"], ties="half")
    assert h.data.n == 5 and h.data.n_ties == 2 and h.data.has_ties
    np.testing.assert_array_equal(h.data.y, [1.0, 0.0, 0.5, 0.5, 0.0])

    bad = comps.assign(second=["b", "c", "zz", "c", "a"])
    with pytest.raises(InputError, match="unknown item id 'zz'"):
        PairwiseRanking.from_frames(bad, items, covariates=["length"])
    with pytest.raises(InputError, match="with itself"):
        PairwiseRanking.from_frames(comps.assign(second=["a", "c", "a", "c", "a"]), items)
    with pytest.raises(InputError, match="neither shown item"):
        PairwiseRanking.from_frames(comps.assign(winner=["c", "c", "", "", "a"]), items)
    with pytest.raises(InputError, match="constant") as exc:
        PairwiseRanking.from_frames(comps, items.assign(length=5.0), covariates=["length"])
    assert exc.value.field == "length"
    with pytest.raises(InputError, match="neither an items column"):
        PairwiseRanking.from_frames(comps, items, covariates=["format"])


def test_comparison_level_covariates_enter_as_differences():
    comps = pd.DataFrame(
        {
            "first": ["a", "b", "a"],
            "second": ["b", "a", "c"],
            "winner": ["a", "a", "c"],
            "len_first": [100, 50, 10],
            "len_second": [20, 40, 30],
        }
    )
    d = PairwiseRanking.from_frames(comps, covariates=["len"]).data
    vals = np.array([100, 50, 10, 20, 40, 30], float)
    z = (vals - vals.mean()) / vals.std()
    np.testing.assert_allclose(d.X[:, 0], z[:3] - z[3:])
    assert d.scales["len"][2] == "comparison"
    assert identifiability_report(d).covariate_in_likelihood["len"]
