"""The anchor-set plan (judgebayes/inference/monitor/design.py): detection grows with the
set, the size chosen is the first enough, and bad settings are refused by name.
"""

from __future__ import annotations

import pytest

import judgebayes as jb
from judgebayes.errors import InputError


def test_more_anchors_find_more():
    table = jb.plan.plan_anchors(0.2, streams=60, seed=1)
    d = table["detected"].to_numpy()
    # a binomial rate of 60 streams has sd at most 0.065: the curve may dip by MC error only
    assert all(d[i + 1] >= d[i] - 0.13 for i in range(d.size - 1))
    assert d[0] < 0.6 and d[-1] == 1.0
    first = table.loc[table["detected"] >= 0.95, "anchors"].iloc[0]
    assert table.attrs["anchors"] == first


def test_a_smaller_drop_needs_more_anchors():
    big = jb.plan.plan_anchors(0.3, streams=60, seed=2).attrs["anchors"]
    small = jb.plan.plan_anchors(0.1, streams=60, seed=2).attrs["anchors"]
    assert small is None or small > big


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"drop": 0.95}, "drop"), ({"drop": 0}, "drop"), ({"power": 1.0}, "power"),
     ({"within": 0}, "within"), ({"alpha": 0}, "alpha"), ({"prevalence": -1}, "prevalence"),
     ({"streams": 19}, "streams"), ({"power": "high"}, "power")],
)  # fmt: skip
def test_bad_settings_name_the_field(kwargs, field):
    with pytest.raises(InputError) as e:
        jb.plan.plan_anchors(**{"drop": 0.2, "streams": 5, **kwargs})
    assert e.value.field == field
