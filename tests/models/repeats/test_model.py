"""The repeats model (judgebayes/models/repeats/model.py): its variables and dims, its log
density at a fixed point against the docstring's (scipy.stats), and its variance
components against the trapezoid's over the generation effect.
"""

import numpy as np
import pytest
from scipy import integrate, stats

from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.repeats import repeated_verdicts_model
from tests.models.logp import (
    TOL,
    binom,
    coords,
    dims,
    dirichlet_rows,
    evaluate,
    expit,
    half_normal,
    normal,
)

PROMPT = np.array([0, 0, 1, 1, 2])
K, RUNS = np.array([2, 1, 0, 2, 1]), np.array([2, 2, 3, 2, 1])
MU, S_P, S_G = 0.3, 0.8, 0.5
A, B = np.array([0.4, -1.2, 0.9]), np.array([0.1, -0.5, 1.3, 0.0, -0.8])
PI = np.array([0.2, 0.5, 0.3])


def test_generations_and_judge_runs_nest_in_prompts():
    model = repeated_verdicts_model(
        K,
        RUNS,
        PROMPT,
        n_prompts=3,
        priors=AccuracyPriors(cluster_mu=(0.5, 1.2), cluster_sigma=0.7),
    )
    assert coords(model) == {"component": ["prompt", "generation", "judge run"]}
    assert dims(model, "free_RVs") == dict.fromkeys(
        ("mu", "sigma_prompt", "sigma_generation", "a", "b", "prompt_weight"), ()
    )
    assert dims(model, "observed_RVs") == {"k_obs": ()}
    assert dims(model, "deterministics") == {
        "rate": (),
        "var_prompt": (),
        "var_generation": (),
        "var_judge": (),
        "variance": ("component",),
    }
    point = {"mu": MU, "sigma_prompt": S_P, "sigma_generation": S_G, "a": A, "b": B}
    lp, det = evaluate(model, point | {"prompt_weight": PI})
    p = expit(MU + S_P * A[PROMPT] + S_G * B)
    assert lp == pytest.approx(
        {
            "mu": normal(MU, 0.5, 1.2),
            "sigma_prompt": half_normal(S_P, 0.7),
            "sigma_generation": half_normal(S_G, 0.7),
            "a": normal(A, 0, 1),
            "b": normal(B, 0, 1),
            "prompt_weight": dirichlet_rows(PI, 1.0),
            "k_obs": binom(K, RUNS, p),
        },
        **TOL,
    )
    # per prompt, E_g p and E_g p^2 over a new generation's effect
    x = np.linspace(-14, 14, 28_001)
    grid = expit(MU + S_P * A[:, None] + S_G * x[None, :])
    m = integrate.trapezoid(grid * stats.norm.pdf(x), x)
    s = integrate.trapezoid(grid**2 * stats.norm.pdf(x), x)
    rate = PI @ m
    want = [(3 + 1) / (3 - 1) * PI @ (m - rate) ** 2, PI @ (s - m**2), PI @ (m - s)]
    assert float(det["rate"]) == pytest.approx(rate, abs=1e-10)
    np.testing.assert_allclose(det["variance"], want, atol=1e-10)
    np.testing.assert_allclose(
        [det["var_prompt"], det["var_generation"], det["var_judge"]], det["variance"]
    )


def test_the_prompt_components_factor_makes_its_mean_the_sample_variance():
    """Under Bayesian-bootstrap weights the weighted variance's mean is (I - 1) / (I + 1)
    of the prompts' sample variance: the factor (I + 1) / (I - 1) undoes it.
    """
    rng = np.random.default_rng(0)
    m = np.array([0.1, 0.5, 0.55, 0.9])
    pi = rng.dirichlet(np.ones(m.size), 400_000)
    v = (m.size + 1) / (m.size - 1) * np.sum(pi * (m - (pi @ m)[:, None]) ** 2, axis=1)
    assert v.mean() == pytest.approx(np.var(m, ddof=1), abs=4 * v.std() / np.sqrt(v.size))
