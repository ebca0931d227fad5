"""The self-preference check under labelling that depends on the verdict and the system.

Simulated with numpy alone: two systems with different pass rates (so their verdict shares
differ), a judge whose rates are shared (or whose specificity is 0.8 on A and 0.4 on B),
and labels stratified by the verdict with equal counts per system (the design the README
recommends for rare verdicts), or at random.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from tests.simulators import lenient_on_long, ushaped

SETS = 20


def _frame(seed: int, spec_b: float, design: str, n: int = 600, per_cell: int = 100):
    rng = np.random.default_rng(seed)
    rows = []
    for s, theta, spec in (("A", 0.75, 0.8), ("B", 0.35, spec_b)):
        h = rng.random(n) < theta
        v = np.where(h, rng.random(n) < 0.9, rng.random(n) >= spec)
        lab = np.zeros(n, bool)
        if design == "verdict":  # per_cell labels among each verdict of each system
            for val in (True, False):
                idx = np.flatnonzero(v == val)
                lab[rng.choice(idx, min(per_cell, idx.size), replace=False)] = True
        else:
            lab[rng.choice(n, 2 * per_cell, replace=False)] = True
        human = np.where(lab, h.astype(float), np.nan)
        rows.append(pd.DataFrame({"system": s, "judge": v.astype(int), "human": human}))
    return pd.concat(rows, ignore_index=True)


def _flag_rate(spec_b: float, design: str, sets: int = SETS) -> float:
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.errors.LabellingWarning)
        for seed in range(sets):
            study = jb.AccuracyStudy.from_items(_frame(seed, spec_b, design), system="system")
            table = study.check().table.query("check == 'self_preference'")
            hits += bool(table["flagged"].any())
    return hits / sets


def test_shared_rates_under_verdict_labels_are_not_flagged_and_self_preference_is():
    # 20 sets each (200 sets in benchmarks/misspecification.py --only self_verdict).  Shared
    # rates: the bar is <= 10% of sets; a true 1% rate gives 3 or more of 20 with
    # probability 0.001 (measured 0.005 over 200).
    # Specificity 0.8 on A, 0.4 on B, 200 labels a system: the bar is >= 80% of sets.
    assert _flag_rate(0.8, "verdict") <= 2 / SETS
    assert _flag_rate(0.4, "verdict") >= 0.8


@pytest.mark.slow
@pytest.mark.parametrize("design", ["verdict", "random"])
def test_the_check_holds_its_rates_over_200_sets(design):
    # the acceptance bars (<= 10%, >= 80%) on the measured rate over 200 sets
    assert _flag_rate(0.8, design, 200) <= 0.1
    assert _flag_rate(0.4, design, 200) >= 0.8


def test_the_offset_is_the_log_ratio_of_the_labelled_shares():
    from judgebayes.checks.items.self_preference import _offsets

    f = _frame(0, 0.8, "verdict")
    d = jb.AccuracyStudy.from_items(f, system="system").data
    off = _offsets(d, d.judge[:, None], 0)
    for s, name in enumerate(d.systems):
        g = f[f["system"] == name]
        share = g.groupby("judge")["human"].apply(lambda x: x.notna().mean())
        want = np.log(share[1] / share[0])
        assert np.allclose(off[d.system == s], want)


def test_self_preference_check_flags_a_judge_lenient_on_one_system():
    # 20 sets each, 200 labels per system, specificity 0.8 on A against 0.4 on B: over 200
    # sets the check flagged 0.96 of these and 0.01 with equal rates (BENCHMARKS,
    # misspecification); here >= 16 of 20 and <= 2 of 20

    def frame(spec_b, seed):
        r = np.random.default_rng(seed)
        rows = []
        for s, (theta, spec) in {"A": (0.7, 0.8), "B": (0.65, spec_b)}.items():
            h = r.random(400) < theta
            v = np.where(h, r.random(400) < 0.9, r.random(400) >= spec)
            human = np.where(r.permutation(400) < 200, h.astype(float), np.nan)
            rows.append(pd.DataFrame({"system": s, "judge": v.astype(int), "human": human}))
        return pd.concat(rows, ignore_index=True)

    flagged = {}
    for spec_b in (0.8, 0.4):
        hits = 0
        for r in range(20):
            table = jb.AccuracyStudy.from_items(frame(spec_b, r), system="system").check().table
            assert set(table["check"]) == {"self_preference", "labelling"}
            hits += bool(table.query("check == 'self_preference'")["flagged"].any())
        flagged[spec_b] = hits
    assert flagged[0.4] >= 16 and flagged[0.8] <= 2, flagged


def test_conditional_self_preference_survives_a_near_perfect_judge():
    # one labelled positive in 41 with a negative verdict: many bootstrap verdict sets are
    # all ones, whose intercept-only fit had a singular Hessian (a crash mid-benchmark)
    f, _ = lenient_on_long(0, n=200, n_lab=30)
    pos = f.index[f["human"] == 1]
    f.loc[pos, "judge"] = 1
    f.loc[pos[0], "judge"] = 0
    study = jb.AccuracyStudy.from_items(f, system="system", covariates="length")
    out = study.check().table.query("check == 'self_preference'")
    assert len(out) == 2 and np.isfinite(out["p_value"].astype(float)).all()
    assert not out["flagged"].iloc[0]  # sensitivity row: the same on both systems


def _u_flags(sets: int) -> dict[str, int]:
    flagged = {"linear": 0, "spline": 0}
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)
    for seed in range(sets):
        f, _ = ushaped(seed)
        for term in flagged:
            study = jb.AccuracyStudy.from_items(f, system="system", covariates={"length": term})
            t = study.check().table.query("check == 'self_preference'")
            flagged[term] += bool(t["flagged"].any())
    return flagged


def test_a_u_shaped_judge_is_not_read_as_self_preference_with_a_spline_term():
    # the conditional check's alternative and null both carry the spline, so a judge that
    # errs the same curved way on both systems is not flagged: 8 sets here (a true 1%
    # rate gives 2 or more of 8 with probability 0.003), 100 in the slow study below
    flagged = _u_flags(8)
    assert flagged["spline"] <= 1, flagged


@pytest.mark.slow
def test_a_u_shaped_judge_over_100_sets():
    # the acceptance bar: at most 10% of sets where the assumption (given the terms) holds
    flagged = _u_flags(100)
    assert flagged["spline"] <= 10, flagged
