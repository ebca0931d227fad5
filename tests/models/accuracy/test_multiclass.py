"""The K-class judge (judgebayes/models/accuracy/multiclass.py): its variables and dims,
and its log density at a fixed point against the module docstring's (scipy.stats).
"""

import numpy as np
import pytest
from scipy import stats

from judgebayes.models.accuracy import AccuracyPriors, multiclass_accuracy_model
from tests.models.logp import TOL, coords, dims, dirichlet_rows, evaluate

CONFUSION = np.array([[40, 5, 5], [4, 42, 4], [6, 6, 38]])
TEST = np.array([[120, 90, 90], [60, 100, 40]])


def _multinomial_rows(x, p):
    return float(sum(stats.multinomial.logpmf(r, r.sum(), q) for r, q in zip(x, p, strict=True)))


def test_the_confusion_rows_and_the_prevalences_are_dirichlet():
    model = multiclass_accuracy_model(
        CONFUSION,
        TEST,
        classes=("bad", "ok", "good"),
        systems=("A", "B"),
        priors=AccuracyPriors(prevalence=2.0),
    )
    classes = ["bad", "ok", "good"]
    assert coords(model) == {"system": ["A", "B"], "true_class": classes, "judged_class": classes}
    assert dims(model, "free_RVs") == {
        "confusion_rates": ("true_class", "judged_class"),
        "prevalence": ("system", "true_class"),
    }
    assert dims(model, "observed_RVs") == {
        "confusion_obs": ("true_class", "judged_class"),
        "test_obs": ("system", "judged_class"),
    }
    assert dims(model, "deterministics") == {"judged_rate": ("system", "judged_class")}

    rates = np.array([[0.8, 0.1, 0.1], [0.05, 0.9, 0.05], [0.2, 0.2, 0.6]])
    prev = np.array([[0.5, 0.3, 0.2], [0.25, 0.5, 0.25]])
    lp, det = evaluate(model, {"confusion_rates": rates, "prevalence": prev})
    # a system's judged classes: its true classes through the judge's confusion rows
    np.testing.assert_allclose(det["judged_rate"], prev @ rates, rtol=1e-14)
    assert lp == pytest.approx(
        {
            "confusion_rates": dirichlet_rows(rates, 1.0),
            "prevalence": dirichlet_rows(prev, 2.0),
            "confusion_obs": _multinomial_rows(CONFUSION, rates),
            "test_obs": _multinomial_rows(TEST, prev @ rates),
        },
        **TOL,
    )
