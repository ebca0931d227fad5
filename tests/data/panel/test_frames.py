"""A panel's frames (judgebayes/data/panel/frames.py): an items frame aggregates into cells
with missing verdicts counted and each output annotated once.
"""

import numpy as np
import pandas as pd

from judgebayes.data.panel import panel_from_items


def test_items_aggregate_with_missing_verdicts_counted():
    items = pd.DataFrame(
        {
            "output": ["a", "a", "a", "b", "b", "b", "c", "c", "c"],
            "generator": ["G1"] * 6 + ["G2"] * 3,
            "validator": ["V1", "V2", "V3"] * 3,
            "verdict": ["valid", "invalid", None, "valid", "valid", "valid", "no", "yes", ""],
            "human": ["valid", "valid", "valid", "invalid", None, "invalid", None, None, None],
        }
    )
    d = panel_from_items(items)
    assert d.generators == ("G1", "G2") and d.validators == ("V1", "V2", "V3")
    np.testing.assert_array_equal(d.n_judged, [[2, 2, 1], [1, 1, 0]])
    np.testing.assert_array_equal(d.n_valid, [[2, 1, 1], [0, 1, 0]])
    np.testing.assert_array_equal(d.n_missing, [[0, 0, 1], [0, 0, 1]])
    # output a is valid (human), b invalid: each counted once for the annotation
    np.testing.assert_array_equal(d.n_annotated, [2, 0])
    np.testing.assert_array_equal(d.n_valid_human, [1, 0])
    np.testing.assert_array_equal(d.tp, [[1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(d.fn, [[0, 1, 0], [0, 0, 0]])
    np.testing.assert_array_equal(d.fp, [[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(d.tn, [[0, 0, 0], [0, 0, 0]])
    assert np.isnan(d.rate[1, 2])  # a missing cell
