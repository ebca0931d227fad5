"""A board's cells (judgebayes/data/leaderboard/data.py): the items every system answered,
and each system's raw rate over its rows, by hand."""

import numpy as np
import pandas as pd

from judgebayes.data.leaderboard import board_from_frame


def test_complete_items_and_the_observed_rate_by_hand():
    frame = pd.DataFrame(
        {
            "system": ["a", "a", "a", "b", "b"],
            "item": [1, 2, 3, 1, 3],
            "score": [1.0, 0.0, 1.0, 0.0, 0.0],
        }
    )
    board = board_from_frame(frame, item="item", score="score")
    assert board.shape == (2, 3) and board.column("score") == "score"
    assert board.complete_items().tolist() == [True, False, True]  # b skipped item 2
    np.testing.assert_allclose(board.observed_rate(), [2 / 3, 0.0])
