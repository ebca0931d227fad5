r"""The augmented mean when the labels were not a simple random sample of a system's rows:
drawn with known probabilities (``label_prob=``), or at unknown rates within the
``labelled_by=`` strata; with known probabilities, clustered and paired too.

Clusters and items
------------------
With :math:`w_i = 1/\pi_i` on the labelled rows (0 on the others) and
:math:`d_i = e_i - \bar e_w` their residuals' deviations, the estimate moves with each row
by its influence

.. math::

    \phi_i = \big(\hat f(s_i) - \bar f\big) + w_i d_i,

whose sum over a system's rows is 0.  A *unit* (a cluster of ``cluster=``; an item of
``item=``, across two systems) may have had its rows drawn for labels one by one, as
``label_prob=`` says, or all together (a prompt labelled for every response).  Which, the
labels show: a unit drawn whole is labelled on all its rows or on none.

* ``process`` with ``cluster=``: the variance of :math:`\phi` on the :math:`G` clusters'
  totals, :math:`\frac{G}{G-1} \sum_g (\sum_{i \in g} \phi_i)^2 / N^2` (never below the
  rows' variance); valid however a cluster's rows were drawn; t with
  :math:`\min(n, G_{\text{lab}}) - 1` degrees of freedom (:math:`G_{\text{lab}}` the
  clusters with a label: the residuals' share of the totals comes from them alone).  The
  same on the items for the ``process`` contrast of two systems that answered the same
  :math:`N` items, with :math:`\phi_j = \phi_{aj} - \phi_{bj}`.
* ``items`` (the rows' mean, only the labelling random): rows drawn one by one keep the
  Poisson variance whatever the clusters, and two systems' draws are independent, so
  their contrast's variances add.  Units drawn whole give, with :math:`t_u =
  \sum_{i \in u} \pm w_i d_i` (the sign of each system in a contrast) and :math:`D_u =
  \sum_{i \in u} \pm d_i`,

  .. math::

      \Big[\sum_u t_u^2 - \sum_{u\ \text{labelled}} \max_{i \in u} w_i\, D_u^2\Big]
      \Big/ N^2,

  times :math:`m/(m-1)` for the :math:`m` labelled units the residuals' mean is estimated
  from (t with :math:`m - 1` degrees of freedom): the Horvitz-Thompson variance over
  units.  :math:`\sum_u t_u^2` is that variance plus :math:`\sum_u D_u^2` (over every
  unit), and the second sum takes that out, exactly when a unit's rows share one
  probability (its expectation is at most :math:`\sum_u D_u^2` whatever the joint
  probability of a unit's rows, which ``label_prob=`` does not give).

Each system's calibration jackknife is added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.inference.scores.estimate import ScoreEstimate, fold_jackknife, sums

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.data.scores import ScoreData
    from judgebayes.inference.scores.calibration import Calibration

__all__ = ["paired_variance", "weighted_means"]


def weighted_means(data: ScoreData, cal: Calibration, estimand: str) -> ScoreEstimate:
    r"""The augmented mean when each labelled row was drawn with a known probability
    :math:`\pi_i` (``label_prob=``): the calibrated scores of every row plus the residuals'
    Hajek mean with weights :math:`w_i = 1/\pi_i`,

    .. math::

        \hat\mu = \frac1N \sum_{\text{all}} \hat f(s_j) + \bar e_w, \qquad
        \bar e_w = \frac{\sum_{\text{lab}} w_i e_i}{\sum_{\text{lab}} w_i},

    unbiased for the system's mean whatever the calibration, when the probabilities are
    right.  Variance (Poisson sampling): :math:`\sum_{\text{lab}} w_i (w_i - 1)
    (e_i - \bar e_w)^2 / N^2` for the rows' mean, plus the labels' variance over
    :math:`N` for the process; t with :math:`n - 1` degrees of freedom.

    With ``labelled_by=`` strata (:math:`w_i = N_s / n_s`, labels random within a
    stratum) the estimate is the stratified one, :math:`\sum_s (N_s/N)\,\bar e_s`, and
    the deviations are taken from each stratum's own mean (with :math:`n_s - 1` in the
    divisor; a stratum of one label keeps the system's deviation): the stratified
    variance :math:`\sum_s (N_s/N)^2 (1 - n_s/N_s)\, s_s^2 / n_s`, on Satterthwaite's
    degrees of freedom.  A numeric ``labelled_by`` column :math:`x` also
    enters the prediction, :math:`\hat f(s) + b\,(x - \bar x_{\text{system}})`, with
    :math:`b` the weighted least-squares slope of the residuals on it within systems: the
    rows' mean of the prediction is unchanged, and the residuals no longer follow
    :math:`x` inside a stratum, where the labelling rate still varies with it.
    """
    assert data.weights is not None  # the caller's condition
    ns = len(data.systems)
    sysc, lab, h, pred = data.system, data.labelled, data.human, cal.pred
    w = np.where(lab, np.nan_to_num(data.weights), 0.0)
    n_all = np.bincount(sysc, minlength=ns).astype(float)
    n_lab = np.bincount(sysc[lab], minlength=ns).astype(float)
    e = np.where(lab, h - pred, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        adjust = _covariate_adjustment(data.label_covariates, sysc, lab, w, e, n_all, ns)
        e = np.where(lab, e - adjust, 0.0)
        e_bar = sums(sysc, w * e, ns) / sums(sysc, w, ns)
        dev = np.where(lab, e - e_bar[sysc], 0.0)
        dof = n_lab - 1
        if data.label_strata is not None:
            dev, dof = _stratum_deviations(data.label_strata, sysc, lab, e, dev, w, ns)
            dof = np.maximum(dof - _n_slopes(data.label_covariates), 1.0)
        var = sums(sysc, w * (w - 1) * dev**2, ns) / n_all**2
        imputed = np.where(lab, h, pred + adjust + e_bar[sysc])
        est = sums(sysc, pred, ns) / n_all + e_bar
        # each row's influence (module docstring): its centred prediction, and a labelled
        # row's weighted deviation
        centred = pred + adjust - (sums(sysc, pred + adjust, ns) / n_all)[sysc]
        if estimand == "process":
            h_w = sums(sysc, w * np.nan_to_num(h), ns) / sums(sysc, w, ns)
            v_h = sums(sysc, w * np.where(lab, h - h_w[sysc], 0.0) ** 2, ns) / sums(sysc, w, ns)
            var = var + v_h / n_all
            if data.cluster is not None:
                v_g, n_g = _cluster_variance(centred + w * dev, sysc, data.cluster, ns)
                var = np.maximum(var, v_g / n_all**2)
                # the residuals' share of the totals comes from the labelled clusters only
                n_gl = _labelled_units(lab, _unit_key(sysc, data.cluster), sysc, ns)
                dof = np.minimum(dof, np.minimum(n_g, n_gl) - 1)
        elif data.cluster is not None and _drawn_whole(lab, _unit_key(sysc, data.cluster)):
            v_u, n_u = _whole_units_variance(w, dev, _unit_key(sysc, data.cluster), sysc, ns)
            var, dof = v_u / n_all**2, np.minimum(dof, n_u - 1)
    jack = fold_jackknife(data, cal, n_all, n_lab)
    var = var + jack
    lo, hi = data.human_scale
    se = np.where(n_lab < 2, np.nan, np.sqrt(np.maximum(var, 0)))
    info = {
        "residual_mean": e_bar,
        "imputed": imputed,
        "residual": dev,
        "n_labelled": n_lab,
        "n_items": n_all,
        "labels_agree": np.zeros(ns, dtype=bool),
        "weighted": True,
        "weight": w,
        "centred": centred,
        "jackknife": jack,
    }
    return ScoreEstimate(np.clip(est, lo, hi), se, dof, (lo, hi), info)


def paired_variance(est: ScoreEstimate, a: int, b: int, ra, rb, estimand: str) -> float:
    """The variance of system ``a``'s weighted mean minus ``b``'s (module docstring) from
    their rows ``ra`` and ``rb`` of the same items in the same order; ``est`` is
    :func:`weighted_means`'.
    """
    info = est.info
    w, d = info["weight"], info["residual"]
    big_n = len(ra)
    jack = float(info["jackknife"][a] + info["jackknife"][b])
    z = w[ra] * d[ra] - w[rb] * d[rb]
    if estimand == "process":
        phi = z + info["centred"][ra] - info["centred"][rb]
        return big_n / (big_n - 1) * float(np.sum((phi - phi.mean()) ** 2)) / big_n**2 + jack
    both = (w[ra] > 0) & (w[rb] > 0)
    if not np.array_equal(w[ra] > 0, w[rb] > 0):  # drawn apart: independent draws
        return float(est.se[a] ** 2 + est.se[b] ** 2)
    whole = np.maximum(w[ra], w[rb]) * (d[ra] - d[rb]) ** 2
    m = both.sum()
    return m / (m - 1) * float(np.sum(z**2) - np.sum(whole[both])) / big_n**2 + jack


#: units count as drawn whole when this share of the labelled rows sits in units labelled
#: on at least :data:`WHOLE_SHARE` of their rows (a label lost here and there, not a design
#: of rows drawn one by one)
WHOLE_ROWS = 0.9
WHOLE_SHARE = 0.8


def _drawn_whole(lab, key) -> bool:
    """Were the units of ``key``, not the rows, drawn: nearly every labelled row in a unit
    labelled on nearly all its rows (:data:`WHOLE_ROWS`, :data:`WHOLE_SHARE`), one unit
    labelled on two rows at least?
    """
    _, inv, size = np.unique(key, return_inverse=True, return_counts=True)
    n_lab = np.bincount(inv, weights=lab.astype(float))
    whole = n_lab >= WHOLE_SHARE * size
    in_whole = n_lab[whole].sum() / max(n_lab.sum(), 1.0)
    return bool(in_whole >= WHOLE_ROWS and np.any(n_lab >= 2))


def _whole_units_variance(w, dev, key, sysc, ns: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Per system, :math:`\frac{m}{m-1} \sum_u (t_u^2 - \max_u w\, D_u^2)` over its
    units (the module docstring's ``items`` variance for units drawn whole, :math:`m/(m-1)`
    for the residuals' weighted mean estimated from its :math:`m` labelled units), and
    :math:`m`.
    """
    gk, ginv = np.unique(key, return_inverse=True)
    g_sys = np.zeros(gk.size, np.int64)
    g_sys[ginv] = sysc
    t = np.bincount(ginv, weights=w * dev, minlength=gk.size)
    big_d = np.bincount(ginv, weights=np.where(w > 0, dev, 0.0), minlength=gk.size)
    w_max = np.zeros(gk.size)
    np.maximum.at(w_max, ginv, w)
    n_u = np.bincount(g_sys[w_max > 0], minlength=ns).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return n_u / (n_u - 1) * sums(g_sys, t**2 - w_max * big_d**2, ns), n_u


