"""The items frame's roles (judgebayes/data/items/roles.py): ``ItemRoles`` is what the
frame reader takes, the keywords the same thing, and an unknown role is named."""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.items import ItemRoles, items_from_frame
from judgebayes.errors import InputError
from tests.helpers import systems_frame

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


def test_bad_weights_and_duplicate_columns_are_refused():
    f = systems_frame(n=100, labelled=20, systems=("a",))
    with pytest.raises(InputError, match="design weight") as e:
        jb.AccuracyStudy.from_items(f.assign(w=0.5), weights="w")
    assert e.value.field == "w"
    dup = pd.concat([f[["judge"]], f[["human"]], f[["human"]]], axis=1)
    with pytest.raises(InputError, match="two columns named 'human'"):
        jb.AccuracyStudy.from_items(dup)


def test_the_item_column_pairs_rows_refuses_repeats_and_counts_unpaired_items():
    frame, *_ = jb.simulate.simulate_paired(400, seed=1)
    study = jb.AccuracyStudy.from_items(frame, system="system", item="prompt")
    paired = study.fit("closed_form").contrasts()
    # shuffling B's prompts breaks the pairing: the paired contrast changes
    shuffled = frame.copy()
    is_b = shuffled["system"] == "B"
    shuffled.loc[is_b, "prompt"] = np.random.default_rng(0).permutation(
        shuffled.loc[is_b, "prompt"].to_numpy()
    )
    other = jb.AccuracyStudy.from_items(shuffled, system="system", item="prompt")
    assert not np.allclose(other.fit("closed_form").contrasts()["upper"], paired["upper"])
    # a repeated (prompt, system) row is refused by name
    with pytest.raises(InputError, match="appears twice for system") as e:
        jb.AccuracyStudy.from_items(
            pd.concat([frame, frame.iloc[:1]]), system="system", item="prompt"
        )
    assert e.value.field == "prompt"
    # a prompt only A answered is counted and shown
    one_sided = frame.drop(frame.index[(frame["system"] == "B") & (frame["prompt"] < 7)])
    s = jb.AccuracyStudy.from_items(one_sided, system="system", item="prompt").summary()
    assert s.loc["A", "n_unpaired"] == 7 and s.loc["B", "n_unpaired"] == 0
