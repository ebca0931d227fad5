r"""The K-class judge: a confusion matrix with a Dirichlet prior on each row.

K-class judge (variant e)
-------------------------
.. math::
    C_{k\cdot} \sim \mathrm{Dirichlet}(\mathbf 1),\quad
    N^{cal}_{k\cdot} \sim \mathrm{Multinomial}(m_k, C_{k\cdot}),\quad
    \pi_s \sim \mathrm{Dirichlet}(\alpha),\quad
    y_{s\cdot} \sim \mathrm{Multinomial}(n_s, \pi_s^\top C)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.priors import AccuracyPriors
from judgebayes.models.simplex import dirichlet

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def multiclass_accuracy_model(
    confusion: np.ndarray,
    test: np.ndarray,
    *,
    classes: tuple[str, ...],
    systems: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    """K-class judge: Dirichlet confusion rows and class prevalences (variant e).

    Parameters
    ----------
    confusion : array of int, shape (K, K)
        Calibration counts, rows = true (human) class, columns = judged class.
    test : array of int, shape (n_systems, K)
        Judged-class counts on the test set.
    classes, systems : tuple of str
        Coordinates of the class dims and of ``system``.
    priors : AccuracyPriors
        ``prevalence`` is the symmetric Dirichlet concentration.

    Returns
    -------
    pm.Model
        ``prevalence`` (``system, true_class``), ``confusion_rates``
        (``true_class, judged_class``), ``judged_rate`` (``system, judged_class``).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    kk = len(classes)
    confusion = np.asarray(confusion, dtype=np.int64).reshape(kk, kk)
    test = np.asarray(test, dtype=np.int64).reshape(len(systems), kk)
    coords = {"system": list(systems), "true_class": list(classes), "judged_class": list(classes)}
    with pm.Model(coords=coords) as model:
        cal_d = pm.Data("confusion_counts", confusion, dims=("true_class", "judged_class"))
        test_d = pm.Data("test_counts", test, dims=("system", "judged_class"))
        rates = dirichlet(
            pm, "confusion_rates", np.ones((kk, kk)), dims=("true_class", "judged_class")
        )
        pm.Multinomial(
            "confusion_obs",
            n=cal_d.sum(axis=1),
            p=rates,
            observed=cal_d,
            dims=("true_class", "judged_class"),
        )
        prev = dirichlet(
            pm,
            "prevalence",
            np.full((len(systems), kk), priors.prevalence),
            dims=("system", "true_class"),
        )
        q = pm.Deterministic("judged_rate", pt.dot(prev, rates), dims=("system", "judged_class"))
        pm.Multinomial(
            "test_obs", n=test_d.sum(axis=1), p=q, observed=test_d, dims=("system", "judged_class")
        )
    return model
