"""The dynamic items model: a random walk on the judge's logit rates over periods."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.parts import _count_data, _judged_and_labelled, _walk
from judgebayes.models.accuracy.priors import AccuracyPriors

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def items_dynamic_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    share: np.ndarray,
    *,
    systems: tuple[str, ...],
    strata: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""The items design over time: the judge's rates and each system's rate walk from one
    period to the next.

    Periods :math:`t = 1..T` (the ``stratum`` coordinate), the counts of
    :func:`items_accuracy_model` per (system, period), and

    .. math::
        \operatorname{logit} q_{1,t} = a_1 + \sigma_1 \textstyle\sum_{u=2}^{t} z_{1,u},\quad
        \operatorname{logit} q_{0,t} = a_0 + \sigma_0 \textstyle\sum_{u=2}^{t} z_{0,u},

        \operatorname{logit} \theta_{st} = b_s + \sigma_\theta
        \textstyle\sum_{u=2}^{t} z_{s,u},\qquad
        z \sim (1 - w) N(0, 1) + w N(0, c^2),\
        \sigma \sim \text{HalfNormal}(\text{walk\_step}),

    :math:`(w, c)` = ``walk_jump`` (heavy-tailed steps: a period may jump without dragging
    its neighbours), :math:`a \sim N(\text{strata\_mu})`,
    :math:`b_s \sim N(\text{cluster\_mu})`; one judge
    for every system (its rates shared across systems within a period), the likelihood
    of :func:`items_accuracy_model` in each (system, period) cell, and
    :math:`\theta_s = \sum_t \pi_{st} \theta_{st}` the rate over all periods.  A period
    with few labels borrows from its neighbours as much as the learnt step allows; a
    judge that does not move has :math:`\sigma \to 0` and one set of rates.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_stratum`` (system, period), ``q0``, ``q1`` (period),
        and the walks' ``*_start``, ``*_step``, ``*_z``.
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    shape = (len(systems), len(strata))
    cells = ("system", "stratum")
    coords = {"system": list(systems), "stratum": list(strata)}
    with pm.Model(coords=coords) as model:
        d = _count_data(shape, cells, k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
        w = pm.Data("share", np.asarray(share, dtype=float).reshape(shape), dims=cells)
        w_ = (priors.walk_step, priors.walk_jump)
        eta = _walk("rate", priors.cluster_mu, *w_, "system", cells)
        th = pm.Deterministic("theta_stratum", pm.math.sigmoid(eta), dims=cells)
        e1 = _walk("q1", priors.strata_mu, *w_, None, "stratum")
        e0 = _walk("q0", priors.strata_mu, *w_, None, "stratum")
        q1 = pm.Deterministic("q1", pm.math.sigmoid(e1), dims="stratum")
        q0 = pm.Deterministic("q0", pm.math.sigmoid(e0), dims="stratum")
        q0, q1 = q0[None, :], q1[None, :]
        p = th * q1 + (1 - th) * (1 - q0)
        pm.Deterministic("theta", (w * th).sum(axis=1), dims="system")
        _judged_and_labelled(d, p, th, q0 + 0 * th, q1 + 0 * th, cells)
    return model
