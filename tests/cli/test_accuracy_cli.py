"""The accuracy command on an items file (judgebayes/cli/accuracy.py): blanks as unlabelled,
the library's numbers, a wrong column named in one line.
"""

import pytest

import judgebayes as jb
from tests.helpers import cli, systems_frame


def test_cli_items_file_with_blanks(tmp_path):
    f = systems_frame(seed=13, systems=("a", "b"), n=300, labelled=60)
    f["human"] = f["human"].map({1.0: "yes", 0.0: "no"})
    path = tmp_path / "items.csv"
    f.to_csv(path, index=False)
    cmd = ["accuracy", str(path), "--system", "system", "--method", "closed-form"]
    out = cli(*cmd, "--format", "json")
    assert out.returncode == 0, out.stderr
    import json

    res = json.loads(out.stdout)
    assert res["design"] == "items" and res["estimand"] == "items"
    assert [s["n_labelled"] for s in res["systems"]] == [60, 60]
    ref = jb.AccuracyStudy.from_items(f, system="system").fit("closed_form").interval()
    got = {r["system"]: r for r in res["comparison"]}
    for s in ("a", "b"):
        assert got[s]["lower"] == pytest.approx(ref.loc[s, "lower"], abs=1e-12)
    bad = cli(*cmd, "--human", "gold")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "'gold'" in bad.stderr
