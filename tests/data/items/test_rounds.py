"""The rounds of active labelling in an items frame (judgebayes/data/items/rounds.py): what a
user may get wrong in rounds planned by label_next, each a typed error naming its field: a
round without its labels or probabilities, labels requested and never returned (or taken at
random with the returned share), a round labelled off its plan.
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


def planned_rounds(p, y, budget, rounds=(1, 2)) -> pd.DataFrame:
    """A log of judge scores ``p`` whose rounds are planned with ``jb.plan.label_next``
    (``budget`` expected labels each, seeded by the round) and labelled with ``y`` on
    every item drawn: columns ``p1``, ``p2``... the rounds' probabilities."""
    frame = pd.DataFrame({"judge": p, "human": np.nan, "round": np.nan})
    for r in rounds:
        plan = jb.plan.label_next(frame, "judge", "human", budget, random_seed=r)
        frame[f"p{r}"] = plan["prob"].to_numpy()
        drawn = plan["label_now"].to_numpy(bool) & frame["round"].isna().to_numpy()
        frame.loc[drawn, "round"] = r
        frame.loc[drawn, "human"] = y[drawn]
    return frame


def test_labels_that_never_came_back_are_named_and_the_returned_share_taken():
    # two planned rounds; 30% of the labels requested in round 2 never come back
    rng = np.random.default_rng(5)
    p, y = active_population(rng, n=600)
    frame = planned_rounds(p, y, 60)
    second = np.flatnonzero(frame["round"].to_numpy() == 2)
    lost = rng.choice(second, int(0.3 * second.size), replace=False)
    frame.loc[lost, "human"] = np.nan
    kw = {"round": "round", "probs": ["p1", "p2"]}
    with pytest.raises(InputError, match="lost='at_random'") as err:
        jb.active_estimate(frame, "judge", "human", **kw)
    assert err.value.field == "human" and f"{lost.size} of the {second.size}" in str(err.value)
    e = jb.active_estimate(frame, "judge", "human", lost="at_random", **kw)
    assert e["labels"] == int(frame["human"].notna().sum())
    assert e["lower"] <= y.mean() <= e["upper"]
    # the returned share scales round 2's probabilities: the same estimate by hand, with
    # the lost items not drawn and p2 times the share (items of round 1 keep theirs)
    share = 1 - lost.size / second.size
    by_hand = frame.assign(
        round=frame["round"].where(~frame.index.isin(lost)),
        p2=np.where(frame["round"] == 1, frame["p2"], frame["p2"] * share),
    )
    assert jb.active_estimate(by_hand, "judge", "human", **kw)["estimate"] == pytest.approx(
        e["estimate"]
    )
    with pytest.raises(InputError, match="lost must be one of") as err:
        jb.active_estimate(frame, "judge", "human", lost="ignore", **kw)
    assert err.value.field == "lost"


def test_a_round_labelled_off_its_plan_is_refused():
    # round 2's plan draws about 40 items; the user labels 150 more of their own choosing
    # and marks them round 2: the estimate would read them as the plan's draw
    rng = np.random.default_rng(6)
    p, y = active_population(rng, n=800)
    frame = planned_rounds(p, y, 40)
    extra = rng.choice(np.flatnonzero(frame["round"].isna().to_numpy()), 150, replace=False)
    frame.loc[extra, ["round", "human"]] = np.c_[np.full(150, 2), y[extra]]
    with pytest.raises(InputError, match=r"round 2 has \d+ labels and its plan") as err:
        jb.active_estimate(frame, "judge", "human", round="round", probs=["p1", "p2"])
    assert err.value.field == "round"


