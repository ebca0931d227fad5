"""``judgebayes leaderboard``: the library's table, from a CSV or a Parquet file."""

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
    args = [str(path), "--top-k", "2", "--bootstrap", "300", "--format", "json"]
    assert main(["leaderboard", *args]) == 0
    out = json.loads(capsys.readouterr().out)
    want = jb.leaderboard(board, top_k=2, bootstrap=300)
    got = [(r["system"], r["rank_lower"], r["rank_upper"], r["tier"]) for r in out["systems"]]
    assert got == list(
        want[["system", "rank_lower", "rank_upper", "tier"]].itertuples(index=False, name=None)
    )
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    assert out["critical_value"] == pytest.approx(want.attrs["critical_value"])
    assert main(["leaderboard", str(path), "--bootstrap", "300"]) == 0
    text = capsys.readouterr().out
    assert "4 systems on 120 items" in text and "rank low" in text


def test_adjust_takes_the_judges_pull_out(tmp_path, capsys):
    from tests.simulators import verbose_board

    frame, _ = verbose_board(np.random.default_rng(4), n_items=60)
    path = tmp_path / "verbose.csv"
    frame.to_csv(path, index=False)
    args = [str(path), "--adjust", "length", "--bootstrap", "200", "--format", "json"]
    assert main(["leaderboard", *args]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    want = jb.leaderboard(frame, adjust="length", bootstrap=200)
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    assert out["slopes"]["length"] == pytest.approx(list(want.attrs["slopes"]["length"]))
    assert out["surely_above"] == want.attrs["surely_above"]
    assert "adjusted to length = 0" in captured.err
    assert main(["leaderboard", str(path), "--adjust", "shown_first"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "same for every system on each item" in err, err


def test_bad_input_is_one_line_and_exit_2(board, tmp_path, capsys):
    path = tmp_path / "board.csv"
    board.to_csv(path, index=False)
    assert main(["leaderboard", str(path), "--score", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0]
    assert main(["leaderboard", str(tmp_path / "missing.parquet")]) == 2


def test_model_fits_the_bayesian_leaderboard(tmp_path, capsys):
    # the contract's board (tests/simulators.small_board): its Rasch model compiles once
    frame, _ = small_board()
    path = tmp_path / "board.csv"
    frame.to_csv(path, index=False)
    assert main(["leaderboard", str(path), "--model", "rasch", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    fit = jb.LeaderboardStudy.from_frame(frame).fit("nuts", random_seed=0)
    want = fit.table()
    assert [r["system"] for r in out["systems"]] == list(want["system"])
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    assert out["model"] == "rasch"
    assert main(["leaderboard", str(path), "--trials", "n"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--trials" in err[0]


def test_engine_laplace_fits_the_same_model_by_laplace(tmp_path, capsys):
    frame, _ = small_board()
    path = tmp_path / "board.csv"
    frame.to_csv(path, index=False)
    args = ["leaderboard", str(path), "--model", "rasch", "--engine", "laplace"]
    assert main([*args, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = jb.LeaderboardStudy.from_frame(frame).fit("laplace", random_seed=0).table()
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    assert (out["model"], out["engine"]) == ("rasch", "laplace")
    assert main(args) == 0 and "(Laplace)" in capsys.readouterr().out
    # a judge's verdicts with human labels on every fifth row: the judged Laplace fit
    judged = frame.assign(human=frame["score"].where(frame.index % 5 == 0))
    judged.to_csv(path, index=False)
    assert main([*args, "--human", "human", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    study = jb.LeaderboardStudy.from_frame(judged, human="human")
    want = study.fit("laplace", random_seed=0).table()
    assert [r["estimate"] for r in out["systems"]] == pytest.approx(want["estimate"].tolist())
    # item clusters: refused (exit 1), one line naming NUTS
    judged.assign(cluster=judged["item"] // 4).to_csv(path, index=False)
    assert main([*args, "--cluster", "cluster"]) == 1  # a refusal, as every command's
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nuts" in err[0]
