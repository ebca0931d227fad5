"""Comparing ranking fits (judgebayes/studies/ranking/compare.py): the posterior table
against numpy on each fit's draws, and LOO refused on Laplace draws or fits without a
log-likelihood, by name (LOO of a NUTS fit: tests/studies/ranking/test_base.py)."""

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.studies.ranking import PairwiseRanking, compare_loo, compare_posteriors
from tests.simulators import bt_sample


def _fits():
    _, a, b, y = bt_sample(5, 400, 1.0, np.random.default_rng(2))
    rk = PairwiseRanking.from_arrays(a, b, y, n_items=5)
    return {
        "naive": rk.fit("naive", random_seed=0, log_likelihood=True),
        "laplace": rk.fit("laplace", random_seed=0),
    }


def test_the_posterior_table_holds_each_fits_draws_summaries():
    fits = _fits()
    tab = compare_posteriors(fits, alpha=0.1).set_index(["parameter", "fit"])
    for name, fit in fits.items():
        th = fit.theta_draws()
        row = tab.loc[("theta[2]", name)]
        assert row["mean"] == pytest.approx(th[:, 2].mean())
        assert row["sd"] == pytest.approx(th[:, 2].std())
        assert (row["lower"], row["upper"]) == pytest.approx(np.quantile(th[:, 2], [0.05, 0.95]))
    assert set(tab.loc["b[position]"].index) == {"laplace"}  # naive BT has no bias terms


def test_loo_is_refused_on_laplace_draws_and_on_fits_without_a_log_likelihood():
    fits = _fits()
    with pytest.raises(InputError, match="Laplace draws") as e:
        compare_loo(fits)
    assert e.value.field == "fits"
    with pytest.raises(InputError, match="no log-likelihood") as e:
        compare_loo(fits, approximate=True)
    assert e.value.field == "log_likelihood" and e.value.value == ["laplace"]