def _labelled_units(lab, key, sysc, ns: int) -> np.ndarray:
    """Per system, its units (codes ``key``) with a labelled row."""
    gk, ginv = np.unique(key[lab], return_inverse=True)
    g_sys = np.zeros(gk.size, np.int64)
    g_sys[ginv] = sysc[lab]
    return np.bincount(g_sys, minlength=ns).astype(float)


def _unit_key(sysc, cluster) -> np.ndarray:
    """Each row's (system, cluster) as one code."""
    return sysc * (int(cluster.max()) + 1) + cluster


def _cluster_variance(phi, sysc, cluster, ns: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Per system, :math:`\frac{G}{G-1} \sum_g t_g^2` over its clusters' totals
    :math:`t_g` of ``phi`` (their mean is 0 by construction), and :math:`G`.
    """
    key = _unit_key(sysc, cluster)
    gk, ginv = np.unique(key, return_inverse=True)
    tot = np.bincount(ginv, weights=phi, minlength=gk.size)
    g_sys = gk // (int(cluster.max()) + 1)
    n_g = np.bincount(g_sys, minlength=ns).astype(float)
    return n_g / (n_g - 1) * sums(g_sys, tot**2, ns), n_g


def _stratum_deviations(strata, sysc, lab, e, dev, w, ns: int):
    r"""Residual deviations from each stratum's labelled mean, scaled by
    :math:`\sqrt{n_s / (n_s - 1)}` (strata of one label keep ``dev``), and Satterthwaite's
    degrees of freedom per system, :math:`(\sum_s v_s)^2 / \sum_s v_s^2 / (n_s - 1)` with
    :math:`v_s` a stratum's share of the variance: few labels in a heavily weighted
    stratum make the variance estimate noisy, and the t quantile says so.
    """
    k = int(strata.max()) + 1
    n_s = np.bincount(strata[lab], minlength=k).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        m_s = np.bincount(strata[lab], weights=e[lab], minlength=k) / n_s
        scale = np.sqrt(n_s / (n_s - 1))
    within = np.where(lab, (e - np.nan_to_num(m_s[strata])) * np.nan_to_num(scale[strata]), 0.0)
    out = np.where(n_s[strata] >= 2, within, dev)
    v_s = np.bincount(strata, weights=w * (w - 1) * out**2, minlength=k)
    sys_of = np.zeros(k, dtype=np.int64)
    sys_of[strata] = sysc
    with np.errstate(invalid="ignore", divide="ignore"):
        dof = sums(sys_of, v_s, ns) ** 2 / sums(sys_of, v_s**2 / np.maximum(n_s - 1, 1), ns)
    return out, np.where(np.isfinite(dof), np.maximum(dof, 1.0), 1.0)


def _n_slopes(x) -> int:
    return 0 if x is None else int(x.shape[1])


def _covariate_adjustment(x, sysc, lab, w, e, n_all, ns: int) -> np.ndarray:
    r"""Each row's :math:`b (x - \bar x_{\text{system}})` (0 without covariates): the
    system-centred covariates times the weighted least-squares slopes of the labelled
    residuals on them, with an intercept per system.
    """
    if x is None:
        return np.zeros(len(sysc))
    xc = x - np.stack([sums(sysc, c, ns) / n_all for c in x.T], 1)[sysc]
    wsum = np.maximum(sums(sysc, w, ns), 1e-300)
    xw = xc - np.stack([sums(sysc, w * c, ns) / wsum for c in xc.T], 1)[sysc]
    ew = e - (sums(sysc, w * e, ns) / wsum)[sysc]
    r = np.sqrt(w[lab])[:, None]
    b = np.linalg.lstsq(r * xw[lab], r[:, 0] * ew[lab], rcond=None)[0]
    return xc @ b
