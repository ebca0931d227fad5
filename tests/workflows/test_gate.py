"""The CI gate on claims (`judgebayes gate`, workflows/gate.py).

Reference: the items design's posterior under its stated prior (theta, q0, q1 uniform) by
quadrature (tests/reference.py), against the gate's share of the fit's 4,000 draws.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from judgebayes.workflows.gate import check_claims, parse_claim
from tests.helpers import cli, run
from tests.reference import items_posterior_grid


def _two_systems(seed=0):
    parts = []
    for i, (s, theta) in enumerate((("A", 0.85), ("B", 0.6))):
        sim = jb.simulate.simulate_items(1500, theta=theta, n_labelled=150, seed=seed + i)
        parts.append(sim.frame.assign(system=s))
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize(
    "text,lhs,op,rhs",
    [
        ("A > 0.8", "A", ">", 0.8),
        (" model x <= 0.25 ", "model x", "<", 0.25),
        ("A>B", "A", ">", "B"),
        ("rate >= 1", "rate", ">", 1.0),
    ],
)
def test_claims_are_parsed(text, lhs, op, rhs):
    c = parse_claim(text)
    assert (c.lhs, c.op, c.rhs) == (lhs, op, rhs)


@pytest.mark.parametrize("bad", ["A", "A = 0.8", "> 0.8", "A > 1.5", "A > -0.1", 0.8])
def test_a_malformed_claim_is_one_typed_error(bad):
    with pytest.raises(InputError) as e:
        parse_claim(bad)
    assert e.value.field == "claim"


def test_claim_probability_is_the_conjugate_posterior_probability():
    f = _two_systems()
    study = jb.AccuracyStudy.from_items(f, system="system", estimand="process")
    fit = study.fit("exact", random_seed=1)
    c_a = 0.82
    table = check_claims(fit, [f"A > {c_a}", "A > B", "B > 0.7"], prob=0.9)
    # reference posterior of A's process rate from the counts, sampled independently
    g = f[f["system"] == "A"]
    lab = g[g["human"].notna()]
    n1, n0 = int((g["judge"] == 1).sum()), int((g["judge"] == 0).sum())
    h1 = int(lab.loc[lab["judge"] == 1, "human"].sum())
    l1 = int((lab["judge"] == 1).sum())
    h0 = int(lab.loc[lab["judge"] == 0, "human"].sum())
    l0 = int((lab["judge"] == 0).sum())
    x, w = items_posterior_grid(n1, n0, h1, l1, h0, l0)
    ref = float(w[x > c_a].sum())
    # the gate's P is a share of 4,000 draws: sd <= sqrt(0.25 / 4000) = 0.008; 4 sd (the
    # quadrature's error, 120 nodes over a posterior sd of ~0.03, is far below that)
    assert table.loc[0, "probability"] == pytest.approx(ref, abs=0.032)
    assert table.loc[0, "supported"] == (table.loc[0, "probability"] >= 0.9)
    assert table.loc[1, "supported"] and table.loc[1, "probability"] > 0.99  # 0.85 vs 0.6
    assert not table.loc[2, "supported"] and table.loc[2, "probability"] < 0.1


def test_point_method_uses_its_one_sided_bounds():
    f = _two_systems()
    fit = jb.AccuracyStudy.from_items(f, system="system").fit("closed_form")
    lo = fit.interval(alpha=0.1).loc["A", "lower"]  # one-sided 95% lower bound
    t = check_claims(fit, [f"A > {lo - 0.01:.4f}", f"A > {lo + 0.01:.4f}"], prob=0.95)
    assert list(t["supported"]) == [True, False]
    assert t["bound"].iloc[0] == pytest.approx(lo) and t["probability"].isna().all()
    # the items design's closed form reads A > B off its difference's one-sided bound
    t = check_claims(fit, "A > B", prob=0.95)
    c = fit.contrasts(alpha=0.1).set_index(["a", "b"]).loc[("A", "B")]
    assert t["bound"].iloc[0] == pytest.approx(c["lower"]) and t["supported"].iloc[0]
    assert "independent" in t["reason"].iloc[0]
    # the two-frame closed form has no joint distribution of two systems
    two = jb.AccuracyStudy.from_counts([80, 60], [100, 100], 40, 50, 45, 50, systems=["A", "B"])
    with pytest.raises(InputError, match="joint distribution") as e:
        check_claims(two.fit("closed_form"), "A > B")
    assert e.value.field == "method"
    with pytest.raises(InputError, match="no system named 'C'"):
        check_claims(fit, "C > 0.5")
    for bad in (0.5, 1.0, 1.5, True):
        with pytest.raises(InputError) as e:
            check_claims(fit, "A > 0.5", prob=bad)
        assert e.value.field == "prob"


def test_cli_gate_exit_codes(tmp_path, capsys):
    from judgebayes.cli import main

    path = tmp_path / "items.csv"
    _two_systems().to_csv(path, index=False)
    base = ["gate", path, "--system", "system"]
    ok = run(*base, "--claim", "A > 0.75", "--claim", "A > B", "--format", "json")
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    assert out["passed"] and [c["supported"] for c in out["claims"]] == [True, True]
    assert ok.stderr.startswith("judgebayes gate: PASS: 2 of 2")
    fail = cli(*base, "--claim", "A > 0.75", "--claim", "B > 0.8")
    assert fail.returncode == 1 and "FAIL: 1 of 2" in fail.stderr
    assert "B > 0.8" in fail.stdout
    # the same entry point in this process (the first run above is the installed command)
    base = [str(a) for a in base]
    for bad, field in (
        (["--claim", "A = 0.8"], "'A = 0.8'"),
        (["--claim", "Z > 0.5"], "'Z'"),
        (["--claim", "A > 0.5", "--prob", "2"], "prob"),
    ):
        capsys.readouterr()
        assert main([*base, *bad]) == 2, bad
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and field in err, (bad, err)
    assert main([*base, "--claim", "A > 0.75", "--method", "closed-form"]) == 0


def test_cli_gate_fails_when_the_models_own_check_flags_it(tmp_path):
    # the judge says "correct" on 396 of 400 test items, but on 120 calibration items it
    # was right 80% of the time in each class: no true rate reaches a judged rate of 0.99
    # with those rates (check 'transfer'), so a claim read off the fit is not supported
    rng = np.random.default_rng(0)
    pd.DataFrame({"judge": (np.arange(400) < 396).astype(int)}).to_csv(
        tmp_path / "t.csv", index=False
    )
    h = np.r_[np.ones(60), np.zeros(60)].astype(int)
    right = rng.random(120) < 0.8
    pd.DataFrame({"human": h, "judge": np.where(right, h, 1 - h)}).to_csv(
        tmp_path / "c.csv", index=False
    )
    res = cli(
        "gate", tmp_path / "t.csv", "--calibration", tmp_path / "c.csv",
        "--claim", "rate > 0.5", "--format", "json",
    )  # fmt: skip
    assert res.returncode == 1, res.stderr
    assert "FAIL" in res.stderr and "check transfer flags" in res.stderr
    out = json.loads(res.stdout)
    assert not out["passed"] and out["flagged_checks"][0]["check"] == "transfer"


def test_cli_gate_pairs_systems_by_item(tmp_path):
    # B copies A's correctness on 90% of 400 prompts and then fails 10% more; both systems'
    # rows are labelled on the same 40% of prompts
    rng = np.random.default_rng(3)
    n = 400
    a = rng.random(n) < 0.85
    b = np.where(rng.random(n) < 0.9, a, ~a) & (rng.random(n) > 0.1)
    lab = rng.random(n) < 0.4
    rows = []
    for s, h in (("new", a), ("old", b)):
        v = np.where(h, rng.random(n) < 0.9, rng.random(n) > 0.8)
        rows.append(
            pd.DataFrame(
                {"prompt": np.arange(n), "model": s, "judge": v.astype(int),
                 "human": np.where(lab, h.astype(float), np.nan)}
            )
        )  # fmt: skip
    path = tmp_path / "paired.csv"
    pd.concat(rows).to_csv(path, index=False)
    args = ["gate", path, "--system", "model", "--method", "closed-form", "--claim", "new > old"]
    paired = cli(*args, "--item", "prompt", "--format", "json")
    alone = cli(*args, "--format", "json")
    assert paired.returncode in (0, 1) and alone.returncode in (0, 1), paired.stderr
    p, i = (json.loads(r.stdout)["claims"][0] for r in (paired, alone))
    assert "paired on 400 items" in p["reason"] and "independent" in i["reason"]
    assert p["supported"] and p["bound"] > 0  # the difference is about 0.1 here


@pytest.mark.parametrize(
    ("text", "kind", "rhs", "margin"),
    [
        ("A > B - 0.02", "compare", "B - 0.02", 0.0),
        ("|A - B| < 0.03", "equivalence", "B", 0.03),
        ("| gpt-4 - gpt-3.5 | <= 0.1", "equivalence", "gpt-3.5", 0.1),
    ],
)
def test_margins_and_equivalence_are_parsed(text, kind, rhs, margin):
    c = parse_claim(text)
    assert (c.kind, c.rhs, c.margin) == (kind, rhs, margin)


def test_claims_at_their_margin_hold_the_error_rate_and_several_the_familywise_rate():
    # true A - B = 0.05 in the process.  Each claim below is false at its margin (the
    # boundary), so a gate at prob 0.95 may support it in at most 5% of sets: 300 sets,
    # MC sd 0.0126, limit 0.05 + 2.5 sd = 0.082.  Two such claims together: Holm keeps the
    # family-wise rate (any supported) at the same limit.
    claims = ["B > A - 0.05", "|A - B| < 0.05", "A > B + 0.05"]
    hits = {c: 0 for c in claims}
    any_hit = 0
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)  # labels at random by construction
    for r in range(300):
        fit = jb.AccuracyStudy.from_items(
            jb.simulate.simulate_paired(400, rate_b=0.70, agreement=0.9, seed=r)[0],
            system="system",
            item="prompt",
            estimand="process",
        ).fit("closed_form")
        t = check_claims(fit, claims, prob=0.95)
        for c, ok in zip(claims, t["supported"], strict=True):
            hits[c] += bool(ok)
        any_hit += bool(t["supported"].any())
        assert t["control"].iloc[0] == "Holm over 3 claims (family-wise)"
    assert max(hits.values()) / 300 <= 0.082, hits
    assert any_hit / 300 <= 0.082, any_hit


def test_bayesian_claims_are_decided_by_holm_on_their_tail_probabilities():
    f = _two_systems()
    fit = jb.AccuracyStudy.from_items(f, system="system", estimand="process").fit(
        "exact", random_seed=1
    )
    claims = ["A > B - 0.02", "A > 0.82", "B > 0.7"]
    t = check_claims(fit, claims, prob=0.9)
    d = fit.draws().values
    holds = [d[:, 0] - d[:, 1] > -0.02, d[:, 0] > 0.82, d[:, 1] > 0.7]
    tail = [1 - h.mean() for h in holds]
    # Holm at 0.1 by hand: the smallest tail against 0.1 / 3, the next against 0.1 / 2, ...
    want, kept = [False] * 3, []
    for rank, k in enumerate(sorted(range(3), key=tail.__getitem__)):
        together = np.logical_and.reduce([holds[j] for j in [*kept, k]]).mean()
        if tail[k] > 0.1 / (3 - rank) or together < 0.9:
            break
        want[k] = True
        kept.append(k)
    assert list(t["supported"]) == want and want[0]  # the contrast is supported
    assert t["control"].iloc[0].startswith("Holm over 3 claims")


@pytest.mark.slow
def test_family_wise_error_of_false_claims_is_controlled_for_every_method():
    # 8 systems, 400 items each, 20% labelled; every claim "S_i > theta_i" false (at its
    # boundary): at least one supported in at most 0.05 + 2.5 Monte-Carlo sd of 200 data
    # sets. Measured: exact 0.065 (0.35 with the joint posterior rule alone), closed
    # form 0.085
    rng = np.random.default_rng(0)
    theta = np.linspace(0.5, 0.8, 8)
    names = [f"S{i}" for i in range(8)]
    bad = {"exact": 0, "closed_form": 0}
    reps = 200
    for r in range(reps):
        rows = []
        for i, s in enumerate(names):
            h = (rng.random(400) < theta[i]).astype(float)
            v = np.where(h == 1, rng.random(400) < 0.9, rng.random(400) > 0.8).astype(float)
            lab = rng.random(400) < 0.2
            rows.append(pd.DataFrame({"system": s, "judge": v, "human": np.where(lab, h, np.nan)}))
        study = jb.AccuracyStudy.from_items(
            pd.concat(rows, ignore_index=True), system="system", estimand="process"
        )
        claims = [f"S{i} > {theta[i]:.4f}" for i in range(8)]
        for m in bad:
            t = check_claims(study.fit(m, random_seed=r), claims, prob=0.95)
            bad[m] += bool(t["supported"].any())
    sd = np.sqrt(0.05 * 0.95 / reps)
    for m, v in bad.items():
        assert v / reps <= 0.05 + 2.5 * sd, (m, v / reps)
