"""Planning two systems on the same prompts (judgebayes/inference/accuracy/design/paired.py):
the detectable difference predicted, over a range of agreement.
"""

import warnings

import numpy as np
import pytest

import judgebayes as jb


def test_paired_planner_predicts_the_detectable_difference():
    # the planner's detectable difference (power 0.8, two-sided 0.05) for 400 prompts, 25%
    # labelled on both systems, agreement 0.9, judge 0.9 / 0.8; simulated at that true
    # difference, 300 sets: power within 0.8 +- 0.1 (MC sd 0.023; the rest is the normal
    # approximation), and the estimator's sd within 20% of the predicted se
    plan = jb.plan.plan_paired(
        400, 0.25, rate_a=0.75, rate_b=0.70, agreement=0.9, sensitivity=0.9, specificity=0.8
    )
    delta = plan.detectable_difference
    est, rejected = [], []
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)  # labels at random by construction
    for r in range(300):
        f, *_ = jb.simulate.simulate_paired(400, rate_b=0.75 - delta, seed=r)
        fit = jb.AccuracyStudy.from_items(
            f, system="system", item="prompt", estimand="process"
        ).fit("closed_form")
        c = fit.contrasts().set_index(["a", "b"]).loc[("A", "B")]
        est.append(c["difference"])
        rejected.append(c["lower"] > 0)
    assert 0.7 <= np.mean(rejected) <= 0.9, np.mean(rejected)
    assert abs(np.std(est) / plan.se - 1) <= 0.2, (np.std(est), plan.se)
    # and the labels needed for a given difference: more for a smaller one, NaN when even
    # labelling every prompt cannot reach it
    need = jb.plan.plan_paired(
        400, 0.25, rate_a=0.75, rate_b=0.70, agreement=0.9, sensitivity=0.9,
        specificity=0.8, differences=(0.1, 0.06, 0.01),
    ).labelled_fraction_for  # fmt: skip
    assert need[0.1] < need[0.06] <= 1 and np.isnan(need[0.01])


def test_paired_planner_plans_over_a_range_of_agreement():
    # the worst agreement of the range decides; one value is the range of one point
    kw = dict(rate_a=0.75, rate_b=0.70, sensitivity=0.9, specificity=0.8, differences=(0.08,))
    one = {g: jb.plan.plan_paired(400, 0.25, agreement=g, **kw) for g in (0.8, 0.85, 0.95)}
    ranged = jb.plan.plan_paired(400, 0.25, agreement=(0.8, 0.95), **kw)
    worst = max(one.values(), key=lambda p: p.se)
    assert ranged.se == pytest.approx(worst.se, rel=1e-12)
    assert ranged.agreement == pytest.approx(0.8)  # less agreement, more variance
    assert ranged.se_range == pytest.approx((one[0.95].se, one[0.8].se), rel=1e-12)
    assert ranged.labelled_fraction_for[0.08] == pytest.approx(
        one[0.8].labelled_fraction_for[0.08], rel=1e-12
    )
    assert one[0.85].se_range == (one[0.85].se, one[0.85].se)
    for bad in ((0.95, 0.8), (0.8, 1.2), "high"):
        with pytest.raises(jb.InputError) as e:
            jb.plan.plan_paired(400, 0.25, agreement=bad, **kw)
        assert e.value.field == "agreement"
