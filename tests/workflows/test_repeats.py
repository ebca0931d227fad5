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


def _ten_prompts(seed: int, sd_prompt: float):
    """10 prompts x 4 generations x 3 judge runs, logit-normal effects (sd ``sd_prompt``
    and 0.8 around 0.3), written here in numpy; the components by 60-point quadrature."""
    import pandas as pd
    from scipy.special import expit

    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    p = expit(0.3 + sd_prompt * x[:, None] + 0.8 * x[None, :])
    mean_g = p @ w
    truth = {
        "prompt": float(np.sum(w * mean_g**2) - np.sum(w * mean_g) ** 2),
        "generation": float(np.sum(w * (p**2 @ w - mean_g**2))),
        "judge run": float(np.sum(w * ((p * (1 - p)) @ w))),
    }
    rng = np.random.default_rng(seed)
    a = rng.normal(0, sd_prompt, 10)[:, None, None]
    b = rng.normal(0, 0.8, (10, 4, 1))
    y = rng.random((10, 4, 3)) < expit(0.3 + a + b)
    i, g, _ = np.indices(y.shape)
    frame = pd.DataFrame({"prompt": i.ravel(), "generation": g.ravel(), "judge": y.ravel() * 1})
    return frame, truth


@pytest.mark.parametrize("sd_prompt", [1.0, 2.0])
def test_closed_form_intervals_cover_with_ten_prompts(sd_prompt):
    # 200 sets; MC sd of a 0.95 coverage 0.0154, the bar 2.5 sd below nominal (0.911).
    # The percentile bootstrap it replaced covered 0.83 / 0.875 / 0.91 at sd 1.
    hits = []
    for seed in range(200):
        frame, truth = _ten_prompts(seed, sd_prompt)
        split = jb.variance_split(frame, random_seed=seed).set_index("component")
        hits.append([split.loc[c, "lower"] <= v <= split.loc[c, "upper"] for c, v in truth.items()])
    cover = np.mean(hits, axis=0)
    assert cover.min() >= 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / 200), cover


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
