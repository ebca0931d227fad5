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
