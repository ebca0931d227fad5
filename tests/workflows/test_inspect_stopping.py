"""The Inspect AI early-stopping manager (judgebayes/workflows/inspect_stopping.py) in real
Inspect evals run in-process: the ``mockllm`` provider, a solver that does not call it, and
a scorer that returns the verdict a sample's metadata holds; the log's early-stopping
summary, the samples Inspect skipped, and the settings refused by name.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import InputError

pytest.importorskip("inspect_ai")


def _task(verdicts, humans, manager):
    """A task of one sample per verdict; metadata ``verdict`` (the judge's, returned by
    the scorer as Inspect's C / I grade) and ``human`` (None = not labelled)."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
    from inspect_ai.solver import TaskState, solver

    @solver
    def keep():
        async def solve(state, generate):
            return state

        return solve

    @scorer(metrics=[accuracy()])
    def judge():
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=CORRECT if state.metadata["verdict"] else INCORRECT)

        return score

    samples = [
        Sample(id=f"s{i}", input=f"question {i}", metadata={"verdict": int(v), "human": h})
        for i, (v, h) in enumerate(zip(verdicts, humans, strict=True))
    ]
    return Task(
        dataset=MemoryDataset(samples), solver=keep(), scorer=judge(), early_stopping=manager
    )


def _eval(task, tmp_path, **kw):
    from inspect_ai import eval as inspect_eval

    (log,) = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path), display="none", **kw)
    assert log.status == "success", log.error
    return log


def _data(seed, n=150, rate=0.9, pi=0.5):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rate).astype(int)
    f = np.where(y == 1, rng.random(n) < 0.9, rng.random(n) > 0.8).astype(int)
    human = [int(v) if rng.random() < pi else None for v in y]
    return y, f, human


def test_a_shuffled_eval_stops_once_the_claim_is_decided_and_skips_the_rest(tmp_path):
    _, f, human = _data(0)
    manager = jb.io.InspectStopping("judge", label_key="human", label_prob=0.5, claim=0.6)
    log = _eval(_task(f, human, manager), tmp_path, sample_shuffle=7, max_samples=1)
    summary = log.results.early_stopping
    meta = summary.metadata
    assert summary.manager == "judgebayes"
    assert meta["stop"] and meta["reason"] == "above claim" and meta["shuffled"]
    assert meta["lower"] > 0.6 and meta["target"] == "human pass rate"
    assert meta["n"] + meta["saved"] == 150 and meta["saved"] > 0
    assert meta["n_after_stop"] == 0 and meta["n_unscored"] == 0
    # Inspect skipped exactly the samples the rule saved, each with the rule's reason
    assert len(summary.early_stops) == meta["saved"] == meta["n_skipped"]
    assert {s.reason for s in summary.early_stops} == {"judgebayes: above claim"}
    skipped = {s.id for s in summary.early_stops}
    scored = [s for s in log.samples if s.scores]
    assert len(scored) == meta["n"] and not skipped & {s.id for s in scored}
    # the rule saw the scored samples' verdicts and labels in the order Inspect ran them
    order = sorted(scored, key=lambda s: s.started_at or s.uuid)
    idx = [int(str(s.id)[1:]) for s in order]
    labels = np.array([np.nan if human[i] is None else human[i] for i in idx], dtype=float)
    again = jb.plan.early_stop(f[idx], labels, population=150, label_prob=0.5, claim=0.6)
    assert again.n == meta["n"] and again.n_labelled == meta["n_labelled"]
    assert again.lower == pytest.approx(meta["lower"])


def test_labels_by_sample_id_and_a_run_that_never_stops_early(tmp_path):
    # a set whose true rate is the claim's 0.6: nothing is decided and every sample runs
    y = np.r_[np.ones(24), np.zeros(16)].astype(int)
    f, human = y.copy(), [None] * 40
    labels = {f"s{i}": int(v) for i, v in enumerate(y)}
    manager = jb.io.InspectStopping("judge", labels=labels, label_prob=1.0, claim=0.6)
    log = _eval(_task(f, human, manager), tmp_path, sample_shuffle=True)
    meta = log.results.early_stopping.metadata
    assert meta["reason"] == "all samples" and meta["saved"] == 0
    assert meta["n_labelled"] == 40 and log.results.early_stopping.early_stops == []
    assert meta["lower"] <= y.mean() <= meta["upper"]


