"""The items model: one verdict per item, the human label on a few."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.parts import count_data, judged_and_labelled
from judgebayes.models.accuracy.priors import AccuracyPriors, judge_rate_variables
from judgebayes.models.items.priors import check_judge_rates, pooled_judge_rates

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def items_accuracy_model(
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
    judge_rates: str = "shared",
    priors: AccuracyPriors | None = None,
    better_than_chance: bool = False,
) -> pm.Model:
    r"""Every item judged, a subset labelled by humans (the items design).

    Per system :math:`s` and stratum :math:`t`, with the unlabelled items' counts
    :math:`k_{st}` of :math:`n_{st}` judged positive and the labelled items' confusion
    counts:

    .. math::
        \theta_{st} \sim \mathrm{Beta}(a_\theta, b_\theta),\quad
        q_{0,g}, q_{1,g} \sim \mathrm{Beta}

        k_{st} \sim \mathrm{Bin}(n_{st},\ \theta_{st} q_{1,g} + (1-\theta_{st})(1-q_{0,g})),
        \quad m_{1,st} \sim \mathrm{Bin}(m_{0,st} + m_{1,st},\ \theta_{st}),

        tp_{st} \sim \mathrm{Bin}(m_{1,st}, q_{1,g}),\quad
        tn_{st} \sim \mathrm{Bin}(m_{0,st}, q_{0,g}),\qquad
        \theta_s = \textstyle\sum_t \pi_{st}\theta_{st}

    with :math:`g = (s, t)` (``judge_rates="per_system"``: nothing assumed across
    systems), :math:`g = t` (``"shared"``: one judge, the same rates on every system's
    items, an assumption that borrows strength and fails when the judge errs differently
    on one system's answers, as a judge that prefers its own family's does), or
    :math:`g = (s, t)` partially pooled (``"pooled"``: each system's logit rates spread
    around the judge's typical ones with a learnt scale, :func:`pooled_judge_rates`;
    the data decide how much is shared).  This is the likelihood of the labelled
    items' :math:`(h, v)` pairs times the unlabelled items' verdicts, which is the full
    likelihood for any design whose labelling probability depends only on the verdict
    and the stratum (simple random, stratified by verdict, stratified by a covariate):
    the design's own factor carries no parameter.  The labels identify
    :math:`\theta` directly, so the mirror of the calibration-only model is not a
    symmetry here and no better-than-chance restriction is needed (default off).

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (n_systems, n_strata)
        Unlabelled and labelled counts per cell.
    share : array of float, shape (n_systems, n_strata)
        Stratum shares :math:`\pi_{st}` of each system's items (rows sum to 1).
    systems, strata : tuple of str
        Coordinates.
    judge_rates : {"per_system", "shared", "pooled"}
        Judge rates per (system, stratum), per stratum, or per (system, stratum) pooled.
    priors : AccuracyPriors
        Beta priors of theta, q0, q1 (default uniform).
    better_than_chance : bool
        Restrict the judge's rates to q0 + q1 > 1 (default off: nothing to exclude).

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_stratum`` (system, stratum), ``q0``, ``q1``.
    """
    import pymc as pm

    check_judge_rates(judge_rates)
    priors = priors or AccuracyPriors()
    shape = (len(systems), len(strata))
    cells = ("system", "stratum")
    coords = {"system": list(systems), "stratum": list(strata)}
    with pm.Model(coords=coords) as model:
        d = count_data(shape, cells, k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
        w = pm.Data("share", np.asarray(share, dtype=float).reshape(shape), dims=cells)
        th = pm.Beta("theta_stratum", *priors.theta, dims=cells)
        if judge_rates == "shared":
            q0, q1 = judge_rate_variables(priors, better_than_chance, dims="stratum")
            q0, q1 = q0[None, :], q1[None, :]
        elif judge_rates == "pooled":
            q0, q1 = pooled_judge_rates(priors, cells)
        else:
            q0, q1 = judge_rate_variables(priors, better_than_chance, dims=cells)
        p = th * q1 + (1 - th) * (1 - q0)
        pm.Deterministic("theta", (w * th).sum(axis=1), dims="system")
        judged_and_labelled(d, p, th, q0 + 0 * th, q1 + 0 * th, cells)
    return model
