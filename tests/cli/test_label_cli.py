"""``judgebayes label-next``: the command plans rounds of labels into a CSV file, a simulated
human labels the drawn rows, and ``--estimate`` reads the rounds back; bad input is one line
with exit 2 (the first round from the installed command's own process, the rest through its
entry point in this process)."""

import json

import numpy as np
import pandas as pd
import pytest

from tests import helpers


def _log(path, seed=0, n=1500):
    # a calibrated judge: unsure near 1/2; the truth drawn from its own stream
    rng = np.random.default_rng([seed, 11])
    p = rng.beta(0.4, 0.4, n)
    truth = (rng.random(n) < p).astype(float)
    pd.DataFrame({"judge": p, "unsure": -np.abs(p - 0.5), "human": np.nan}).to_csv(
        path, index=False
    )
    return truth


def _label(path, truth):
    d = pd.read_csv(path)
    now = d["label_now"].to_numpy(bool)
    d.loc[now, "human"] = truth[now]
    d.to_csv(path, index=False)
    return d


def test_rounds_written_labelled_and_read_back(tmp_path):
    truth = _log(tmp_path / "log.csv")
    src = tmp_path / "log.csv"
    budgets = (60, 60, 90)
    for r, k in enumerate(budgets, start=1):
        out = tmp_path / f"round{r}.csv"
        res = (helpers.run if r == 1 else helpers.cli)(
            "label-next", src, "--budget", k, "--uncertainty", "unsure", "--out", out,
            "--width", 0.05, "--seed", 3, "--claim", "rate > 0.2", "--format", "json",
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        plan = json.loads(res.stdout)
        assert plan["round"] == r and plan["expected_labels"] == pytest.approx(k)
        d = _label(out, truth)
        assert plan["to_label"] == int(d["label_now"].sum()) == int((d["round"] == r).sum())
        # each round draws about its budget: Poisson-binomial, sd at most sqrt(k)
        assert abs(plan["to_label"] - k) < 4 * np.sqrt(k)
        assert d[f"prob_{r}"].between(0, 1).all()
        # the rate is near 0.5: "rate > 0.2" is open before any label, decided after
        assert plan["decision_now"] == ("continue" if r == 1 else "pass")
        src = out
    res = helpers.cli(
        "label-next", src, "--estimate", "--uncertainty", "unsure", "--format", "json"
    )
    assert res.returncode == 0, res.stderr
    est = json.loads(res.stdout)
    assert [r["round"] for r in est["rounds"]] == [1, 2, 3]
    assert est["labels"] == int(pd.read_csv(src)["round"].notna().sum())
    assert est["lower"] < est["estimate"] < est["upper"]
    # one set: its 95% interval holds the mean of all 1,500 truths unless a 1-in-20 event
    assert est["lower"] <= truth.mean() <= est["upper"]
    table = helpers.cli("label-next", src, "--estimate", "--uncertainty", "unsure")
    assert table.returncode == 0 and table.stdout.splitlines()[-1].startswith("all")


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    _log(tmp_path / "log.csv")
    log = tmp_path / "log.csv"
    cases = [
        (("--budget", 10), "planning needs --budget and --out"),
        (("--budget", 10**6, "--out", tmp_path / "o.csv"), "exceeds"),
        (("--budget", 10, "--out", tmp_path / "o.csv", "--uncertainty", "nope"), "nope"),
        (("--estimate",), "found no round"),
    ]
    for extra, said in cases:
        res = helpers.cli("label-next", log, *extra)
        assert res.returncode == 2, (extra, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and said in res.stderr, res.stderr
    # a drawn round not labelled yet is refused before the next round is planned
    out = tmp_path / "r1.csv"
    assert helpers.cli("label-next", log, "--budget", 30, "--out", out).returncode == 0
    res = helpers.cli("label-next", out, "--budget", 30, "--out", tmp_path / "r2.csv")
    assert res.returncode == 2 and "label them before planning round 2" in res.stderr
    # a later round needs the earlier rounds' probabilities, which the file must keep
    d = pd.read_csv(out)
    d.loc[d["label_now"] == 1, "human"] = 1.0
    d.drop(columns="prob_1").to_csv(tmp_path / "lost.csv", index=False)
    res = helpers.cli("label-next", tmp_path / "lost.csv", "--budget", 30, "--out", out)
    assert res.returncode == 2 and "no column 'prob_1'" in res.stderr
