"""Identifiability of a ranking's data (judgebayes/data/ranking/identifiability.py): a
covariate constant within a level, a presentation order confounded with a group, a weakly
identified order, two components.
"""

import numpy as np
import pytest

from judgebayes.data.ranking import identifiability_report, pairwise_from_arrays
from judgebayes.errors import IdentifiabilityWarning
from judgebayes.studies.ranking import PairwiseRanking


def test_identifiability_failures_are_reported():
    N = 8
    x = np.array([0, 1] * 4, float)
    a, b = np.nonzero(~np.eye(N, dtype=bool))
    cross = x[a] != x[b]
    d = pairwise_from_arrays(
        a[cross], b[cross], np.ones(cross.sum()), n_items=N, item_covariates={"x": x}
    )
    rep = identifiability_report(d)
    assert any("within one of its levels" in p for p in rep.problems)
    assert rep.covariate_in_likelihood["x"] is False  # item-level: the prior identifies c
    # one presentation order where the first-shown item always comes from one group
    grp = np.arange(N) < 4
    ia, ib = np.meshgrid(np.flatnonzero(grp), np.flatnonzero(~grp))
    d2 = pairwise_from_arrays(ia.ravel(), ib.ravel(), np.ones(16), n_items=N)
    rep2 = identifiability_report(d2)
    assert not rep2.position_in_likelihood and rep2.position_confounding > 0.999
    with pytest.warns(IdentifiabilityWarning, match="confounded"):
        PairwiseRanking(d2).fit("laplace")
    # ordered by index on a complete graph: weakly identified, reported
    iu, ju = np.triu_indices(N, 1)
    rep3 = identifiability_report(pairwise_from_arrays(iu, ju, np.ones(iu.size), n_items=N))
    assert rep3.position_in_likelihood and any("weakly" in p for p in rep3.problems)
    # random orders of the same pairs: fine
    sw = np.random.default_rng(0).random(iu.size) < 0.5
    rep4 = identifiability_report(
        pairwise_from_arrays(
            np.where(sw, ju, iu), np.where(sw, iu, ju), np.ones(iu.size), n_items=N
        )
    )
    assert rep4.ok
    # two components
    rep5 = identifiability_report(pairwise_from_arrays([0, 2], [1, 3], [1, 0], n_items=4))
    assert rep5.components == 2 and not rep5.ok
