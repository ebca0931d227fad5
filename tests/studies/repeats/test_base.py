"""RepeatsStudy (judgebayes/studies/repeats/base.py): NUTS reads prompts whose effects are not
normal, and the contract's cases. The variance split and the planner over it are
tests/workflows/test_repeats.py.
"""

import numpy as np

import judgebayes as jb
from tests.contract import ContractTests


def test_nuts_split_reads_easy_and_hard_prompts_without_a_normals_shape():
    # 40 prompts whose logit difficulty is -2.5 or +2.5 (written here in numpy), 4
    # generations (sd 0.8) x 3 runs.  The model's components average over the prompts' own
    # effects; integrating over the fitted normal instead (computed below from the same
    # draws) puts the truth outside both intervals: 0 of 7 sets covered the prompt and
    # judge-run components that way in our runs; BENCHMARKS has the weighted version.
    from scipy.special import expit

    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    p = expit(0.3 + np.array([-2.5, 2.5])[:, None] + 0.8 * x[None, :])
    m, second = p @ w, p**2 @ w
    truth = {"prompt": np.var(m), "judge run": np.mean(m - second)}
    rng = np.random.default_rng(11)
    a = rng.choice([-2.5, 2.5], 40)
    y = rng.random((40, 4, 3)) < expit(0.3 + a[:, None, None] + rng.normal(0, 0.8, (40, 4, 1)))
    i, g, _ = np.indices(y.shape)
    import pandas as pd

    frame = pd.DataFrame({"prompt": i.ravel(), "generation": g.ravel(), "judge": y.ravel() * 1})
    fit = jb.RepeatsStudy.from_frame(frame).fit("nuts", random_seed=1)  # its default sampler
    assert fit.diagnostics.passed, fit.diagnostics
    iv = fit.interval()
    for c, v in truth.items():
        assert iv.loc[c, "lower"] <= v <= iv.loc[c, "upper"], (c, v, iv.loc[c].to_dict())
    post = fit.idata.posterior
    mu, sp, sg = (
        post[n].values.reshape(-1, 1, 1) for n in ("mu", "sigma_prompt", "sigma_generation")
    )
    q = expit(mu + sp * x[None, :, None] + sg * x[None, None, :])
    mq, sq = q @ w, q**2 @ w
    normal_prompt = ((mq - (mq @ w)[:, None]) ** 2) @ w
    normal_judge = (mq - sq) @ w
    for c, d in (("prompt", normal_prompt), ("judge run", normal_judge)):
        lo, hi = np.quantile(d, [0.025, 0.975])
        assert not lo <= truth[c] <= hi, (c, lo, hi, truth[c])


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("repeats",)
