"""``judgebayes leaderboard``: the library's table, from a CSV or a Parquet file, by every
method; the flags a method does not use are refused."""

import json

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.cli import main
from tests.simulators import irt_board, small_board


@pytest.fixture(scope="module")
def board():
    frame, _ = irt_board(np.random.default_rng(3), [1.0, 0.9, 0.0, -1.0], n_items=120)
    return frame


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_command_prints_the_librarys_table(board, tmp_path, capsys, suffix):
    path = tmp_path / f"board{suffix}"
    board.to_csv(path, index=False) if suffix == ".csv" else board.to_parquet(path)
    args = [str(path), "--top-k", "2", "--format", "json"]
    assert main(["leaderboard", *args]) == 0
    out = json.loads(capsys.readouterr().out)
    want = jb.leaderboard(board, top_k=2)
    got = [(r["system"], r["rank_lower"], r["rank_upper"], r["tier"]) for r in out["systems"]]
    assert got == list(
        want[["system", "rank_lower", "rank_upper", "tier"]].itertuples(index=False, name=None)
    )
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    assert out["header"] == want.header and out["estimand"] == "process"
    assert main(["leaderboard", str(path), "--method", "bootstrap", "--reps", "500"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Leaderboard of 4 systems: the item population") and "rank low" in text


def test_adjust_takes_the_judges_pull_out(tmp_path, capsys):
    from tests.simulators import verbose_board

    frame, _ = verbose_board(np.random.default_rng(4), n_items=60)
    path = tmp_path / "verbose.csv"
    frame.to_csv(path, index=False)
    args = [str(path), "--adjust", "length", "--scale=-inf,inf", "--format", "json"]
    assert main(["leaderboard", *args]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    want = jb.leaderboard(frame, adjust="length", scale=(-np.inf, np.inf))
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    assert out["surely_above"] == want.attrs["surely_above"]
    assert "adjusted to length = 0" in captured.err
    assert main(["leaderboard", str(path), "--adjust", "shown_first", "--scale=-inf,inf"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "same for every system on each item" in err, err


def test_bad_input_and_unused_flags_are_one_line_and_exit_2(board, tmp_path, capsys):
    path = tmp_path / "board.csv"
    board.to_csv(path, index=False)
    for args, says in (
        (["--score", "nope"], "nope"),
        (["--model", "rasch"], "--model is used by --method nuts or laplace"),
        (["--method", "nuts", "--control", "holm"], "--control is used by --method closed-form"),
        (["--method", "bootstrap", "--draws", "500"], "--draws"),
        (["--reps", "500"], "--reps is used by --method bootstrap"),
        (["--method", "bootstrap", "--estimand", "items"], "item population"),
        (["--engine", "laplace"], "unrecognized"),
        (["--alpha", "1e-9"], "give an alpha of at least 0.0001"),
    ):
        assert main(["leaderboard", str(path), *args]) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and says in err[0], (args, err)
    assert main(["leaderboard", str(tmp_path / "missing.parquet")]) == 2


def test_the_bayesian_model_by_nuts_and_by_laplace(tmp_path, capsys, mock_nuts):
    # the contract's board (tests/simulators.small_board); the command's JSON against the
    # library's fit of the same seed: NUTS's trace is prior draws (the command is tested,
    # not the sampler)
    frame, _ = small_board()
    path = tmp_path / "board.csv"
    frame.to_csv(path, index=False)
    args = ["leaderboard", str(path), "--method", "nuts", "--model", "rasch"]
    assert main([*args, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = jb.LeaderboardStudy.from_items(frame).fit("nuts", random_seed=0).leaderboard()
    assert [r["system"] for r in out["systems"]] == list(want["system"])
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    assert (out["model"], out["method"], out["estimand"]) == ("rasch", "nuts", "items")
    # a judge's verdicts with human labels on every fifth row, by Laplace
    judged = frame.assign(human=frame["score"].where(frame.index % 5 == 0))
    judged.to_csv(path, index=False)
    lap = ["leaderboard", str(path), "--method", "laplace", "--human", "human"]
    assert main([*lap, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    study = jb.LeaderboardStudy.from_items(judged, human="human")
    want = study.fit("laplace", random_seed=0).leaderboard()
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    # item clusters: refused (exit 1), one line naming NUTS
    judged.assign(cluster=judged["item"] // 4).to_csv(path, index=False)
    assert main([*lap, "--cluster", "cluster"]) == 1  # a refusal, as every command's
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nuts" in err[0]
