"""The rounds of active labelling in an items frame (judgebayes/data/items/rounds.py): what a
user may get wrong in rounds planned by label_next, each a typed error naming its field.
"""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.simulators import active_population


def test_active_rounds_that_would_fail_open_are_refused_by_name():
    # two rounds planned with label_next; what a user may get wrong, each a typed error
    # naming its field (before: dropped, read as exact, or NaN without a word)
    rng = np.random.default_rng(3)
    p, y = active_population(rng, n=400)
    frame = pd.DataFrame({"judge": p, "human": np.nan, "round": np.nan})
    for r in (1, 2):
        plan = jb.plan.label_next(frame, "judge", "human", 40, random_seed=r)
        frame[f"p{r}"] = plan["prob"].to_numpy()
        drawn = plan["label_now"].to_numpy(bool) & frame["human"].isna().to_numpy()
        frame.loc[drawn, "human"] = y[drawn]
        frame.loc[drawn, "round"] = r
    kw = {"round": "round", "probs": ["p1", "p2"]}
    good = jb.active_estimate(frame, "judge", "human", **kw)
    assert good["lower"] <= y.mean() <= good["upper"]

    def refused(bad, field, match, **over):
        with pytest.raises(InputError, match=match) as err:
            jb.active_estimate(bad, "judge", "human", **{**kw, **over})
        assert err.value.field == field

    planned = frame.copy()  # round 2 planned, nothing labelled yet
    planned.loc[planned["round"] == 2, ["human", "round"]] = np.nan
    refused(planned, "probs", "round 2 .* has no labels")
    earlier = frame.copy()  # labels from before the rounds, with no round
    earlier.loc[earlier["human"].isna().to_numpy().nonzero()[0][:5], "human"] = 1.0
    refused(earlier, "round", "5 labelled item")
    refused(frame, "probs", "one per round", probs=["p1"])  # round 2 without its column
    over = frame.assign(p2=frame["p2"] * 40)  # probabilities above 1
    refused(over, "p2", r"in \(0, 1\]")
    half = frame.assign(round=frame["round"].where(frame["round"] != 2, 1.5))
    refused(half, "round", "rounds are 1, 2")
