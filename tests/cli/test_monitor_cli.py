"""``judgebayes monitor`` and ``judgebayes gate --sequential``: the command on a simulated
weekly log and on the LLMBar judge-version replay (real verdicts), exit statuses pass /
fail / continue, and bad input as one line with exit 2 (the installed command's own process
in the first runs, its entry point in this process after them)."""

import json

import numpy as np
import pytest

from judgebayes.datasets import llmbar_version_stream
from tests import helpers
from tests.simulators import running_rate, stream


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    frame, y = stream(np.random.default_rng(7), weeks=10, drift_at=4)
    path = tmp_path_factory.mktemp("monitor") / "log.csv"
    frame.to_csv(path, index=False)
    return path, running_rate(frame, y)


def test_monitor_json_covers_the_running_rate_and_warns_of_drift(log):
    path, truth = log
    res = helpers.run(
        "monitor", path, "--time", "week", "--floor", "sensitivity=0.85", "--format", "json"
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    lower = np.array([r["lower"] for r in out["periods"]])
    upper = np.array([r["upper"] for r in out["periods"]])
    assert np.all((lower <= truth) & (truth <= upper))
    assert out["reference_bounds"]["sensitivity"] == [0.85, 1.0]
    assert "the judge drifted (sensitivity down" in res.stderr


def test_sequential_gate_exit_statuses(log):
    path, truth = log  # the rate is about 0.6
    base = ("gate", path, "--sequential", "--time", "week")
    ok = helpers.run(*base, "--claim", "rate > 0.5")
    assert ok.returncode == 0, ok.stderr
    assert "PASS" in ok.stderr
    bad = helpers.cli(*base, "--claim", "rate > 0.7", "--format", "json")
    assert bad.returncode == 1, bad.stderr
    assert json.loads(bad.stdout)["decision"] == "fail"
    # 0.6 itself cannot be decided: label more and look again
    undecided = helpers.cli(*base, "--claim", f"rate > {truth[-1]:.3f}")
    assert undecided.returncode == 3, undecided.stderr
    assert "CONTINUE" in undecided.stderr


def test_monitor_reads_the_llmbar_version_replay(tmp_path):
    frame = llmbar_version_stream(weeks=6, switch=3)
    path = tmp_path / "llmbar.csv"
    frame.to_csv(path, index=False)
    res = helpers.cli("monitor", path, "--time", "week", "--format", "json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    truth = running_rate(frame, frame["truth"].to_numpy())
    for row, t in zip(out["periods"], truth, strict=True):
        assert row["lower"] <= t <= row["upper"]


def test_monitor_one_drift_alarm_per_system(tmp_path):
    from tests.simulators import two_systems_stream

    path = tmp_path / "two.csv"
    two_systems_stream(np.random.default_rng([1, 5]), drift_on_b=True).to_csv(path, index=False)
    args = ("monitor", path, "--time", "week", "--system", "model", "--drift-by", "system")
    res = helpers.cli(*args, "--format", "json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out["reference_bounds"]) == {"A", "B"}
    alarmed = {r["system"] for r in out["periods"] if r["alarm"]}
    assert alarmed == {"B"}, alarmed
    assert "the judge drifted on system B (sensitivity down" in res.stderr
    alone = helpers.cli("monitor", path, "--time", "week", "--drift-by", "system")
    assert alone.returncode == 2 and "drift_by" in alone.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--time", "when"), "no column 'when'"),
        (("--floor", "sensitivity"), "--floor takes rate=value"),
        (("--time", "week", "--floor", "recall=0.8"), "'recall' is not a rate of the judge"),
        ((), "needs --time"),
    ],
)
def test_monitor_bad_input_is_one_line_and_exit_2(log, args, message):
    path, _ = log
    res = helpers.cli("monitor", path, *args)
    assert res.returncode == 2
    assert message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_monitor_reads_judge_scores(tmp_path):
    from tests.simulators import score_log

    log, rating = score_log(np.random.default_rng(2))
    path = tmp_path / "scores.csv"
    log.to_csv(path, index=False)
    args = ("monitor", path, "--judge", "score", "--time", "week", "--scale", "1,10")
    res = helpers.cli(*args, "--human-scale", "1,5", "--format", "json")
    assert res.returncode == 0, res.stderr
    last = json.loads(res.stdout)["periods"][-1]
    assert last["lower"] <= rating.mean() <= last["upper"]
    assert "not run on scores" in res.stderr
    bad = helpers.cli(*args, "--human-scale", "1")
    assert bad.returncode == 2 and "--human-scale" in bad.stderr
    # the sequential gate reads claims on the human scale
    gate = ("gate", path, "--sequential", "--judge", "score", "--time", "week", "--scale", "1,10")
    below = f"rate > {last['lower'] - 0.2:.2f}"
    ok = helpers.cli(*gate, "--human-scale", "1,5", "--claim", below)
    assert ok.returncode == 0, ok.stderr


@pytest.fixture(scope="module")
def anchor_files(tmp_path_factory):
    from tests.simulators import anchor_design

    items, anchors = anchor_design(np.random.default_rng(0), weeks=8, judge_drift_at=5,
                                   consistency=1.0)  # fmt: skip
    folder = tmp_path_factory.mktemp("anchors")
    items.to_csv(folder / "items.csv", index=False)
    anchors.to_csv(folder / "anchors.csv", index=False)
    return folder / "items.csv", folder / "anchors.csv"


def test_monitor_anchors_says_who_moved(anchor_files):
    items, anchors = anchor_files
    res = helpers.run("monitor", items, "--anchors", anchors, "--item", "id", "--time", "week",
                      "--format", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert [r["verdict"] for r in out["periods"]][-1] == "judge"
    assert out["periods"][-1]["judge_moved"] == "sensitivity down"
    assert "the judge moved (sensitivity down), alarm at period" in res.stderr
    text = helpers.run("monitor", items, "--anchors", anchors, "--item", "id", "--time", "week")
    assert "who moved" in text.stdout and text.returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--item", "id"), "needs --anchors and --item"),
        (("--anchors", "ANCHORS"), "needs --anchors and --item"),
        (("--anchors", "ANCHORS", "--item", "nope"), "no column 'nope'"),
    ],
)
def test_monitor_anchors_bad_input_is_one_line(anchor_files, args, message):
    items, anchors = anchor_files
    args = tuple(str(anchors) if a == "ANCHORS" else a for a in args)
    res = helpers.run("monitor", items, *args, "--time", "week")
    assert res.returncode == 2 and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_monitor_drift_from_labels_is_the_labels_alarm(log):
    path, _ = log
    out = {
        c: json.loads(
            helpers.run(
                "monitor", path, "--time", "week", "--drift-from", c, "--format", "json"
            ).stdout
        )
        for c in ("all", "labels")
    }
    # the same sequence, two alarms: every channel finds the week-4 fall no later
    first = {c: next((r["period"] for r in o["periods"] if r["alarm"]), None)
             for c, o in out.items()}  # fmt: skip
    assert out["all"]["periods"][-1]["estimate"] == out["labels"]["periods"][-1]["estimate"]
    assert first["all"] is not None
    assert first["labels"] is None or int(first["all"]) <= int(first["labels"])
