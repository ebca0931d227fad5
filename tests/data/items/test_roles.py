"""The items frame's roles (judgebayes/data/items/roles.py): ``ItemRoles`` is what the
frame reader takes, the keywords the same thing, and an unknown role is named."""

import pandas as pd
import pytest

from judgebayes.data.items import ItemRoles, items_from_frame
from judgebayes.errors import InputError

FRAME = pd.DataFrame(
    {"verdict": [1, 0, 1, 1, 0, 1], "label": [1, 0, None, 1, None, 0], "m": list("aaabbb")}
)


def test_a_roles_object_reads_the_frame_as_the_keywords_do():
    roles = ItemRoles(judge="verdict", human="label", system="m")
    by_object = items_from_frame(FRAME, roles)
    by_keywords = items_from_frame(FRAME, judge="verdict", human="label", system="m")
    assert by_object.systems == by_keywords.systems == ("a", "b")
    assert by_object.labelled.tolist() == [True, True, False, True, False, True]
    assert by_object.columns == by_keywords.columns


def test_an_unknown_role_is_named_with_the_roles():
    with pytest.raises(InputError, match="items_from_frame takes no keyword 'sytem'") as e:
        items_from_frame(FRAME, judge="verdict", human="label", sytem="m")
    assert e.value.field == "sytem" and "system" in str(e.value)
    with pytest.raises(TypeError):  # the object itself is a dataclass of the roles
        ItemRoles(sytem="m")
