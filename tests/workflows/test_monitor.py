"""Evaluation as it runs (judgebayes/workflows/monitor.py): the monitor's table, the drift
alarm and the sequential decision on streams simulated here (the simulator shares no code
with the package); the sequences themselves: tests/inference/test_sequences.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.simulators import anchor_design, running_rate, score_log, stream, two_systems_stream


@pytest.fixture(scope="module")
def drifting():
    return stream(np.random.default_rng(11), drift_at=5)


def test_monitor_table_reads_the_log(drifting):
    frame, y = drifting
    t = jb.monitor(frame, judge="judge", human="human", time="week")
    assert list(t["period"]) == [str(w) for w in range(20)]
    assert (t["n_items"] == 500).all() and (t["n_labelled"] == 40).all()
    truth = running_rate(frame, y)
    assert np.all((t["lower"] <= truth) & (truth <= t["upper"]))
    assert not t["alarm"].iloc[:5].any()
    # with a floor of 0.85 the fall from 0.9 to 0.7 at week 5 is found within a few weeks
    t = jb.monitor(frame, judge="judge", human="human", time="week", floors={"sensitivity": 0.85})
    first = int(np.flatnonzero(t["alarm"])[0])
    assert 5 <= first <= 10
    assert t["drift"].iloc[first] == "sensitivity down"


def test_monitor_per_system_and_with_bernoulli_labelling():
    rng = np.random.default_rng(12)
    a, ya = stream(rng, weeks=6, items=300, labels=30, rate=0.7)
    b, yb = stream(rng, weeks=6, items=300, labels=30, rate=0.4)
    frame = pd.concat([a.assign(system="A"), b.assign(system="B")], ignore_index=True)
    t = jb.monitor(frame, judge="judge", human="human", time="week", system="system")
    assert list(t.columns[:2]) == ["system", "period"]
    last = t.groupby("system").tail(1).set_index("system")
    assert last.loc["A", "lower"] <= ya.mean() <= last.loc["A", "upper"]
    assert last.loc["B", "lower"] <= yb.mean() <= last.loc["B", "upper"]
    # Bernoulli labelling with the probability each item had
    c, yc = stream(rng, weeks=6, items=300, labels=0)
    prob = np.where(c["judge"] == 1, 0.05, 0.2)
    c["human"] = np.where(rng.random(len(c)) < prob, yc, np.nan)
    c["p"] = prob
    t = jb.monitor(c, judge="judge", human="human", time="week", label_prob="p")
    assert t["lower"].iloc[-1] <= yc.mean() <= t["upper"].iloc[-1]


def test_monitor_counts_what_it_leaves_out():
    rng = np.random.default_rng(13)
    frame, _ = stream(rng, weeks=4, items=100, labels=20)
    frame.loc[frame["week"] == 2, "human"] = np.nan  # a week nobody labelled
    frame.loc[:4, "judge"] = np.nan  # five items the judge did not answer
    t = jb.monitor(frame, judge="judge", human="human", time="week")
    notes = " ".join(t.attrs["notes"])
    assert "5 item(s) have no verdict" in notes
    assert "100 item(s) in 1 period(s) with fewer than two labels" in notes
    assert t["estimate"].iloc[2] == t["estimate"].iloc[1]  # week 2 adds nothing


def test_monitor_buckets_timestamps():
    rng = np.random.default_rng(14)
    frame, _ = stream(rng, weeks=3, items=200, labels=30)
    frame["at"] = pd.Timestamp("2026-01-05") + pd.to_timedelta(frame["week"] * 7, unit="D")
    t = jb.monitor(frame, judge="judge", human="human", time="at", freq="W")
    assert len(t) == 3 and t["period"].iloc[0].startswith("2026-01-05")


def test_periods_as_text_run_in_time_order_as_numbers_do(drifting):
    # the same log with its weeks as numbers, as "week N" text, as numbers and numeric text
    # mixed, and as an ordered categorical written backwards: the same table, period by
    # period (text sorted as text would run 0, 1, 10, 11, ..., 2 and raise the alarm late)
    frame, _ = drifting
    floors = {"sensitivity": 0.85}
    want = jb.monitor(frame, judge="judge", human="human", time="week", floors=floors)
    cols = ["estimate", "lower", "upper", "alarm", "n_labelled"]
    weeks = frame["week"].to_numpy()
    backwards = [f"w{w}" for w in range(19, -1, -1)]
    variants = {
        "week N": [f"week {w}" for w in weeks],
        "int and str": np.array([w if w % 2 else str(w) for w in weeks], dtype=object),
        "ordered": pd.Categorical(
            [f"w{w}" for w in weeks], categories=backwards[::-1], ordered=True
        ),
    }
    for name, week in variants.items():
        got = jb.monitor(frame.assign(week=week), judge="judge", human="human", time="week",
                         floors=floors)  # fmt: skip
        pd.testing.assert_frame_equal(got[cols], want[cols], obj=name)
    # an ordered categorical's own order wins over its labels' numbers
    rev = pd.Categorical([f"w{w}" for w in weeks], categories=backwards, ordered=True)
    got = jb.monitor(frame.assign(week=rev), judge="judge", human="human", time="week")
    assert list(got["period"]) == backwards


def test_periods_whose_order_cannot_be_read_are_refused_by_name(drifting):
    frame, _ = drifting
    names = np.array(["spring", "summer", "autumn", "winter"])[frame["week"].to_numpy() % 4]
    with pytest.raises(InputError, match="order cannot be read") as err:
        jb.monitor(frame.assign(week=names), judge="judge", human="human", time="week")
    assert err.value.field == "week"
    with pytest.raises(InputError, match="order cannot be read"):
        jb.AccuracyStudy.from_items(frame.assign(week=names), time="week")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"time": "when"}, "time"),
        ({"alpha": 1.5}, "alpha"),
        ({"tightest_at": 0}, "tightest_at"),
        ({"method": "bernstein"}, "method"),
        ({"label_prob": "zero"}, "zero"),
        ({"floors": {"recall": 0.8}}, "floors"),
        ({"floors": {"sensitivity": 1.2}}, "floors['sensitivity']"),
        ({"reference": 0}, "reference"),
    ],
)
def test_monitor_bad_input_names_the_field(kwargs, field):
    frame, _ = stream(np.random.default_rng(1), weeks=2, items=50, labels=10)
    frame["zero"] = 0.0
    args = {"judge": "judge", "human": "human", "time": "week"} | kwargs
    with pytest.raises(InputError) as err:
        jb.monitor(frame, **args)
    assert err.value.field == field


def test_sequential_decision_passes_fails_or_continues(drifting):
    frame, _ = drifting
    t = jb.monitor(frame, judge="judge", human="human", time="week")
    assert jb.sequential_decision(t, "rate > 0.5")["decision"].iloc[-1] == "pass"
    assert jb.sequential_decision(t, "rate > 0.7")["decision"].iloc[-1] == "fail"
    d = jb.sequential_decision(t, "rate < 0.6")["decision"]
    assert d.iloc[0] == "continue"
    with pytest.raises(InputError, match="one rate"):
        jb.sequential_decision(t, "A > B")


def test_without_replacement_with_and_without_the_judge():
    rng = np.random.default_rng(21)
    n = 400
    y = (rng.random(n) < 0.35).astype(float)
    f = np.where(y == 1, rng.random(n) < 0.95, rng.random(n) > 0.95).astype(float)
    order = rng.permutation(n)[:150]
    human = np.full(n, np.nan)
    human[order] = y[order]
    pos = np.full(n, np.nan)
    pos[order] = np.arange(150)
    frame = pd.DataFrame({"human": human, "judge": f, "pos": pos})
    plain = jb.estimators.without_replacement(frame, "human", order="pos")
    powered = jb.estimators.without_replacement(frame, "human", order="pos", judge="judge")
    for t in (plain, powered):
        assert np.all((t["lower"] <= y.mean()) & (y.mean() <= t["upper"]))
    # a 95%-accurate judge narrows the sequence
    width = lambda t: (t["upper"] - t["lower"]).to_numpy()  # noqa: E731
    assert np.all(width(powered)[50:] < width(plain)[50:])


def _trajectory_misses(seed, sets, floors=None, **kw):
    rng = np.random.default_rng(seed)
    misses = alarms = 0
    for _ in range(sets):
        frame, y = stream(rng, **kw)
        t = jb.monitor(frame, judge="judge", human="human", time="week", floors=floors)
        truth = running_rate(frame, y)
        misses += bool(np.any((t["lower"] > truth) | (truth > t["upper"])))
        alarms += bool(t["alarm"].any())
    return misses / sets, alarms / sets


@pytest.mark.slow
def test_no_drift_streams_keep_both_error_rates_over_the_whole_trajectory():
    # 400 streams of 20 looks; Monte-Carlo sd of a 5% rate sqrt(.05 * .95 / 400) = 0.011,
    # so a true rate of 5% is above 0.072 with probability < 2.5%
    miss, alarm = _trajectory_misses(31, 400, rate_slope=0.01)
    assert miss <= 0.072
    assert alarm <= 0.072
    # a floor at the judge's true sensitivity is the hardest null for its capital
    _, alarm = _trajectory_misses(33, 400, floors={"sensitivity": 0.9})
    assert alarm <= 0.072


@pytest.mark.slow
def test_drift_of_the_judge_costs_width_not_coverage():
    # 0.9 -> 0.7 at week 5 of 20; with a floor of 0.85 benchmarks/monitoring.py found it
    # by week 30 in 1000 of 1000 streams (90% within 6 weeks of the change)
    miss, alarm = _trajectory_misses(32, 400, floors={"sensitivity": 0.85}, drift_at=5)
    assert miss <= 0.072
    assert alarm >= 0.95


def test_drift_on_one_system_is_found_by_its_own_alarm():
    found = {(k, c): 0 for k in ("pooled", "A", "B") for c in ("labels", "all")}
    for rep in range(40):
        log = two_systems_stream(np.random.default_rng([rep, 5]), drift_on_b=True)
        for c in ("labels", "all"):
            pooled = jb.monitor(log, "judge", "human", "week", system="model", drift_from=c)
            found["pooled", c] += bool(pooled["alarm"].any())
            by = jb.monitor(log, "judge", "human", "week", system="model", drift_by="system",
                            drift_from=c)  # fmt: skip
            for name in ("A", "B"):
                found[name, c] += bool(by.loc[by["system"] == name, "alarm"].any())
            assert any("each at alpha / 2" in n for n in by.attrs["notes"])
            assert set(by.attrs["reference_bounds"]) == {"A", "B"}
    # on the labels, B's alarm finds the fall more often than the pooled one, which mixes
    # in A's labels (measured 28 and 13 of 40; the paired difference's sd is about 4, so 8
    # is 2 sd under it); A's own alarm stays quiet (its rate never moved; 0 of 40)
    assert found["B", "labels"] >= 24 and found["A", "labels"] <= 2, found
    assert found["B", "labels"] - found["pooled", "labels"] >= 8, found
    # every channel finds it more often still (measured 40 of 40 by system, 35 pooled);
    # A's alarm at alpha / 2 = 0.025 (2.5 sd of 40 streams: 0.025 + 0.062, 3 of 40)
    assert found["B", "all"] >= 36 and found["B", "all"] >= found["B", "labels"], found
    assert found["A", "all"] <= 3, found


def test_alarms_per_system_keep_the_false_alarm_rate():
    # no drift: the chance that either system's alarm ever sounds is at most alpha = 0.05;
    # 150 runs, sd of the rate under 0.05 is 0.018, so more than 0.10 is a real excess
    alarms = 0
    for rep in range(150):
        log = two_systems_stream(np.random.default_rng([rep, 6]), drift_on_b=False)
        by = jb.monitor(log, "judge", "human", "week", system="model", drift_by="system")
        alarms += bool(by["alarm"].any())
    assert alarms / 150 <= 0.10


def test_drift_by_system_needs_systems():
    log, _ = stream(np.random.default_rng(0), weeks=4)
    with pytest.raises(jb.errors.InputError, match="drift_by") as e:
        jb.monitor(log, "judge", "human", "week", drift_by="system")
    assert e.value.field == "drift_by"


def test_scores_sequence_covers_the_running_mean_rating_at_every_look():
    # 200 logs; misses at some look of 12 are at most alpha = 0.05 (the verdict sequence
    # missed 0.016); MC sd of a 0.05 rate over 200 logs is 0.015, so 0.09 is 2.5 sd over
    misses, widths = 0, []
    for rep in range(200):
        log, rating = score_log(np.random.default_rng([rep, 9]))
        with warnings.catch_warnings():
            # the within-period labelling check's rare false alarms (it fires on 2 of these
            # 200 random-label logs) are not this test's point
            warnings.simplefilter("ignore", jb.errors.LabellingWarning)
            t = jb.monitor(log, "score", "human", "week", scale=(1, 10), human_scale=(1, 5))
        truth = pd.Series(rating).groupby(log["week"]).sum().cumsum() / (
            pd.Series(1, index=log.index).groupby(log["week"]).sum().cumsum()
        )
        inside = (t["lower"].to_numpy() <= truth.to_numpy()) & (
            truth.to_numpy() <= t["upper"].to_numpy()
        )
        misses += not inside.all()
        widths.append(t["upper"].iloc[-1] - t["lower"].iloc[-1])
    assert misses / 200 <= 0.09
    assert "alarm" not in t.columns and any("not run on scores" in n for n in t.attrs["notes"])
    assert 1 <= t["lower"].min() and t["upper"].max() <= 5


def test_sequential_claims_on_a_score_judge_read_the_human_scale():
    log, _ = score_log(np.random.default_rng(1))  # mean rating about 3.06
    t = jb.monitor(log, "score", "human", "week", scale=(1, 10), human_scale=(1, 5))
    assert jb.sequential_decision(t, "rate > 2.5")["decision"].iloc[-1] == "pass"
    assert jb.sequential_decision(t, "rate > 3.5")["decision"].iloc[-1] == "fail"
    with pytest.raises(InputError, match=r"a mean must be a number in \[1, 5\]"):
        jb.sequential_decision(t, "rate > 6")


def test_scores_on_a_zero_one_scale_are_the_verdict_sequence():
    log, _ = stream(np.random.default_rng(4), weeks=6)
    verdicts = jb.monitor(log, "judge", "human", "week")
    scores = jb.monitor(log, "judge", "human", "week", scale=(0, 1), human_scale=(0, 1))
    cols = ["period_estimate", "estimate", "lower", "upper", "lam"]
    pd.testing.assert_frame_equal(verdicts[cols], scores[cols], rtol=1e-12)


def test_labels_from_each_periods_first_arrivals_are_said_when_the_items_drift():
    # the positive rate walks along the arrivals (AR(1) on the logit, numpy); labels on
    # each week's first 40 items see only the week's start; on 40 drawn at random, all of
    # it. The verdicts, seen on every item, show the difference; with items in random
    # order the same first-40 labels are a random sample and nothing is said
    def log(drifting, first, seed):
        rng = np.random.default_rng(seed)
        n = 8 * 1000
        x = np.empty(n)
        x[0] = rng.normal()
        shocks = rng.normal(0, np.sqrt(1 - 0.995**2), n)
        for i in range(1, n):
            x[i] = 0.995 * x[i - 1] + shocks[i]
        x = x if drifting else rng.permutation(x)
        t = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
        f = np.where(t == 1, rng.random(n) < 0.9, rng.random(n) < 0.2).astype(int)
        human = np.full(n, np.nan)
        for w in range(8):
            pick = w * 1000 + (np.arange(40) if first else rng.choice(1000, 40, replace=False))
            human[pick] = t[pick]
        return pd.DataFrame({"week": np.repeat(np.arange(8), 1000), "judge": f, "human": human})

    with pytest.warns(jb.errors.LabellingWarning, match="not a random sample of their period"):
        table = jb.monitor(log(True, True, 1), "judge", "human", "week")
    assert any("label_prob=" in n for n in table.attrs["notes"])
    for drifting, first in ((True, False), (False, True)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", jb.errors.LabellingWarning)
            jb.monitor(log(drifting, first, 2), "judge", "human", "week")


# the anchor design: an anchor set judged again every period beside the new items

ANCHOR_ROLES = {"judge": "judge", "human": "human", "time": "week", "item": "id"}


def test_anchors_the_table_names_who_moved():
    items, anchors = anchor_design(np.random.default_rng(0), weeks=8, judge_drift_at=5,
                                   consistency=1.0)  # fmt: skip
    table = jb.monitor(items, anchors=anchors, **ANCHOR_ROLES)
    assert list(table["period"]) == [str(w) for w in range(8)]
    assert table["verdict"].iloc[-1] == "judge"
    assert table["judge_moved"].iloc[-1] == "sensitivity down"
    assert not table["judge_alarm"].iloc[:4].any()  # the reference is not tested
    assert (table["n_anchors"] == 100).all() and (table["n_new"] == 1000).all()
    # the judge's sensitivity on the anchors before and after, near the simulator's
    # 0.9 and 0.7 (70 positive anchors a week: sd about 0.04)
    assert table["sensitivity"].iloc[:5].mean() == pytest.approx(0.9, abs=0.05)
    assert table["sensitivity"].iloc[5:].mean() == pytest.approx(0.7, abs=0.06)
    # the corrected rate stays near the system's 0.7 through the judge's drift
    assert table["system_rate"].mean() == pytest.approx(0.7, abs=0.05)
    assert table.attrs["alpha"] == 0.05 and table.attrs["reference"] == 4


def test_anchors_polars_frames_read_alike():
    pl = pytest.importorskip("polars")
    items, anchors = anchor_design(np.random.default_rng(1), weeks=6)
    a = jb.monitor(items, anchors=anchors, **ANCHOR_ROLES)
    b = jb.monitor(pl.from_pandas(items), anchors=pl.from_pandas(anchors), **ANCHOR_ROLES)
    assert a.equals(b)


def test_anchors_too_few_periods_said():
    items, anchors = anchor_design(np.random.default_rng(2), weeks=3)
    table = jb.monitor(items, anchors=anchors, **ANCHOR_ROLES)
    assert table["verdict"].eq("none").all()
    assert any("the first 4 the reference" in n for n in table.attrs["notes"])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"alpha": 1.5}, "alpha"), ({"reference": 0}, "reference"), ({"item": "nope"}, "item"),
     ({"judge": "human"}, "judge"), ({"system": "week"}, "system"),
     ({"floors": {"sensitivity": 0.8}}, "floors"), ({"item": None}, "item")],
)  # fmt: skip
def test_anchors_bad_arguments_name_the_field(kwargs, field):
    items, anchors = anchor_design(np.random.default_rng(3), weeks=5)
    with pytest.raises(InputError) as e:
        jb.monitor(items, anchors=anchors, **{**ANCHOR_ROLES, **kwargs})
    assert e.value.field == field


def test_anchors_one_class_of_anchors_refused():
    items, anchors = anchor_design(np.random.default_rng(4), weeks=5)
    anchors = anchors[anchors["human"] == 1]
    with pytest.raises(InputError, match="at least 2 anchors of each") as e:
        jb.monitor(items, anchors=anchors, **ANCHOR_ROLES)
    assert e.value.field == "human"


def test_the_all_channel_alarm_leaves_out_periods_with_few_labels():
    # 10 labels a week: the all-channel z-tests are far from normal there (a trial measured
    # false alarms past 0.1 over 12 weeks); the alarm reads the labels alone and says so
    few, _ = stream(np.random.default_rng(1), weeks=12, items=1500, labels=10)
    table = jb.monitor(few, "judge", "human", "week")
    assert any("reads the labels alone" in n for n in table.attrs["notes"])
    labels_only = jb.monitor(few, "judge", "human", "week", drift_from="labels")
    assert table["drift_evidence"].equals(labels_only["drift_evidence"])
    # some thin periods only: they are left out, and counted
    mixed, _ = stream(np.random.default_rng(2), weeks=8, items=1500, labels=40)
    drop = mixed.index[(mixed["week"] == 6) & mixed["human"].notna()][:20]
    mixed.loc[drop, "human"] = np.nan
    notes = jb.monitor(mixed, "judge", "human", "week").attrs["notes"]
    assert any(n.startswith("1 period(s) with fewer than 30 labels") for n in notes)
