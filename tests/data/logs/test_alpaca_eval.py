"""AlpacaEval's annotation files (judgebayes/data/logs/alpaca_eval.py), read from files
AlpacaEval 0.6.6 wrote itself (tests/fixtures/alpaca_eval: four models, a scripted judge;
make_fixture.py there remakes them): the reader's win rates against the leaderboard.csv
AlpacaEval wrote beside each file.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError

FIXTURE = Path(__file__).parents[2] / "fixtures" / "alpaca_eval"
SYSTEMS = ("alpha", "beta", "delta", "gamma")
INSTRUCTION = "Toy instruction {0}: explain item {0} in a few words."


def test_win_rates_are_alpaca_evals_own():
    frame = jb.io.alpaca_eval_items(FIXTURE)
    assert sorted(frame["system"].unique()) == list(SYSTEMS)
    assert frame.groupby("system")["item"].nunique().eq(10).all()  # paired on the instruction
    for s in SYSTEMS:
        board = pd.read_csv(FIXTURE / s / "leaderboard.csv", index_col=0).loc[s]
        rows = frame[frame["system"] == s]
        assert 100 * rows["score"].mean() == pytest.approx(board["win_rate"], abs=1e-9)
        assert rows["score"].notna().sum() == board["n_total"]
        assert (rows["score"] == 0.5).sum() == board["n_draws"]
    # the judge's unparsable answer is a blank score, counted; the identical answer a draw
    assert frame.attrs["n_missing"] == {"alpha": 0, "beta": 0, "delta": 0, "gamma": 1}
    assert frame.loc[frame["identical"], "score"].tolist() == [0.5]
    assert frame.attrs["annotator"] == "judge" and frame.attrs["reference"] == "reference"
    lengths = frame.groupby("system")["log_len"].mean()
    assert list(lengths.sort_values().index) == ["alpha", "beta", "gamma", "delta"]


def test_the_frame_is_a_leaderboard():
    frame = jb.io.alpaca_eval_items([FIXTURE / s / "annotations.json" for s in SYSTEMS])
    table = jb.leaderboard(frame)  # system, item, score: the frame's own columns
    assert set(table["system"]) == set(SYSTEMS)
    means = (
        frame.dropna(subset=["score"]).groupby("item").filter(lambda g: len(g) == len(SYSTEMS))
    )  # the closed form pairs the items every system has a score on
    want = means.groupby("system")["score"].mean()
    np.testing.assert_allclose(table.set_index("system")["estimate"].loc[want.index], want)


def _copy(tmp_path, change):
    """The fixture copied with one record of alpha's changed by ``change``."""
    out = tmp_path / "results"
    shutil.copytree(FIXTURE, out, ignore=shutil.ignore_patterns("*.py", "judge"))
    path = out / "alpha" / "annotations.json"
    rows = json.loads(path.read_text())
    change(rows)
    path.write_text(json.dumps(rows))
    return out


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r[0].update(annotator="other_judge"), "annotator"),
        (lambda r: r[0].update(generator_1="other_reference"), "generator_1"),
        (lambda r: r.append(dict(r[0])), "paths"),
        (lambda r: r[0].pop("preference"), "preference"),
    ],
)
def test_bad_files_are_one_typed_error_naming_the_field(tmp_path, change, field):
    with pytest.raises(InputError) as err:
        jb.io.alpaca_eval_items(_copy(tmp_path, change))
    assert err.value.field == field


def test_one_annotator_of_several_and_missing_paths(tmp_path):
    folder = _copy(tmp_path, lambda r: [x.update(annotator="other_judge") for x in r])
    alpha = jb.io.alpaca_eval_items(folder, annotator="other_judge")
    assert set(alpha["system"]) == {"alpha"} and alpha.attrs["annotator"] == "other_judge"
    with pytest.raises(InputError, match="not in the files"):
        jb.io.alpaca_eval_items(folder, annotator="nobody")
    with pytest.raises(InputError, match="not found"):
        jb.io.alpaca_eval_items(tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"has no \*\*/annotations\.json files"):
        jb.io.alpaca_eval_items(FIXTURE / "judge")


@pytest.mark.parametrize("preference", [3, -1, 2.5, "B", True, False])
def test_a_preference_off_alpaca_evals_scale_is_refused(tmp_path, preference):
    # AlpacaEval writes 1 to 2 (0: a legacy draw, blank: unparsed); 3 is no win of 2, and
    # a JSON boolean is no preference (true is not "the reference preferred", 1)
    folder = _copy(tmp_path, lambda r: r[4].update(preference=preference))
    with pytest.raises(InputError) as err:
        jb.io.alpaca_eval_items(folder)
    assert err.value.field == "preference" and err.value.value == preference
    assert isinstance(err.value.value, bool) == isinstance(preference, bool)
    message = str(err.value)
    assert f"preference {preference!r}" in message
    assert str(folder / "alpha" / "annotations.json") in message and "record 4" in message


def test_legacy_draws_and_probabilities_are_read(tmp_path):
    # the legacy draw (0) is half a win; a judge's probability (1.75) is a fractional win
    def change(r):
        r[0].update(preference=0)
        r[1].update(preference=1.75)

    frame = jb.io.alpaca_eval_items(_copy(tmp_path, change))
    alpha = frame[frame["system"] == "alpha"].set_index("instruction")["score"]
    assert alpha[INSTRUCTION.format(0)] == 0.5 and alpha[INSTRUCTION.format(1)] == 0.75


@pytest.mark.parametrize(
    ("bad", "got"), [(None, "NoneType"), (3, "int"), ([FIXTURE, 3], "list holding int")]
)
def test_paths_that_are_no_paths_are_named_with_their_type(bad, got):
    # before: pathlib's TypeError ("argument should be a str or an os.PathLike object")
    with pytest.raises(InputError) as err:
        jb.io.alpaca_eval_items(bad)
    assert err.value.field == "paths" and err.value.value == got.split()[-1]
    assert str(err.value).startswith("paths must be ") and f"got {got}" in str(err.value)
