"""``judgebayes agreement``: the installed command on PandaLM's three annotators and two judges
(real data), the long form of the same ratings, and bad input as one line with exit 2
(through the entry point in this process).
"""

import json

import pandas as pd
import pytest

from judgebayes.cli import main
from judgebayes.datasets.base import data_path
from tests import helpers


@pytest.fixture(scope="module")
def pairs():
    return data_path("pandalm", "pandalm_pairs.csv")


def run(*args):
    return helpers.run("agreement", *args)


def test_wide_with_judges_and_long_form_agree(pairs, tmp_path):
    wide = run(
        pairs,
        "--raters",
        "annot1,annot2,annot3",
        "--item",
        "idx",
        "--judges",
        "gpt35_verdict,pandalm7b_verdict",
        "--bootstrap",
        "300",
        "--format",
        "json",
    )
    assert wide.returncode == 0, wide.stderr
    out = json.loads(wide.stdout)
    coef = {r["coefficient"]: r for r in out["coefficients"]}
    assert set(coef) == {"percent", "fleiss", "gwet", "brennan_prediger", "krippendorff"}
    # three annotators on 999 pairs: Fleiss' kappa is between 0 and 1 and its intervals hold it
    k = coef["fleiss"]
    assert 0 < k["lower"] < k["estimate"] < k["upper"] < 1
    assert k["n_items"] == 999
    judges = {r["judge"]: r for r in out["judges"]}
    assert judges["gpt35_verdict"]["n_items"] == 999 - 25  # its unusable outputs are blank
    assert out["effective_judges"]["judges"] == 2
    frame = pd.read_csv(pairs)
    long = frame.melt(
        id_vars="idx",
        value_vars=["annot1", "annot2", "annot3"],
        var_name="annotator",
        value_name="label",
    )
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    res = helpers.cli(
        "agreement",
        path,
        "--item",
        "idx",
        "--rater",
        "annotator",
        "--value",
        "label",
        "--bootstrap",
        "300",
        "--format",
        "json",
    )
    assert res.returncode == 0, res.stderr
    again = {r["coefficient"]: r for r in json.loads(res.stdout)["coefficients"]}
    for key, row in coef.items():
        assert again[key]["estimate"] == pytest.approx(row["estimate"], abs=1e-12)
        assert again[key]["se"] == pytest.approx(row["se"], abs=1e-12)


def test_table_format(pairs, capsys):
    assert (
        main(["agreement", str(pairs), "--raters", "annot1,annot2,annot3", "--bootstrap", "50"])
        == 0
    )
    assert "Krippendorff's alpha" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--raters", "annot1"], "at least two raters"),
        (["--raters", "annot1,nope"], "no column 'nope'"),
        (
            ["--raters", "annot1,annot2", "--level", "ratio", "--categories", "a,b"],
            "numeric categories",
        ),
        (["--item", "idx", "--rater", "model_1"], "value="),
        (["--raters", "annot1,annot2", "--judges", "annot1"], "given as both judges= and humans="),
    ],
)
def test_bad_input_is_one_line_and_exit_2(pairs, args, message, capsys):
    # through the entry point in this process (the command itself runs above)
    capsys.readouterr()
    assert main(["agreement", str(pairs), *args]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


def test_interval_flag_chooses_the_posterior_or_the_t_interval(tmp_path):
    # 30 items, one rare category on which the two raters always agree: Gwet's t interval
    # is the point 1, the posterior (the default) is not; anything else is refused
    path = tmp_path / "rare.csv"
    pd.DataFrame({"a": [1] * 2 + [0] * 28, "b": [1] * 2 + [0] * 28}).to_csv(path, index=False)
    rows = {}
    for how in ("posterior", "t"):
        res = helpers.cli("agreement", str(path), "--raters", "a,b", "--interval", how,
                          "--format", "json")  # fmt: skip
        assert res.returncode == 0, res.stderr
        rows[how] = {r["coefficient"]: r for r in json.loads(res.stdout)["coefficients"]}
    assert rows["t"]["cohen"]["lower"] == pytest.approx(1.0)
    assert rows["posterior"]["cohen"]["lower"] < 0.6
    bad = helpers.cli("agreement", str(path), "--raters", "a,b", "--interval", "bayes")
    assert bad.returncode == 2 and "--interval" in bad.stderr
