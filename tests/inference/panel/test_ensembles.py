"""Vote ensembles (judgebayes/inference/panel/ensembles.py): missing votes as the paper treats
them, and the plug-in Rogan-Gladen exact on expected counts.
"""

import numpy as np
import pandas as pd

from judgebayes.data.panel import panel_from_arrays, panel_from_items
from judgebayes.inference.panel import ensembles as ens


def test_votes_treat_missing_votes_as_the_paper_says():
    items = pd.DataFrame(
        {
            "output": np.repeat(["a", "b"], 4),
            "generator": ["G"] * 4 + ["H"] * 4,
            "validator": ["v1", "v2", "v3", "v4"] * 2,
            # a: 2 valid, 1 invalid, 1 missing; b: 1 valid, 3 invalid
            "verdict": [
                "valid",
                "valid",
                "invalid",
                None,
                "valid",
                "invalid",
                "invalid",
                "invalid",
            ],
        }
    )
    d = panel_from_items(items, human=None)
    # majority with t = 3 needs 3 valid votes: the missing vote counts against a
    assert ens.vote(d, "majority", 3).tolist() == [0.0, 0.0]
    assert ens.vote(d, "majority", 2).tolist() == [1.0, 0.0]
    # veto with t = 2 needs 2 invalid votes: the missing vote counts for a
    assert ens.vote(d, "veto", 2).tolist() == [1.0, 0.0]
    assert ens.vote(d, "veto", 4).tolist() == [1.0, 1.0]


def test_plug_in_rogan_gladen_is_exact_on_expected_counts():
    g = np.array([0.9, 0.8, 0.95])
    vp = np.array([0.97, 0.9, 0.99])
    vn = np.array([0.3, 0.5, 0.2])
    n = 10_000
    P = g[:, None] * vp + (1 - g[:, None]) * (1 - vn)
    pos = np.round(np.outer(g * n, np.ones(3)))
    neg = n - pos
    tp = np.round(pos * vp)
    tn = np.round(neg * vn)
    d = panel_from_arrays(
        np.full((3, 3), n), np.round(P * n), n_annotated=[n, 0, 0], n_valid_human=[pos[0, 0], 0, 0],
        tp=np.where([[1], [0], [0]], tp, 0), fn=np.where([[1], [0], [0]], pos - tp, 0),
        tn=np.where([[1], [0], [0]], tn, 0), fp=np.where([[1], [0], [0]], neg - tn, 0),
    )  # fmt: skip
    np.testing.assert_allclose(ens.plug_in_rogan_gladen(d), g, atol=2e-4)
