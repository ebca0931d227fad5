"""The augmented mean when the labels were not a simple random sample of a system's rows:
drawn with known probabilities (``label_prob=``), or at unknown rates within the
``labelled_by=`` strata.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.inference.scores.estimate import ScoreEstimate, fold_jackknife, sums

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.data.scores import ScoreData
    from judgebayes.inference.scores.calibration import Calibration

__all__ = ["weighted_means"]


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
        if estimand == "process":
            h_w = sums(sysc, w * np.nan_to_num(h), ns) / sums(sysc, w, ns)
            v_h = sums(sysc, w * np.where(lab, h - h_w[sysc], 0.0) ** 2, ns) / sums(sysc, w, ns)
            var = var + v_h / n_all
    var = var + fold_jackknife(data, cal, n_all, n_lab)
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
    }
    return ScoreEstimate(np.clip(est, lo, hi), se, dof, (lo, hi), info)


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
