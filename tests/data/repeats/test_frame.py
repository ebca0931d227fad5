"""A repeats frame read (judgebayes/data/repeats/frame.py): passes and runs per (prompt,
generation) counted by hand, a missing verdict counted and left out, and a frame that
cannot be split named."""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.repeats.frame import repeated_counts
from judgebayes.errors import InputError


def test_passes_and_runs_per_generation_by_hand():
    frame = pd.DataFrame(
        {
            "prompt": ["p", "p", "p", "p", "q", "q", "q"],
            "generation": [0, 0, 1, 1, 0, 0, 0],
            "judge": [1, 0, 1, np.nan, 0, 0, 1],
        }
    )
    c = repeated_counts(frame)
    # (p, 0): 1 of 2; (p, 1): 1 of 1 (one run missing); (q, 0): 1 of 3
    assert c["k"].tolist() == [1, 1, 1] and c["runs"].tolist() == [2, 1, 3]
    assert c["prompt"].tolist() == [0, 0, 1] and c["prompts"] == ("p", "q")
    assert c["n_missing"] == 1


def test_a_frame_that_cannot_be_split_is_named():
    one = pd.DataFrame({"prompt": ["p", "p"], "generation": [0, 1], "judge": [1, 0]})
    with pytest.raises(InputError, match="1 prompt") as e:
        repeated_counts(one)
    assert e.value.field == "prompt"
    with pytest.raises(InputError, match="no column 'gen'") as e:
        repeated_counts(one, generation="gen")
    assert e.value.field == "gen"
