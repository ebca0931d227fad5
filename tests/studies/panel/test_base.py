"""The panel family's door (judgebayes/studies/panel/base.py): annotations without confusion
counts refused by the Bayesian models, named.
"""

import numpy as np
import pandas as pd
import pytest

from judgebayes.errors import MethodRefused
from judgebayes.studies.panel import ValidatorPanel


def test_annotations_without_confusion_counts_are_refused_by_the_bayesian_models():
    cells = pd.DataFrame(
        {"generator": ["A", "A", "B", "B"], "validator": ["x", "y", "x", "y"],
         "n_judged": [10, 10, 10, 10], "n_valid": [9, 8, 7, 6]}
    )  # fmt: skip
    ann = pd.DataFrame({"generator": ["A"], "n_annotated": [10], "n_valid_human": [9]})
    p = ValidatorPanel.from_frames(cells, ann)
    assert p.data.annotation_overlap == ("A",)
    with pytest.raises(MethodRefused, match="count them twice") as e:
        p.fit("nuts")
    assert (e.value.field, e.value.value) == ("annotations", "A")
    assert "annotations_disjoint=True" in str(e.value)
    # point methods use the human precision as a target, not as a likelihood: allowed
    assert np.isfinite(p.fit("validator_mean").estimate()).all()
    # declared disjoint (human labels on outputs outside the cells): nothing to refuse
    q = ValidatorPanel.from_frames(cells, ann, annotations_disjoint=True)
    assert q.data.annotation_overlap == ()
