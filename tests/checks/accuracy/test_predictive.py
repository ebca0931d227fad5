"""The ``ppc`` check (judgebayes/checks/accuracy/predictive.py), on fits built from known draws.

No sampling: the fit's draws of the judged rate ``p`` are the exact conjugate posterior
of the judged counts (Beta(1 + k, 1 + n - k)), or a posterior moved away from them, so
what the check should say is known before it runs.
"""

import numpy as np
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes.results.trees import tree
from judgebayes.studies.accuracy.fit import AccuracyFit

K, N = np.array([620, 300, 45]), np.array([1000, 500, 80])
SYSTEMS = ["a", "b", "c"]


def _study():
    return jb.AccuracyStudy.from_counts(k=K, n=N, tn=70, m0=100, tp=90, m1=100, systems=SYSTEMS)


def _fit(p_draws: np.ndarray) -> AccuracyFit:
    """A NUTS-like fit whose posterior holds ``p_draws`` (draws, systems) in 4 chains."""
    p = p_draws.reshape(4, -1, p_draws.shape[-1])
    theta = np.clip((p - 0.3) / 0.6, 0, 1)  # any theta: the check reads p only
    idata = tree(
        {"posterior": {"p": p, "theta": theta}},
        coords={"system": SYSTEMS},
        dims={"p": ["system"], "theta": ["system"]},
    )
    return AccuracyFit(method="nuts", idata=idata)


def _conjugate(rng, draws=4000, shift=0.0):
    return np.clip(
        stats.beta(1 + K, 1 + N - K).rvs((draws, K.size), random_state=rng) + shift, 0, 1
    )


def test_the_conjugate_posterior_reproduces_the_counts():
    fit = _fit(_conjugate(np.random.default_rng(0)))
    table = _study().check(fit)["ppc"].table.set_index("unit")
    assert list(table.index) == SYSTEMS
    assert (table["observed"].to_numpy() == K).all()
    # the predictive mean of a Beta-binomial is n (1 + k) / (2 + n): within 4 Monte-Carlo
    # standard errors (sd of the predictive / sqrt(4000 draws))
    exact = N * (1 + K) / (2 + N)
    mean = (1 + K) / (2 + N)
    sd = np.sqrt(N * mean * (1 - mean) * (2 + 2 * N) / (3 + N))  # Beta-binomial(N, 1+K, 1+N-K)
    assert np.abs(table["expected"].to_numpy() - exact).max() < (4 * sd / np.sqrt(4000)).max()
    # the observed count sits at the middle of its own posterior predictive
    assert (table["p_raw"] > 0.5).all() and not table["flagged"].any()


def test_a_posterior_off_the_counts_is_flagged():
    # p moved by 0.1 on every system: 10 predictive sd away for n = 1000
    fit = _fit(_conjugate(np.random.default_rng(1), shift=0.1))
    report = _study().check(fit)
    table = report["ppc"].table.set_index("unit")
    assert table.loc["a", "flagged"] and table.loc["a", "p_value"] < 1e-3
    assert not report.passed


def test_the_check_needs_the_judged_rate():
    # a point fit has no draws: the ppc is not among the checks run on it
    fit = _study().fit("closed_form")
    assert "ppc" not in {r.check for r in _study().check(fit)}
    # a fit with draws but without p (e.g. the exact posterior of theta alone) is not accepted
    idata = tree(
        {"posterior": {"theta": np.full((1, 10, 3), 0.5)}},
        coords={"system": SYSTEMS},
        dims={"theta": ["system"]},
    )
    assert "ppc" not in {r.check for r in _study().check(AccuracyFit("exact", idata))}


@pytest.mark.parametrize("shift, flagged", [(0.0, False), (0.15, True)])
def test_the_strata_model_replicates_its_summed_strata(shift, flagged):
    """Two strata per system: the check sums each system's replicated strata."""
    rng = np.random.default_rng(2)
    n_s = np.array([[300, 200], [250, 250]])
    theta_s = np.array([[0.8, 0.4], [0.6, 0.5]])
    q0, q1 = np.array([0.85, 0.75]), np.array([0.9, 0.8])
    k_s = rng.binomial(n_s, theta_s * q1 + (1 - theta_s) * (1 - q0))
    frame_test, frame_cal = _strata_frames(rng, n_s, k_s, q0, q1)
    study = jb.AccuracyStudy.from_frames(frame_test, frame_cal, system="system", stratum="stratum")
    assert type(study).__name__ == "StrataAccuracy"
    draws = 2000
    # the true stratum rates with a little spread: replicates from the truth
    th = np.clip(theta_s[None] + rng.normal(0, 0.01, (draws, 2, 2)) + shift, 0, 1)
    idata = tree(
        {
            "posterior": {
                "theta_stratum": th.reshape(4, -1, 2, 2),
                "q0": np.broadcast_to(q0, (4, draws // 4, 2)),
                "q1": np.broadcast_to(q1, (4, draws // 4, 2)),
            }
        },
        coords={"system": ["s0", "s1"], "stratum": ["x", "y"]},
        dims={"theta_stratum": ["system", "stratum"], "q0": ["stratum"], "q1": ["stratum"]},
    )
    table = study.check(AccuracyFit("nuts", idata))["ppc"].table
    assert (table["observed"].to_numpy() == k_s.sum(1)).all()
    assert table["flagged"].any() == flagged, table


def _strata_frames(rng, n_s, k_s, q0, q1):
    import pandas as pd

    rows = []
    for s in range(2):
        for t, name in enumerate(("x", "y")):
            verdicts = np.r_[np.ones(k_s[s, t]), np.zeros(n_s[s, t] - k_s[s, t])]
            rows += [(f"s{s}", name, v) for v in verdicts]
    test = pd.DataFrame(rows, columns=["system", "stratum", "judge"])
    cal = []
    for t, name in enumerate(("x", "y")):
        h = rng.random(200) < 0.5
        right = np.where(h, rng.random(200) < q1[t], rng.random(200) < q0[t])
        cal.append(pd.DataFrame({"stratum": name, "human": h, "judge": np.where(right, h, ~h)}))
    cal_df = pd.concat(cal).assign(system="s0")
    return test.assign(judge=test["judge"].astype(bool)), cal_df
