"""The conjugate posterior of the items design (judgebayes/inference/items/exact.py): its draws
against the stated prior's posterior by quadrature (tests/reference.py), and its coverage at
extreme rates.
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.data.items import items_from_frame
from tests.helpers import systems_frame
from tests.reference import items_posterior_grid


def test_exact_draws_match_the_posterior_of_the_stated_prior_by_quadrature():
    # the stated prior: Jeffreys on theta, q0, q1 uniform (as the Laplace and NUTS models);
    # reference by 3-d midpoint quadrature written in tests/reference.py
    f = systems_frame(seed=11, systems=("a",), n=1000, labelled=100)
    d = items_from_frame(f)
    c = {k: int(v.sum()) for k, v in d.cells().items()}
    draws = 20_000
    fit = jb.AccuracyStudy.from_items(f, estimand="process").fit("exact", draws=draws)
    x_ref, w_ref = items_posterior_grid(
        c["N1"], c["N0"], c["H1"], c["L1"], c["H0"], c["L0"], theta_prior=(0.5, 0.5)
    )
    mean = (x_ref * w_ref).sum()
    x = fit.draws().values[:, 0]
    # tolerance: 4 Monte-Carlo standard errors of the mean of the resampled draws (their
    # effective number is the smaller of the draws and the importance ESS) plus the
    # quadrature's error (120 nodes over a posterior sd of ~0.04: below 1e-4)
    n_eff = min(draws, fit.info["ess"][0])
    assert abs(x.mean() - mean) < 4 * x.std() / np.sqrt(n_eff) + 1e-4
    # and the quantiles: the gate reads tail probabilities
    cdf = np.cumsum(w_ref)
    for q in (0.025, 0.975):
        ref_q = x_ref[np.searchsorted(cdf, q)]
        assert abs(np.quantile(x, q) - ref_q) < 0.01, q
    items = fit.draws("theta_items").values[:, 0]
    assert items.min() >= np.nansum(f["human"]) / len(f)
    assert fit.info["estimand"] == "process"


@pytest.mark.parametrize("theta", [0.01, 0.99])
def test_exact_covers_at_extreme_rates_with_few_labels(theta):
    # 200 simulations of 1,000 items with 20 labels; MC sd of a 0.95 coverage 0.0154, so
    # 0.91 is 2.6 sd below nominal.  A uniform prior on the rate covered 0.86 / 0.90 here,
    # the conjugate prior before it 0.67 / 0.71 at 0.02 / 0.98.
    from judgebayes.inference import items as items_engine

    hits = []
    for r in range(200):
        sim = jb.simulate.simulate_items(1000, theta=theta, n_labelled=20, seed=r)
        dr = items_engine.exact_items_draws(
            items_from_frame(sim.frame), 2000, np.random.default_rng(r)
        )
        lo, hi = np.quantile(dr["theta"][:, 0], [0.025, 0.975])
        hits.append(lo <= sim.theta <= hi)
    assert np.mean(hits) >= 0.91
