"""Where the next labels do most (judgebayes/inference/items/allocation.py): the predicted
standard error of a design worked by hand, and a budget split between two symmetric cells.
"""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.items import items_from_frame
from judgebayes.errors import InputError
from judgebayes.inference.items import allocate_labels, predicted_se


def _design():
    """100 items: 50 judged positive (10 labelled, 8 of them positive) and 50 judged
    negative (10 labelled, 2 positive)."""
    judge = np.r_[np.ones(50), np.zeros(50)]
    human = np.full(100, np.nan)
    human[:10] = [1] * 8 + [0] * 2
    human[50:60] = [1] * 2 + [0] * 8
    return items_from_frame(pd.DataFrame({"judge": judge, "human": human}))


def test_predicted_se_of_the_process_rate_by_hand():
    # smoothed rates a = (8 + 1) / (10 + 2) = 0.75 among the positives, b = 0.25 among the
    # negatives, p = 1/2: each verdict's term (1/2)^2 0.1875 / 10 = 0.0046875, the
    # verdicts' share (0.75 - 0.25)^2 (1/4) / 100 = 0.000625; se = sqrt(0.01) = 0.1
    assert predicted_se(_design(), "process")[0] == pytest.approx(0.1, rel=1e-12)
    # every item labelled: nothing left to estimate about the N items
    full = np.array([[40]]), np.array([[40]])
    assert predicted_se(_design(), "items", *full)[0] == pytest.approx(0.0, abs=1e-12)


def test_a_budget_is_split_evenly_between_two_symmetric_cells():
    # the two verdicts' cells are mirror images: a label on either lowers the variance as
    # much, so ten labels go five and five
    extra1, extra0 = allocate_labels(_design(), 10, "process")
    assert (extra1.tolist(), extra0.tolist()) == ([[5]], [[5]])
    with pytest.raises(InputError) as e:
        allocate_labels(_design(), 10, "everything")
    assert e.value.field == "estimand"
