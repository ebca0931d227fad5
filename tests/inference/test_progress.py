"""Progress: one switch (argument > set_progress > JUDGEBAYES_PROGRESS > auto), bars on
stderr over a sweep's tasks wherever they run, nothing when off."""

from concurrent.futures import ThreadPoolExecutor

import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.inference import progress as pg
from judgebayes.inference.executors import run_tasks


def _square(x):
    return x * x


@pytest.fixture(autouse=True)
def _auto_switch():
    before = pg._SWITCH["enabled"]
    yield
    pg._SWITCH["enabled"] = before


def test_switch_order(monkeypatch):
    monkeypatch.setenv("JUDGEBAYES_PROGRESS", "1")
    assert pg.progress_enabled() is True
    jb.set_progress(False)
    assert pg.progress_enabled() is False
    assert pg.progress_enabled(True) is True  # a function's argument wins
    jb.set_progress(None)
    monkeypatch.setenv("JUDGEBAYES_PROGRESS", "0")
    assert pg.progress_enabled() is False
    monkeypatch.delenv("JUDGEBAYES_PROGRESS")
    assert pg.progress_enabled() is False  # auto: pytest's stderr is not a terminal
    with pytest.raises(jb.errors.InputError, match="progress must be"):
        jb.set_progress("yes")


@pytest.mark.parametrize("executor", [None, "threads"])
def test_bar_counts_every_task_and_keeps_order(executor, capfd):
    ex = ThreadPoolExecutor(2) if executor == "threads" else None
    try:
        out = run_tasks(_square, range(7), ex, progress=True, desc="squares")
    finally:
        if ex is not None:
            ex.shutdown()
    assert out == [x * x for x in range(7)]
    err = capfd.readouterr().err
    assert "squares" in err and "7/7" in err
    assert run_tasks(_square, range(3), ex and None, progress=False) == [0, 1, 4]
    assert capfd.readouterr().err == ""


def test_split_protocol_bar_and_lines(capfd):
    from judgebayes.datasets import llmbar_accuracy_items
    from judgebayes.workflows.split_protocol import split_protocol

    items = llmbar_accuracy_items("GPT-4")
    items = items[items["subset"].isin(["LLMBar_Natural", "Processed_MT-Bench"])]
    kw = dict(group="subset", n_splits=3, methods=("closed_form",))
    split_protocol(items, progress=True, **kw)
    assert "split protocol" in capfd.readouterr().err
    jb.set_progress(False)
    split_protocol(items, **kw)
    assert capfd.readouterr().err == ""


def test_cli_quiet_is_scoped_to_the_call(capsys):
    jb.set_progress(True)
    argv = ["plan", "--p", "0.6", "--q0", "0.7", "--q1", "0.9", "--width", "0.1", "--quiet"]
    assert main(argv) == 0
    assert pg._SWITCH["enabled"] is True  # restored after the command
