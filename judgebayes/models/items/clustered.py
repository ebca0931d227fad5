"""The clustered items model: the judge's rates vary by cluster around a shared pair."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.parts import GH_NODES, count_data, judged_and_labelled
from judgebayes.models.accuracy.priors import AccuracyPriors, judge_rate_variables

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def clustered_items_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    cluster_system: np.ndarray,
    *,
    systems: tuple[str, ...],
    clusters: tuple[str, ...],
    judge_rates: str = "shared",
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""The items design with clustered items (several responses per prompt): hierarchical.

    .. math::
        \mathrm{logit}\,\theta_g = \mu_s + \sigma_s z_g,\quad z_g \sim N(0, 1),\quad
        \mu_s \sim N(m_\mu, s_\mu),\ \sigma_s \sim \mathrm{HalfNormal}(s_\sigma)

        k_g \sim \mathrm{Bin}(n_g,\ \theta_g q_{1,s} + (1-\theta_g)(1-q_{0,s})),\quad
        m_{1,g} \sim \mathrm{Bin}(m_{0,g} + m_{1,g}, \theta_g),\quad
        tp_g \sim \mathrm{Bin}(m_{1,g}, q_{1,s}),\ tn_g \sim \mathrm{Bin}(m_{0,g}, q_{0,s})

    for cluster :math:`g` of system :math:`s`; items are independent given their cluster's
    rate; the judge's rates are one pair for every system (``judge_rates= "shared"``, drop
    the index :math:`s` of :math:`q`) or the system's (``"per_system"``). The process rate
    is the population mean :math:`\theta_s = E_z[\mathrm{logit}^{-1}(\mu_s + \sigma_s z)]`
    (Gauss-Hermite, :data:`GH_NODES` nodes): the mean over prompts, which is the item-level
    rate when every prompt has the same number of responses.

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (n_clusters,)
        Unlabelled and labelled counts per cluster.
    cluster_system : array of int, shape (n_clusters,)
        Each cluster's system code.
    systems, clusters : tuple of str
        Coordinates.
    judge_rates : {"shared", "per_system"}
        One pair of judge rates, or one per system.
    priors : AccuracyPriors
        ``cluster_mu``, ``cluster_sigma``; Beta ``q0``, ``q1``.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_cluster`` (cluster), ``mu``, ``sigma``, ``q0``, ``q1``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    g = len(clusters)
    sidx = np.asarray(cluster_system, dtype=np.int64).reshape(g)
    x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    w = w / np.sqrt(2 * np.pi)
    with pm.Model(coords={"system": list(systems), "cluster": list(clusters)}) as model:
        d = count_data(g, "cluster", k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
        mu = pm.Normal("mu", *priors.cluster_mu, dims="system")
        sigma = pm.HalfNormal("sigma", priors.cluster_sigma, dims="system")
        z = pm.Normal("z", 0.0, 1.0, dims="cluster")
        th = pm.Deterministic(
            "theta_cluster", pm.math.invlogit(mu[sidx] + sigma[sidx] * z), dims="cluster"
        )
        if judge_rates == "per_system":
            q0, q1 = judge_rate_variables(priors, False, dims="system")
            q0g, q1g = q0[sidx], q1[sidx]
        else:
            q0g, q1g = judge_rate_variables(priors, False)
        p = th * q1g + (1 - th) * (1 - q0g)
        grid = pm.math.invlogit(mu[:, None] + sigma[:, None] * pt.as_tensor(x)[None, :])
        pm.Deterministic("theta", (grid * w[None, :]).sum(axis=1), dims="system")
        judged_and_labelled(d, p, th, q0g, q1g, "cluster")
    return model
