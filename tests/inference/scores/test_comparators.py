"""The scores design's comparators (judgebayes/inference/scores/comparators.py): PPI++ against
ppi_py.
"""

from __future__ import annotations

import numpy as np

import judgebayes as jb
from tests.simulators import simulate_scores


def test_ppi_plus_plus_matches_ppi_py():
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    rng = np.random.default_rng(5)
    frame, _ = simulate_scores(rng, systems=("A",), frac=0.3)
    fit = jb.ScoreStudy.from_items(frame, score="score", human="human").fit("ppi_plus_plus")
    lab = frame["human"].notna()
    y, yh = frame.loc[lab, "human"].to_numpy(), frame.loc[lab, "score"].to_numpy()
    yu = frame.loc[~lab, "score"].to_numpy()
    ref = ppi_mean_pointestimate(y, yh, yu)
    lo, hi = ppi_mean_ci(y, yh, yu, alpha=0.1)
    np.testing.assert_allclose(fit.estimate(), np.ravel(ref), atol=1e-10)
    tab = fit.interval(0.1)
    np.testing.assert_allclose(
        tab[["lower", "upper"]].to_numpy().ravel(), [lo[0], hi[0]], atol=1e-10
    )
