r"""Comparators from the same frame.

Comparators from the same frame
-------------------------------
``ppi`` and ``ppi_plus_plus`` follow ``ppi_py.ppi_mean_ci`` exactly (labelled items:
:math:`Y = h, \hat Y = v`; unlabelled: :math:`\hat Y = v`): :math:`\hat\lambda =
\widehat{\mathrm{Cov}}(Y, \hat Y) / ((1 + n/N)\,\widehat{\mathrm{Var}}(\hat Y))` with the
covariance over the labelled items (divisor :math:`n`) and the variance over labelled
and unlabelled items together (divisor :math:`n + N - 1`), clipped to [0, 1];
:math:`\mathrm{se}^2 = \lambda^2 s^2_{\hat Y,unlab}/N + s^2_{Y - \lambda\hat Y}/n`
(divisors :math:`N` and :math:`n`).  With strata, each stratum is estimated on its own
and combined with the shares :math:`\pi_{st}` (stratified PPI).  ``labels_only`` is the
labelled mean (Agresti-Coull; stratified: share-weighted Wald with a smoothed variance
floor), ``naive`` the judge's rate (Agresti-Coull), ``rogan_gladen`` the labelled items
used as a calibration set for the unlabelled ones (Lang-Reiczigel), which ignores what the
labels say about the rate.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import InputError
from judgebayes.inference.items.estimate import (
    ItemEstimate,
    cell_index,
    known_bounds,
    stratify,
)


def ppi_items(data: ItemData, *, lam: float | None = None) -> ItemEstimate:
    """PPI (``lam=1``) or PPI++ (``lam=None``: ppi_py's tuned and clipped lambda) per cell.

    Superpopulation estimand (the process rate); module docstring for the formulas.
    """
    if data.weights is not None:
        raise InputError(
            "the PPI comparators here assume simple random labelling within each stratum; "
            "with design weights use method='closed_form'",
            field="weights",
            value=data.columns.get("weights"),
        )
    cell, size = cell_index(data)
    lab = data.labelled
    v = data.judge
    h = np.where(lab, data.human, 0.0)

    def csum(x, mask):
        return np.bincount(cell[mask], weights=x[mask], minlength=size)

    n = csum(np.ones_like(v), lab)  # labelled (ppi_py's n)
    big_n = csum(np.ones_like(v), ~lab)  # unlabelled (ppi_py's N)
    with np.errstate(invalid="ignore", divide="ignore"):
        ey, eyh = csum(h, lab) / n, csum(v, lab) / n
        eyy = csum(h * v, lab) / n
        ehu = csum(v, ~lab) / big_n
        cov = eyy - ey * eyh  # divisor n (ppi_py's cov_grads / 2)
        tot = n + big_n
        p_all = (csum(v, lab) + csum(v, ~lab)) / tot
        var_all = p_all * (1 - p_all) * tot / (tot - 1)  # np.cov, divisor n + N - 1
        if lam is None:
            lam_c = np.where(var_all > 0, cov / ((1 + n / big_n) * var_all), 0.0)
            lam_c = np.clip(lam_c, 0.0, 1.0)
        else:
            lam_c = np.full(size, float(lam))
        est = lam_c * ehu + ey - lam_c * eyh
        var_y = ey * (1 - ey)
        var_r = var_y + lam_c**2 * eyh * (1 - eyh) - 2 * lam_c * cov
        se2 = lam_c**2 * ehu * (1 - ehu) / big_n + np.maximum(var_r, 0) / n
    out = stratify(data, est, se2, "process")
    ns, nt = len(data.systems), len(data.strata)
    return ItemEstimate(out.estimate, out.se, out.bounds, {"lam": lam_c.reshape(ns, nt)})


def labels_only_items(data: ItemData) -> ItemEstimate:
    """The labelled items' mean, process estimand.

    One stratum and no design weights: the proportion with the Agresti-Coull interval.
    Strata or weights: the share-weighted (Hajek) mean with a Wald interval whose per-stratum
    variance is floored at the smoothed rate's, (h + 1) / (l + 2), so that a stratum
    whose labels all agree does not report a zero-width interval.
    """
    cell, size = cell_index(data)
    lab = data.labelled
    w = np.ones(lab.sum()) if data.weights is None else data.weights[lab]
    n = np.bincount(cell[lab], weights=w, minlength=size)
    hw = np.bincount(cell[lab], weights=w * data.human[lab], minlength=size)
    if len(data.strata) == 1 and data.weights is None:
        with np.errstate(invalid="ignore", divide="ignore"):
            est = hw / n
        nan = n == 0
        return ItemEstimate(
            np.where(nan, np.nan, est),
            np.sqrt(est * (1 - est) / n),
            known_bounds(data, "process"),
            {},
            counts=(hw.astype(np.int64), n.astype(np.int64)),
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        m = hw / n
        # Hajek variance: sum w^2 (h - m)^2 / (sum w)^2, floored at the smoothed rate's
        r = data.human[lab] - m[cell[lab]]
        var = np.bincount(cell[lab], weights=(w * r) ** 2, minlength=size) / n**2
        w2 = np.bincount(cell[lab], weights=w**2, minlength=size)
        sm = (hw + w2 / n) / (n + 2 * w2 / n)
        var = np.maximum(var, sm * (1 - sm) * w2 / n**2)
    return stratify(data, m, var, "process")


def naive_items(data: ItemData) -> ItemEstimate:
    """The judge's positive rate over all items (biased unless the judge is perfect).

    Agresti-Coull interval (:meth:`ItemEstimate.interval`).
    """
    ns = len(data.systems)
    n = np.bincount(data.system, minlength=ns)
    k = np.bincount(data.system, weights=data.judge, minlength=ns)
    p = k / n
    return ItemEstimate(
        p, np.sqrt(p * (1 - p) / n), (np.zeros(ns), np.ones(ns)), {}, counts=(k.astype(np.int64), n)
    )
