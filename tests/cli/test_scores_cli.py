"""``judgebayes scores``: the installed command on a CSV of a 1-10 judge and Likert labels
(simulated here with numpy), claims as a gate, and bad input as one line with exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.cli import main
from tests.helpers import score_study
from tests.simulators import scores_stream


@pytest.fixture(scope="module")
def csv(tmp_path_factory):
    rng = np.random.default_rng(21)
    rows = []
    for k, s in enumerate(("A", "B")):
        human = np.clip(np.round(2.5 + k + rng.normal(0, 1, 200)), 1, 5)
        score = np.clip(np.round(2 * human + rng.normal(0, 1.5, 200)), 1, 10)
        lab = rng.random(200) < 0.4
        rows.append(
            pd.DataFrame(
                {
                    "system": s,
                    "prompt": np.arange(200),
                    "grade": score,
                    "human": np.where(lab, human, np.nan),
                }
            )
        )
    path = tmp_path_factory.mktemp("scores") / "scores.csv"
    pd.concat(rows).to_csv(path, index=False)
    return path


def test_the_installed_command_prints_the_means_and_gates_claims(csv):
    args = [sys.executable, "-m", "judgebayes", "scores", str(csv), "--score", "grade"]
    args += ["--system", "system", "--item", "prompt", "--scale", "1,10", "--format", "json"]
    ok = subprocess.run(
        [*args, "--claim", "B > A", "--claim", "B > 3"], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    frame = pd.read_csv(csv)
    ref = (
        jb.ScoreStudy.from_items(
            frame, score="grade", human="human", system="system", item="prompt"
        )
        .fit("closed_form", random_seed=0)
        .interval()
    )
    for r in out["systems"]:
        assert r["estimate"] == pytest.approx(ref.loc[r["unit"], "estimate"], abs=1e-12)
    assert all(c["supported"] for c in out["claims"])
    assert "PASS: 2 of 2" in ok.stderr
    bad = subprocess.run([*args, "--claim", "A > B"], capture_output=True, text=True)
    assert bad.returncode == 1 and "FAIL: 0 of 1" in bad.stderr


def test_every_point_method_and_contrasts(csv, capsys):
    # NUTS through the command line is the same fit (tests/studies/scores/test_base.py samples
    # it); the point methods here, each with its own rows
    argv = ["scores", str(csv), "--score", "grade", "--system", "system", "--item", "prompt"]
    for m in ("closed_form", "ppi_plus_plus", "labels_only", "naive"):
        assert main([*argv, "--method", m, "--contrasts", "--quiet"]) == 0
        out = capsys.readouterr().out
        assert out.count(m) >= 2, out
    assert main([*argv, "--contrasts", "--quiet"]) == 0
    assert "paired on 200 items" in capsys.readouterr().out
    # --calibration reaches the closed form: the same estimates as the call in Python
    frame = pd.read_csv(csv)
    study = jb.ScoreStudy.from_items(
        frame, score="grade", human="human", system="system", item="prompt"
    )
    from judgebayes.cli import build_parser
    from judgebayes.inference.scores import CALIBRATIONS

    sub = build_parser()._subparsers._group_actions[0].choices["scores"]
    flag = next(a for a in sub._actions if "--calibration" in a.option_strings)
    assert tuple(flag.choices) == CALIBRATIONS  # the parser's choices are the fits there are
    for kind in ("isotonic", "logistic"):
        assert main([*argv, "--calibration", kind, "--format", "json", "--quiet"]) == 0
        rows = json.loads(capsys.readouterr().out)["systems"]
        ref = study.fit(random_seed=0, calibration=kind).interval()
        for r in rows:
            assert r["estimate"] == pytest.approx(ref.loc[r["unit"], "estimate"], abs=1e-12)


def test_labelled_by_reaches_the_weighted_closed_form(tmp_path, capsys):
    from tests.simulators import scores_labelled_by_length

    frame, _ = scores_labelled_by_length(np.random.default_rng(3))
    path = tmp_path / "by_length.csv"
    frame.drop(columns="truth").to_csv(path, index=False)
    argv = ["scores", str(path), "--system", "system", "--format", "json", "--quiet"]
    assert main([*argv, "--labelled-by", "length"]) == 0
    rows = json.loads(capsys.readouterr().out)["systems"]
    ref = (
        jb.ScoreStudy.from_items(
            pd.read_csv(path), score="score", system="system", labelled_by="length"
        )
        .fit(random_seed=0)
        .interval()
    )
    for r in rows:
        assert r["estimate"] == pytest.approx(ref.loc[r["unit"], "estimate"], abs=1e-12)
    # a method the design does not suit is refused (exit 1), not bad input (exit 2)
    assert main([*argv, "--labelled-by", "length", "--method", "labels_only"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "labelled_by='length'" in err, err


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--score", "nope"], ["no column 'nope'"]),
        (["--score", "grade", "--scale", "1,5"], ["outside scale"]),
        (["--score", "grade", "--scale", "5"], ["LOW,HIGH"]),
        (["--score", "grade", "--claim", "A > 12"], ["[1, 5]"]),
        (["--score", "grade", "--labels", "x.csv"], ["--labels goes with a log"]),
        (
            ["--score", "grade", "--method", "naive", "--calibration", "isotonic"],
            ["--calibration isotonic applies to the closed form"],
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(csv, capsys, extra, words):
    capsys.readouterr()
    code = main(["scores", str(csv), "--system", "system", *extra])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def test_the_command_line_takes_time(tmp_path, capsys):
    from judgebayes.cli import main

    frame = scores_stream(np.random.default_rng(4))
    path = tmp_path / "log.csv"
    frame.drop(columns="truth").to_csv(path, index=False)
    argv = ["scores", str(path), "--system", "system", "--time", "week", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    ref = score_study(frame, time="week").fit(random_seed=0)
    for r in out["systems"]:
        assert r["estimate"] == pytest.approx(ref.interval().loc[r["unit"], "estimate"])
    assert len(out["periods"]) == 8 and {r["period"] for r in out["periods"]} == set("0123")
    assert main([*argv[:-2], "--format", "table"]) == 0
    assert "n_labelled" in capsys.readouterr().out
    # a method refused on valid data says so (exit 1); --freq without --time is bad input
    assert main([*argv, "--method", "ppi_plus_plus"]) == 1
    assert "refused" in capsys.readouterr().err
    assert main(["scores", str(path), "--freq", "W"]) == 2
    err = capsys.readouterr().err
    assert "freq" in err and "Traceback" not in err
