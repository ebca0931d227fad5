"""The dynamic items model: a random walk on the judge's logit rates over periods."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.parts import count_data, judged_and_labelled
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
        d = count_data(shape, cells, k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
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
        judged_and_labelled(d, p, th, q0 + 0 * th, q1 + 0 * th, cells)
    return model


def _walk(name: str, start: tuple[float, float], step: float, jump, shape_dims, dims):
    r"""A random walk on the logit scale over the last of ``dims`` (periods), non-centred:
    :math:`\eta_1 \sim N(\mu, s)`, :math:`\eta_t = \eta_{t-1} + \sigma z_t`,
    :math:`\sigma \sim \text{HalfNormal}(\text{step})`,
    :math:`z_t \sim (1 - w) N(0, 1) + w N(0, c^2)` with :math:`(w, c)` = ``jump``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    first = pm.Normal(f"{name}_start", start[0], start[1], dims=shape_dims)
    sigma = pm.HalfNormal(f"{name}_step", step)
    # heavy-ish tails from a two-normal mixture, summed out in the density: a Student t
    # drawn as normals over inverse-gamma variances left a latent scale per step whose
    # ridge with the step made rare divergences (7-10 of 100 fits missed the gate)
    w, c = jump
    z = pm.NormalMixture(
        f"{name}_z", w=np.array([1 - w, w]), mu=np.zeros(2), sigma=np.array([1.0, c]), dims=dims
    )
    moves = pt.concatenate([pt.zeros_like(z[..., :1]), pt.cumsum(z[..., 1:], axis=-1)], axis=-1)
    if shape_dims is None:
        return first + sigma * moves
    return first[..., None] + sigma * moves
