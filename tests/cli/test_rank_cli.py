"""The rank command (judgebayes/cli/rank.py): JSON and table output against the library's fit,
one-line errors, and the ranking by human preference with PPI on PandaLM.
"""

import json

import numpy as np
import pandas as pd
import pytest

from judgebayes.datasets import pandalm_judged
from judgebayes.simulate.ranking import controlled_benchmark
from judgebayes.studies.ranking import PairwiseRanking
from tests.helpers import cli, run


def _write_csvs(tmp_path, sim):
    a, b, y = sim.comparisons()
    comps = pd.DataFrame(
        {"first": [f"i{v}" for v in a], "second": [f"i{v}" for v in b],
         "winner": [f"i{i}" if v == 1 else f"i{j}" for i, j, v in zip(a, b, y, strict=True)]}
    )  # fmt: skip
    items = pd.DataFrame({"item": [f"i{v}" for v in range(sim.n_items)], "verbose": sim.x})
    comps.to_csv(tmp_path / "c.csv", index=False)
    items.to_csv(tmp_path / "i.csv", index=False)
    return tmp_path / "c.csv", tmp_path / "i.csv"


def test_cli_rank_json_and_table(tmp_path):
    sim = controlled_benchmark(seed=0)
    c, i = _write_csvs(tmp_path, sim)
    out = run("rank", c, "--items", i, "--covariate", "verbose", "--k", "5", "--format", "json")
    assert out.returncode == 0, out.stderr
    js = json.loads(out.stdout)
    assert js["n_comparisons"] == 870 and js["k"] == 5 and len(js["top_k"]) == 5
    assert {r["coefficient"] for r in js["coefficients"]} == {"verbose", "position"}
    assert sum(r["p_top_k"] for r in js["items"]) == pytest.approx(5.0, abs=1e-9)
    # the CLI's top set is the API's
    r = PairwiseRanking.from_frames(pd.read_csv(c), pd.read_csv(i), covariates=["verbose"])
    api = r.fit("laplace", random_seed=0)
    assert js["top_k"] == api.top_k_set(5) and js["point_top_k"] == api.point_top_k(5)
    assert js["identification"] == "sum_to_zero"
    assert abs(sum(r["estimate"] for r in js["items"])) < 1e-9
    tab = cli("rank", c, "--items", i, "--covariate", "verbose", "--method", "naive")
    assert tab.returncode == 0 and "top 5 (most expected recall)" in tab.stdout
    assert "qualities sum to zero" in tab.stdout
    ref = cli("rank", c, "--method", "naive", "--reference", "i3", "--format", "json")
    assert ref.returncode == 0, ref.stderr
    js = json.loads(ref.stdout)
    assert js["identification"] == "reference=i3"
    assert [r["estimate"] for r in js["items"] if r["item"] == "i3"] == [0.0]


@pytest.mark.parametrize(
    "extra, needle",
    [
        (("--covariate", "nope"), "covariate 'nope'"),
        (("--k", "99"), "--k must be"),
        (("--reference", "nobody"), "reference must be one of the items"),
    ],
)
def test_cli_rank_bad_input(tmp_path, extra, needle):
    c, i = _write_csvs(tmp_path, controlled_benchmark(seed=0))
    out = cli("rank", c, "--items", i, *extra)
    assert out.returncode == 2
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_cli_ranks_by_human_preference_with_ppi(tmp_path, pandalm):
    import json

    _, sub, _ = pandalm
    df = pandalm_judged()
    labelled = set(np.asarray(sub.channel.instance_ids)[sub.channel.human >= 0].tolist())
    df["human"] = df["human"].where(df["idx"].astype(str).isin(labelled))
    path = tmp_path / "judged.csv"
    df.to_csv(path, index=False)
    cmd = ["rank", str(path), "--human", "human"]
    out = cli(*cmd, "--instance", "idx", "--method", "ppi", "--format", "json", "--quiet")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["method"] == "ppi" and res["channel"]["n_labelled"] == 200
    api = sub.fit("ppi", random_seed=0).interval()
    for row in res["items"]:
        assert row["estimate"] == pytest.approx(api.loc[row["item"], "estimate"], abs=1e-9)
    bad = cli("rank", str(path), "--method", "judge-error")
    assert bad.returncode == 2 and "--human" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
