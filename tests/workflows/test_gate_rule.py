"""The gate's rule as a library function: what ``judgebayes gate`` prints and exits with is
what :func:`judgebayes.workflows.gate_rule.gate` returns, in a notebook as on the command
line."""

import warnings

import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.workflows.gate_rule import gate


def _two_systems():
    parts = []
    for i, (s, theta) in enumerate((("A", 0.85), ("B", 0.6))):
        sim = jb.simulate.simulate_items(1500, theta=theta, n_labelled=150, seed=i)
        parts.append(sim.frame.assign(system=s))
    return pd.concat(parts, ignore_index=True)


def test_claims_decide_and_the_cli_prints_the_same_verdict(tmp_path, capsys):
    frame = _two_systems()
    study = jb.AccuracyStudy.from_items(frame, system="system")
    fit = study.fit("closed_form")
    ok = gate(study, fit, ["A > 0.75", "A > B"])
    assert ok.passed and ok.exit_code == 0 and not ok.failed_checks
    assert ok.summary().startswith("PASS: 2 of 2 claim(s) supported at 0.95 (closed_form")
    bad = gate(study, fit, ["A > 0.75", "B > 0.8"], prob=0.95)
    assert not bad.passed and bad.exit_code == 1
    assert list(bad.claims["supported"]) == [True, False]
    path = tmp_path / "items.csv"
    frame.to_csv(path, index=False)
    capsys.readouterr()
    args = ["gate", str(path), "--system", "system", "--method", "closed-form"]
    assert main([*args, "--claim", "A > 0.75", "--claim", "B > 0.8"]) == bad.exit_code
    err = capsys.readouterr().err
    assert f"judgebayes gate: {bad.summary()}" in err


def test_a_flagged_assumption_of_the_model_fails_the_gate_and_says_which():
    # 396 of 400 judged correct, but the judge is right 80% of the time in each class of
    # 120 calibration items: no true rate reaches a judged 0.99 (check 'transfer')
    rng = np.random.default_rng(0)
    h = np.r_[np.ones(60), np.zeros(60)].astype(int)
    right = rng.random(120) < 0.8
    study = jb.AccuracyStudy.from_frames(
        pd.DataFrame({"judge": (np.arange(400) < 396).astype(int)}),
        pd.DataFrame({"human": h, "judge": np.where(right, h, 1 - h)}),
    )
    result = gate(study, study.fit("closed_form"), ["rate > 0.5"])
    assert not result.passed and result.exit_code == 1
    assert [r.check for r in result.failed_checks] == ["transfer"]
    assert "check transfer flags" in result.summary()


def test_a_claim_read_off_too_few_effective_draws_is_not_supported():
    # prompts labelled on one system only leave the exact paired posterior's importance
    # weights few effective draws; the gate said nothing and passed on 9-14 of them
    frame, _, _ = jb.simulate.simulate_paired(400, labelled=0.1, seed=1)
    rng = np.random.default_rng(0)
    idx = frame.index[frame["human"].isna() & (frame["system"] == "A")]
    frame.loc[idx[:30], "human"] = (rng.random(30) < 0.75).astype(float)
    study = jb.AccuracyStudy.from_items(frame, system="system", item="prompt")
    with warnings.catch_warnings():  # the labels follow the rows here (checked elsewhere)
        warnings.simplefilter("ignore", jb.errors.LabellingWarning)
        fit = study.fit("exact", random_seed=0)
    assert fit.info["ess"] < 400
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.errors.LabellingWarning)
        result = gate(study, fit, ["A > B - 0.4", "A > 0.01"])
        assert not result.claims["supported"].any() and not result.passed
        assert result.claims["reason"].str.contains("effective draws").all()
        wide = gate(study, study.fit("closed_form"), ["A > B - 0.4"])
    assert wide.claims["supported"].all()  # the same claim where no draws are needed
