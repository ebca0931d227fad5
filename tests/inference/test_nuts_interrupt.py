"""Ctrl-C: the interrupt reaches the caller (never a partial posterior reported as a result)
and the command line says so in one line and exits 130."""

import _thread
import signal
import subprocess
import sys
import threading
import time
import warnings

import pandas as pd
import pytest

import judgebayes as jb


def test_nuts_interrupted_mid_sampling_raises_not_returns():
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    with warnings.catch_warnings():  # a short warm-up run: its gate is not the point
        warnings.simplefilter("ignore", jb.errors.ConvergenceWarning)
        study.fit("nuts", random_seed=0, sampler={"draws": 200, "tune": 200})  # compiled now
    # Ctrl-C two seconds in, and again every second until the fit gives up: one fresh-clone
    # run of 2026-11-26 lost a single interrupt (the fit sampled all 5M draws); nutpie
    # polls for signals from its sampling loop, and a press that lands before that loop
    # runs is not seen (a user presses again; the fit must then stop, never return)
    done = threading.Event()

    def press():
        if not done.wait(2.0):
            _thread.interrupt_main()
            while not done.wait(1.0):
                _thread.interrupt_main()

    presser = threading.Thread(target=press, daemon=True)
    presser.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            study.fit("nuts", random_seed=0, sampler={"draws": 5_000_000, "tune": 500})
    finally:
        done.set()
        try:
            presser.join()
            time.sleep(0.05)  # a press that crossed the end of the fit lands here
        except KeyboardInterrupt:
            pass
    assert time.perf_counter() - t0 < 60  # it stopped, it did not sample 5M draws


def test_cli_ctrl_c_is_one_line_and_exit_130(tmp_path):
    pd.DataFrame({"judge": [1] * 60 + [0] * 40}).to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame(
        {"human": [1] * 30 + [0] * 30, "judge": [1] * 27 + [0] * 3 + [0] * 22 + [1] * 8}
    ).to_csv(tmp_path / "c.csv", index=False)
    cmd = [sys.executable, "-m", "judgebayes", "accuracy", str(tmp_path / "t.csv"),
           "--calibration", str(tmp_path / "c.csv"), "--method", "nuts"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4.0)  # in the imports, the compilation or the sampling
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["judgebayes accuracy: interrupted"], err
    assert out == ""
