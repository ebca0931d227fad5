"""What every estimator of the items design returns (judgebayes/inference/items/estimate.py):
its interval against statsmodels' Agresti-Coull and scipy's t quantiles, and an unknown
estimand named."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from judgebayes.errors import InputError
from judgebayes.inference.items.estimate import ItemEstimate, check_estimand


def test_a_proportion_gets_agresti_coulls_interval():
    k, n = np.array([0, 3, 20]), np.array([20, 10, 20])
    e = ItemEstimate(k / n, np.zeros(3), (np.zeros(3), np.ones(3)), {}, counts=(k, n))
    lo, hi = e.interval(0.05)
    ref_lo, ref_hi = proportion_confint(k, n, alpha=0.05, method="agresti_coull")
    np.testing.assert_allclose(lo, ref_lo, atol=1e-12)
    np.testing.assert_allclose(hi, ref_hi, atol=1e-12)


def test_degrees_of_freedom_give_a_t_interval_clipped_to_the_known_range():
    est, se = np.array([0.5, 0.05]), np.array([0.1, 0.1])
    e = ItemEstimate(est, se, (np.zeros(2), np.ones(2)), {}, df=np.array([4.0, 4.0]))
    lo, hi = e.interval(0.1)
    t = stats.t.ppf(0.95, 4)  # 2.1318
    np.testing.assert_allclose(lo, [0.5 - 0.1 * t, 0.0])  # the second clipped at 0
    np.testing.assert_allclose(hi, [0.5 + 0.1 * t, 0.05 + 0.1 * t])


def test_an_unknown_estimand_is_named():
    assert check_estimand("items") == "items"
    with pytest.raises(InputError, match="'population'") as e:
        check_estimand("population")
    assert (e.value.field, e.value.value) == ("estimand", "population")
