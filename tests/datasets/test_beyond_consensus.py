"""The Beyond Consensus loader: the published 14 x 14 panel read where it lives."""

import numpy as np

import judgebayes as jb
from judgebayes.datasets.beyond_consensus import beyond_consensus_panel


def test_the_panel_has_its_published_shape_and_counts():
    cells, ann = beyond_consensus_panel()
    assert cells.shape[0] == 14 * 14
    assert cells["generator"].nunique() == 14 and cells["validator"].nunique() == 14
    assert int(cells["self"].sum()) == 14
    assert len(ann) == 6
    annotated = cells.dropna(subset=["tp"])
    assert annotated["generator"].nunique() == 6
    # on the annotated generators every judged line has a human label
    total = annotated[["tp", "fn", "tn", "fp"]].sum(axis=1)
    np.testing.assert_array_equal(total.to_numpy(), annotated["n_judged"].to_numpy())
    # gpt-4-turbo's lines are the least often valid (human precision about 0.87)
    low = ann.set_index("generator")["human_precision"].idxmin()
    assert low == "gpt-4-turbo"
    panel = jb.ValidatorPanel.from_frames(cells, ann[["generator", "n_annotated", "n_valid_human"]])
    assert len(panel.data.generators) == 14