def test_without_labels_the_summary_says_it_is_the_judges_rate(tmp_path):
    _, f, human = _data(2, n=80, rate=0.95)
    manager = jb.io.InspectStopping("judge", claim=0.5, min_samples=20)
    with pytest.warns(jb.errors.JudgeBayesWarning, match="not shuffled"):
        log = _eval(_task(f, human, manager), tmp_path, max_samples=1)
    meta = log.results.early_stopping.metadata
    assert meta["target"] == "judge pass rate" and "not the true pass rate" in meta["note"]
    assert not meta["shuffled"] and meta["stop"]


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"scorer": ""}, "scorer"),
        ({"labels": {"s0": 1}, "label_key": "human"}, "label_key"),
        ({"labels": [1, 0]}, "labels"),
        ({"labels": {"s0": "yes"}}, "labels"),
        ({"label_key": 3}, "label_key"),
        ({"claim": 1.5}, "claim"),
        ({"width": None, "claim": None}, "width"),
        ({"alpha": 0}, "alpha"),
        ({"label_prob": -0.1}, "label_prob"),
        ({"every": 1.5}, "every"),
    ],
)
def test_each_bad_setting_is_one_input_error_naming_it(kw, field):
    args = {"scorer": "judge", "claim": 0.5, **kw}
    with pytest.raises(InputError) as err:
        jb.io.InspectStopping(args.pop("scorer"), **args)
    assert err.value.field == field


def test_the_task_is_checked_when_it_starts():
    from inspect_ai.dataset import Sample

    samples = [Sample(id="s0", input="q", metadata={"human": 2})]
    cases = [
        (jb.io.InspectStopping("judge", claim=0.5), 3, "epochs"),
        (jb.io.InspectStopping("judge", label_key="human", label_prob=0.5, claim=0.5), 1, "human"),
        (jb.io.InspectStopping("judge", labels={"s9": 1}, label_prob=0.5, claim=0.5), 1, "labels"),
    ]
    for manager, epochs, field in cases:
        with pytest.raises(InputError) as err:
            asyncio.run(manager.start_task(None, samples, epochs))
        assert err.value.field == field


def test_samples_running_when_the_rule_stops_are_counted_not_added(tmp_path):
    # Inspect's default concurrency: samples already started when the rule stops still
    # complete; they are counted, not fed to the rule, and every sample is accounted for
    _, f, human = _data(3)
    manager = jb.io.InspectStopping("judge", label_key="human", label_prob=0.5, claim=0.6)
    log = _eval(_task(f, human, manager), tmp_path, sample_shuffle=3)
    meta = log.results.early_stopping.metadata
    assert meta["stop"] and meta["n_skipped"] == len(log.results.early_stopping.early_stops)
    assert meta["n"] + meta["n_after_stop"] + meta["n_skipped"] == 150
    assert sum(bool(s.scores) for s in log.samples) == meta["n"] + meta["n_after_stop"]
    assert meta["saved"] == meta["n_skipped"]  # saved: the samples Inspect did not run


def test_a_scorer_the_task_lacks_fails_the_eval_by_name(tmp_path):
    from inspect_ai import eval as inspect_eval

    _, f, human = _data(4, n=20)
    manager = jb.io.InspectStopping("judgee", label_key="human", label_prob=0.5, claim=0.6)
    task = _task(f, human, manager)
    (log,) = inspect_eval(
        task, model="mockllm/model", log_dir=str(tmp_path), display="none", sample_shuffle=1
    )
    assert (
        log.status == "error" and "no scorer" in log.error.message and "judgee" in log.error.message
    )


def test_a_label_key_no_sample_has_is_refused_when_the_task_starts():
    from inspect_ai.dataset import Sample

    samples = [Sample(id=f"s{i}", input="q", metadata={"human": 1}) for i in range(3)]
    manager = jb.io.InspectStopping("judge", label_key="humann", label_prob=0.5, claim=0.5)
    with pytest.raises(InputError, match="'humann'") as err:
        asyncio.run(manager.start_task(None, samples, 1))
    assert err.value.field == "label_key"
