"""Repeated generations and judge runs: the variance split and the planner.

Data come from ``jb.simulate.simulate_repeats`` (a logit-normal prompt and generation
effect, binomial judge runs, drawn in numpy, not with the package's model), whose true
components are integrated on a 4,000 x 4,000 quantile grid.
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import InputError


def _sim(seed, runs=3):
    return jb.simulate.simulate_repeats(150, 4, runs, seed=seed)[0]


def _truth():
    return jb.simulate.simulate_repeats(2, seed=0)[1]


def test_closed_form_split_recovers_the_components_and_the_planner_prefers_prompts():
    truth = _truth()
    split = jb.variance_split(_sim(0), random_seed=0)
    for _, row in split.iterrows():
        assert row["lower"] <= truth[row["component"]] <= row["upper"], row.to_dict()
    assert split["share"].sum() == pytest.approx(1.0)
    assert split.attrs["design"] == {
        "prompts": 150,
        "generations_per_prompt": 4.0,
        "runs_per_generation": 3.0,
    }
    # se of the mean: v_p / I + v_g / (IG) + v_r / (IGR), as the cluster-robust one
    plan = jb.plan.plan_repeats(split, budget=600)
    v = split.set_index("component")["variance"]
    se_now = np.sqrt(v["prompt"] / 150 + v["generation"] / 600 + v["judge run"] / 1800)
    assert plan["se_now"].iloc[0] == pytest.approx(se_now)
    assert plan["se_now"].iloc[0] == pytest.approx(split.attrs["rate_se"], rel=0.1)
    assert plan["option"].iloc[0] == "more prompts"  # prompts vary most per unit cost
    np.testing.assert_allclose(plan["cost"], 2400 + 600)
    with pytest.raises(InputError) as e:
        jb.plan.plan_repeats(split, budget=-1)
    assert e.value.field == "budget"
    with pytest.raises(InputError) as e:
        jb.variance_split(_sim(0), generation="gen")
    assert e.value.field == "gen"


def test_one_run_per_generation_is_said_and_missing_verdicts_are_counted():
    f = _sim(1, runs=1).astype({"judge": float})
    f.loc[:4, "judge"] = np.nan
    split = jb.variance_split(f, random_seed=0)
    assert split.attrs["n_missing"] == 5
    assert any("judge-run component is not identified" in n for n in split.attrs["notes"])


@pytest.mark.slow
def test_nuts_split_covers_the_components_and_agrees_with_the_closed_form():
    truth = _truth()
    f = _sim(2)
    split = jb.variance_split(f, method="nuts", random_seed=2)
    assert split.attrs["passed"], split.attrs["diagnostics"]
    cf = jb.variance_split(f, random_seed=2)
    for (_, row), (_, ref) in zip(split.iterrows(), cf.iterrows(), strict=True):
        assert row["lower"] <= truth[row["component"]] <= row["upper"], row.to_dict()
        # two estimators of one quantity on one data set: within the bootstrap's spread
        assert abs(row["variance"] - ref["variance"]) < (ref["upper"] - ref["lower"]) / 2
    lo, hi = split.attrs["sigma_generation"]
    assert lo <= 0.7 <= hi
