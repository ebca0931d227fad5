"""The engines' shared checks (judgebayes/inference/registry.py): method spellings and seeds,
and every count checked in one place.
"""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError


def test_method_spellings_and_seeds():
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    assert study.fit("closed-form").method == "closed_form"
    for bad in (1.5, "abc", -1, 2**64, True):
        with pytest.raises(InputError, match="random_seed"):
            study.fit("laplace", random_seed=bad)


def test_counts_are_checked_in_one_place():
    # every "how many" argument (sbc n_datasets/thin, split_protocol n_splits/splits_per_fit,
    # the items design's k, the ranking check's draws) goes through check_count
    from judgebayes.inference.registry import check_count

    assert check_count(np.int64(3), "k") == 3 and type(check_count(np.int64(3), "k")) is int
    for bad in (0, -2, 2.5, "3", True, None):
        with pytest.raises(InputError, match="n_splits must be an integer >= 1") as e:
            check_count(bad, "n_splits")
        assert (e.value.field, e.value.value) == ("n_splits", bad)
    with pytest.raises(InputError, match="n_splits"):
        from judgebayes.workflows.split_protocol import split_protocol

        split_protocol(pd.DataFrame({"judge": [1, 0], "human": [1, 0]}), n_splits=2.5)
