"""The convergence gate (judgebayes/inference/nuts/gate.py): every free variable, E-BFMI and
tree-depth saturation.

Synthetic InferenceData with known defects (independent of the samplers), so that each
criterion is shown to fail on what it is meant to catch and to pass otherwise.
"""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest

from judgebayes.errors import ConvergenceWarning
from judgebayes.inference.nuts import check_convergence, convergence_diagnostics


def _idata(rng, *, stuck_hyper=False, energy="iid", depth_share=0.0, chains=4, draws=1000):
    theta = rng.normal(size=(chains, draws, 3))
    sigma = rng.normal(size=(chains, draws))
    if stuck_hyper:
        # chains that never mix: each sits at its own level (R-hat >> 1.01)
        sigma = sigma * 0.1 + np.arange(chains)[:, None]
    if energy == "iid":
        e = rng.normal(size=(chains, draws))
    else:
        # a random walk in energy: E-BFMI = E[dE^2] / Var(E) is ~ 2 / draws << 0.3
        e = np.cumsum(rng.normal(size=(chains, draws)), axis=1)
    depth = rng.random((chains, draws)) < depth_share
    return az.from_dict(
        {
            "posterior": {"theta": theta, "sigma": sigma},
            "sample_stats": {
                "diverging": np.zeros((chains, draws), bool),
                "energy": e,
                "maxdepth_reached": depth,
            },
        }
    )


def test_gate_passes_clean_draws_and_checks_every_free_variable():
    rng = np.random.default_rng(0)
    clean = convergence_diagnostics(_idata(rng), ["theta", "sigma"])
    assert clean.passed and clean.bfmi_min > 0.3
    bad = _idata(rng, stuck_hyper=True)
    # the reported variable alone looks fine; the hyperparameter does not
    assert convergence_diagnostics(bad, ["theta"]).passed
    d = convergence_diagnostics(bad, ["theta", "sigma"])
    assert not d.passed and d.worst[0] == "sigma" and "sigma" in d.message()
    with pytest.warns(ConvergenceWarning, match="R-hat"):
        check_convergence(bad, ["theta", "sigma"])


def test_gate_fails_low_e_bfmi_and_tree_depth_saturation():
    rng = np.random.default_rng(1)
    d = convergence_diagnostics(_idata(rng, energy="walk"), ["theta"])
    assert d.bfmi_min < 0.3 and not d.passed and "E-BFMI" in d.message()
    d = convergence_diagnostics(_idata(rng, depth_share=0.05), ["theta"])
    assert d.max_depth_share == pytest.approx(0.05, abs=0.01)  # 4000 Bernoulli draws
    assert not d.passed and "tree depth" in d.message()
    # a rare saturated draw (0.2% < 1%) does not fail the gate
    assert convergence_diagnostics(_idata(rng, depth_share=0.002), ["theta"]).passed
