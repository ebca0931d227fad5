"""Bad input from issue 16's list: one typed error naming the field (CLI: one line, exit 2).

Run through the CLI's entry point in this process (`main` is what the installed command
calls; tests/test_cli.py runs the command itself).
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import InputError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    test, cal = jb.accuracy_frames(0.4, 0.8, 0.9, 200, m0=40, m1=40, random_seed=1)
    test.to_csv(d / "t.csv", index=False)
    cal.to_csv(d / "c.csv", index=False)
    return d


def _one_line(capsys, args, *words):
    capsys.readouterr()
    assert main([str(a) for a in args]) == 2, args
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, (w, err)


def test_cli_paths_that_are_directories_or_the_wrong_kind(files, capsys):
    t, c = files / "t.csv", files / "c.csv"
    _one_line(capsys, ["accuracy", files], "is a directory")
    _one_line(capsys, ["accuracy", t, "--calibration", files], "calibration", "directory")
    report = ["report", t, "--calibration", c, "--out"]
    _one_line(capsys, [*report, files / "x.pdf"], "--out", "'.pdf'")
    _one_line(capsys, [*report, files], "--out", "is a directory")
    assert not (files / "x.pdf").exists() and not (files / "x_figures").exists()


def test_cli_plan_test_size_must_be_a_whole_number(capsys):
    base = ["plan", "--p", "0.6", "--q0", "0.7", "--q1", "0.9", "--width", "0.2"]
    _one_line(capsys, [*base, "--n", "100.5"], "--n", "100.5")
    _one_line(capsys, [*base, "--n", "0"], "--n")
    capsys.readouterr()
    assert main([*base, "--n", "5000"]) == 0


def test_booleans_are_not_counts_and_frames_must_be_frames():
    for kw in ({"k": True}, {"n": np.array([True])}, {"tp": False}):
        args = dict(k=51, n=100, tp=90, m1=100, tn=70, m0=100) | kw
        with pytest.raises(InputError, match="boolean") as e:
            jb.AccuracyStudy.from_counts(**args)
        assert e.value.field == next(iter(kw))
    test, cal = jb.accuracy_frames(0.4, 0.8, 0.9, 50, m0=20, m1=20, random_seed=0)
    for a, b, field in ((None, cal, "test_df"), (test, [1, 2], "calibration_df")):
        with pytest.raises(InputError, match="must be a DataFrame") as e:
            jb.AccuracyStudy.from_frames(a, b)
        assert e.value.field == field
