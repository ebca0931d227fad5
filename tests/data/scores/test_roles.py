"""The scores frame's roles (judgebayes/data/scores/roles.py): ``ScoreRoles`` is what the
frame reader takes, the keywords the same thing, and an unknown role is named."""

import pandas as pd
import pytest

from judgebayes.data.scores import ScoreRoles, scores_from_frame
from judgebayes.errors import InputError

FRAME = pd.DataFrame(
    {
        "rating": [1.0, 4.0, 5.0, 2.0, 3.0, 5.0],
        "label": [0, 1, None, 0, None, 1],
        "m": list("aaabbb"),
    }
)


def test_a_roles_object_reads_the_frame_as_the_keywords_do():
    by_object = scores_from_frame(FRAME, ScoreRoles(score="rating", human="label", system="m"))
    by_keywords = scores_from_frame(FRAME, score="rating", human="label", system="m")
    assert by_object.systems == by_keywords.systems == ("a", "b")
    assert by_object.score.ravel().tolist() == [1.0, 4.0, 5.0, 2.0, 3.0, 5.0]
    assert by_object.columns == by_keywords.columns


def test_an_unknown_role_is_named_with_the_roles():
    with pytest.raises(InputError, match="scores_from_frame takes no keyword 'scroe'") as e:
        scores_from_frame(FRAME, scroe="rating", human="label")
    assert e.value.field == "scroe" and "score" in str(e.value)