def test_labels_lost_on_some_scores_take_the_share_within_score_bins():
    # labels lost more often where the judge's score is high: lost="by_score" scales each
    # item's probability by the share returned within its bin of the round's drawn scores;
    # the same estimate by hand, each lost item marked not drawn and p2 times its share
    from judgebayes.data.items.rounds import BIN_ITEMS, SCORE_BINS

    rng = np.random.default_rng(8)
    p, y = active_population(rng, n=2000)
    frame = planned_rounds(p, y, 200)
    second = frame["round"].to_numpy() == 2
    lose = second & (rng.random(2000) < np.where(p > 0.6, 0.6, 0.1))
    frame.loc[lose, "human"] = np.nan
    kw = {"round": "round", "probs": ["p1", "p2"]}
    e = jb.active_estimate(frame, "judge", "human", lost="by_score", **kw)
    k = min(SCORE_BINS, int(second.sum()) // BIN_ITEMS)
    edges = np.quantile(p[second], np.linspace(0, 1, k + 1)[1:-1])
    b = np.searchsorted(edges, p, side="right")
    share = np.array(
        [(second & ~lose & (b == j)).sum() / (second & (b == j)).sum() for j in range(k)]
    )
    by_hand = frame.assign(
        round=frame["round"].where(~lose),
        p2=np.where(frame["round"] == 1, frame["p2"], frame["p2"] * share[b]),
    )
    assert jb.active_estimate(by_hand, "judge", "human", **kw)["estimate"] == pytest.approx(
        e["estimate"]
    )
    # one bin's labels all lost: refused, naming the scores
    none_back = frame.copy()
    none_back.loc[second & (b == k - 1), "human"] = np.nan
    with pytest.raises(InputError, match=r"none of the .* came back") as err:
        jb.active_estimate(none_back, "judge", "human", lost="by_score", **kw)
    assert err.value.field == "human"


def test_a_judge_of_two_verdicts_takes_the_share_within_each_verdict():
    # a 0/1 judge: its score quantiles coincide; the bins are its two verdicts
    rng = np.random.default_rng(12)
    p, y = active_population(rng, n=1500)
    verdict = (p > 0.5).astype(float)
    frame = planned_rounds(verdict, y, 150)
    second = frame["round"].to_numpy() == 2
    lose = second & (rng.random(1500) < np.where(verdict == 1, 0.5, 0.1))
    frame.loc[lose, "human"] = np.nan
    kw = {"round": "round", "probs": ["p1", "p2"]}
    e = jb.active_estimate(frame, "judge", "human", lost="by_score", **kw)
    share = {
        v: (second & ~lose & (verdict == v)).sum() / (second & (verdict == v)).sum()
        for v in (0.0, 1.0)
    }
    by_hand = frame.assign(
        round=frame["round"].where(~lose),
        p2=np.where(
            frame["round"] == 1,
            frame["p2"],
            frame["p2"] * np.where(verdict == 1, share[1.0], share[0.0]),
        ),
    )
    assert jb.active_estimate(by_hand, "judge", "human", **kw)["estimate"] == pytest.approx(
        e["estimate"]
    )


def test_a_round_with_too_few_labels_back_is_refused_and_the_share_reported():
    rng = np.random.default_rng(13)
    p, y = active_population(rng, n=600)
    frame = planned_rounds(p, y, 60)
    second = np.flatnonzero(frame["round"].to_numpy() == 2)
    kw = {"round": "round", "probs": ["p1", "p2"], "lost": "at_random"}
    part = frame.copy()
    part.loc[second[: len(second) // 4], "human"] = np.nan
    e = jb.active_estimate(part, "judge", "human", **kw)
    assert e["returned_2"] == pytest.approx(1 - (len(second) // 4) / len(second))
    few = frame.copy()
    few.loc[second[2:], "human"] = np.nan  # 2 labels back
    with pytest.raises(InputError, match=r"2 of the .* came back: too few") as err:
        jb.active_estimate(few, "judge", "human", **kw)
    assert err.value.field == "human"


def test_the_next_round_and_the_rounds_before_it_are_read_off_the_log():
    from judgebayes.data.items.rounds import next_round, probability_columns

    log = pd.DataFrame({"judge": [0.2, 0.8, 0.5], "human": [1.0, np.nan, np.nan]})
    assert next_round(log, "round", "human") == (1, [])
    log = log.assign(round=[1, np.nan, np.nan], prob_1=0.3)
    assert next_round(log, "round", "human") == (2, ["prob_1"])
    assert probability_columns(log) == ["prob_1"]
    for bad, field in (
        (log.assign(round=[1.5, np.nan, np.nan]), "round"),  # not a round number
        (log.assign(round=[1, 1, np.nan]), "human"),  # drawn, not labelled yet
        (log.drop(columns="prob_1"), "prob_1"),  # the earlier round's probabilities
    ):
        with pytest.raises(InputError) as e:
            next_round(bad, "round", "human")
        assert e.value.field == field
    with pytest.raises(InputError) as e:
        probability_columns(log.rename(columns={"prob_1": "prob_2"}))
    assert e.value.field == "probs"
