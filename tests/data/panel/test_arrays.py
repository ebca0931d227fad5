"""A panel's arrays (judgebayes/data/panel/arrays.py) and the frames built on them: bad counts
and bad annotations are named.
"""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.panel import panel_from_arrays
from judgebayes.errors import CountError, InputError
from judgebayes.studies.panel import ValidatorPanel


def test_bad_inputs_are_named():
    nj = np.array([[10, 10], [10, 10]])
    nv = np.array([[9, 8], [7, 6]])
    with pytest.raises(CountError, match="n_valid 11 > n_judged 10") as e:
        panel_from_arrays(nj, np.array([[11, 8], [7, 6]]))
    assert e.value.field == "n_valid"
    with pytest.raises(InputError, match="no judged outputs"):
        panel_from_arrays(np.array([[10, 10], [0, 0]]), np.array([[9, 8], [0, 0]]))
    with pytest.raises(InputError, match="at least two validators"):
        panel_from_arrays(nj[:, :1], nv[:, :1])
    cells = pd.DataFrame(
        {"generator": ["A", "A", "B", "B"], "validator": ["x", "y", "x", "y"],
         "n_judged": [10, 10, 10, 10], "n_valid": [9, 8, 7, 6]}
    )  # fmt: skip
    ann = pd.DataFrame({"generator": ["C"], "n_annotated": [10], "n_valid_human": [9]})
    with pytest.raises(InputError, match="generator 'C' is not in the cells table"):
        ValidatorPanel.from_frames(cells, ann)
    with pytest.raises(CountError, match="n_valid_human"):
        ValidatorPanel.from_frames(cells, ann.assign(generator="A", n_valid_human=11))
    with pytest.raises(CountError, match="confusion counts"):
        ValidatorPanel.from_frames(cells.assign(tp=[9, 0, 0, 0], fp=[5, 0, 0, 0]))
