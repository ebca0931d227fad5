"""Where the next labels do most: the predicted standard error of a design and the
allocation of a label budget across the cells.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.inference.items.estimate import SMOOTH, check_estimand


# ---------------------------------------------------------------------- planning
def _cell_terms(c: dict, estimand: str, extra1=None, extra0=None):
    """Per-(system, stratum) variance terms of the estimand given labels per verdict.

    ``extra1`` / ``extra0`` add labels to judge-positive / judge-negative items.  The
    predictive values use (H + 1/2) / (L + 1) so that a cell with few labels does not
    claim zero variance.
    """
    l1 = c["L1"] + (0 if extra1 is None else extra1)
    l0 = c["L0"] + (0 if extra0 is None else extra0)
    a = (c["H1"] + SMOOTH) / (c["L1"] + 2 * SMOOTH)
    b = (c["H0"] + SMOOTH) / (c["L0"] + 2 * SMOOTH)
    n_c = (c["N1"] + c["N0"]).astype(float)
    n_s = n_c.sum(1, keepdims=True)
    va, vb = a * (1 - a), b * (1 - b)
    with np.errstate(invalid="ignore", divide="ignore"):
        if estimand == "process":
            p = np.where(n_c > 0, c["N1"] / n_c, 0.0)
            t1 = (n_c * p / n_s) ** 2 * va / l1
            t0 = (n_c * (1 - p) / n_s) ** 2 * vb / l0
            base = ((a - b) ** 2 * p * (1 - p) * n_c / n_s**2).sum(1)
        else:
            u1, u0 = c["N1"] - l1, c["N0"] - l0
            t1 = (u1**2 * va / l1 + u1 * va) / n_s**2
            t0 = (u0**2 * vb / l0 + u0 * vb) / n_s**2
            base = np.zeros(n_s.shape[0])
    t1 = np.where(c["N1"] > 0, np.where(l1 > 0, t1, np.inf), 0.0)
    t0 = np.where(c["N0"] > 0, np.where(l0 > 0, t0, np.inf), 0.0)
    return t1, t0, base


def allocate_labels(
    data: ItemData, k: int, estimand: str = "items", *, target_se: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Where the next labels reduce the estimand's variance most (greedy Neyman allocation).

    Labels are given one at a time to the (system, stratum, verdict) cell whose label
    lowers the sum over systems of the estimand's variance the most (the exact marginal
    reduction of the double-sampling variance at the current predictive values); within
    a cell any unlabelled item is as good as another.  With ``target_se`` it stops once
    every system's standard error is at or below it.

    Returns
    -------
    (extra1, extra0) : arrays of int, shape (n_systems, n_strata)
        Additional labels for the judge's positives and negatives.
    """
    check_estimand(estimand)
    c = data.cells()
    shape = c["N1"].shape
    e1, e0 = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
    cap1, cap0 = c["N1"] - c["L1"], c["N0"] - c["L0"]
    for _ in range(int(k)):
        t1, t0, base = _cell_terms(c, estimand, e1, e0)
        if target_se is not None:
            if np.all(np.sqrt(base + t1.sum(1) + t0.sum(1)) <= target_se):
                break
        n1, n0, _ = _cell_terms(c, estimand, e1 + 1, e0 + 1)
        gain1 = np.where(e1 < cap1, np.nan_to_num(t1 - n1, nan=0.0, posinf=1e9), -1.0)
        gain0 = np.where(e0 < cap0, np.nan_to_num(t0 - n0, nan=0.0, posinf=1e9), -1.0)
        if max(gain1.max(), gain0.max()) <= 0:
            break
        if gain1.max() >= gain0.max():
            e1[np.unravel_index(np.argmax(gain1), shape)] += 1
        else:
            e0[np.unravel_index(np.argmax(gain0), shape)] += 1
    return e1, e0


def predicted_se(data: ItemData, estimand: str = "items", extra1=None, extra0=None) -> np.ndarray:
    """Each system's standard error after adding ``extra1`` / ``extra0`` labels (planning)."""
    t1, t0, base = _cell_terms(data.cells(), check_estimand(estimand), extra1, extra0)
    return np.sqrt(base + t1.sum(1) + t0.sum(1))
