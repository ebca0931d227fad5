"""The repeats design's closed form (judgebayes/inference/repeats/closed_form.py): the modified
large-sample interval of a difference of mean squares by hand, and the intervals' coverage
with ten prompts (simulated here in numpy).
"""

import numpy as np
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes.inference.repeats.closed_form import mls_interval


def test_mls_interval_reduces_to_the_chi_square_interval_and_brackets_the_estimate():
    lo, hi = mls_interval(0.2, 9, 0.0, 40, 0.05)
    assert lo == pytest.approx(9 * 0.2 / stats.chi2.ppf(0.975, 9), rel=1e-12)
    assert hi == pytest.approx(9 * 0.2 / stats.chi2.ppf(0.025, 9), rel=1e-12)
    lo, hi = mls_interval(0.2, 9, 0.05, 40, 0.05)
    assert lo < 0.15 < hi
    # the second mean square's uncertainty widens the interval of the difference
    assert hi - lo > np.diff(mls_interval(0.2, 9, 0.05, 1e7, 0.05))[0]


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
