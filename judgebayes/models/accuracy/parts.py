"""Pieces the accuracy builders share with the items and repeats builders: the observed
counts, the judged and labelled likelihood terms and the Gauss-Hermite rule of a normal
effect.
"""

from __future__ import annotations

import numpy as np

COUNTS = ("k", "n", "tp", "m1", "tn", "m0")

#: Gauss-Hermite nodes of a logit-normal effect's mean over its population (clusters,
#: judges, prompts): error < 1e-8 for logit-normal means with sigma <= 1.5, 1.3e-7 at 2,
#: 2e-5 at 3 (the logistic's poles limit the rule as sigma grows)
GH_NODES = 32


def count_data(shape, dims, **counts):
    """``pm.Data`` of the judged and labelled counts (:data:`COUNTS`), int64 of ``shape``."""
    import pymc as pm

    return {
        nm: pm.Data(nm, np.asarray(counts[nm], dtype=np.int64).reshape(shape), dims=dims)
        for nm in COUNTS
    }


def judged_and_labelled(d, p, th, q0, q1, dims) -> None:
    """The items design's likelihood
    (:func:`~judgebayes.models.items.items_accuracy_model`): judged positives of the
    unlabelled items, the labelled items' classes and their confusion counts.
    """
    import pymc as pm

    pm.Binomial("k_obs", n=d["n"], p=p, observed=d["k"], dims=dims)
    if th is not None:
        pm.Binomial("m1_obs", n=d["m0"] + d["m1"], p=th, observed=d["m1"], dims=dims)
    pm.Binomial("tp_obs", n=d["m1"], p=q1, observed=d["tp"], dims=dims)
    pm.Binomial("tn_obs", n=d["m0"], p=q0, observed=d["tn"], dims=dims)
