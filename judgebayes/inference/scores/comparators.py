"""Comparators of the augmented mean from the same frame: PPI, the labelled mean, the
judge's own mean.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.scores import ScoreData
from judgebayes.inference.scores.estimate import ScoreEstimate, sums


# --------------------------------------------------------------------- comparators
def ppi_means(data: ScoreData, lam: float | None = None) -> ScoreEstimate:
    """PPI (``lam=1``) or PPI++ (ppi_py's tuned lambda, clipped to [0, 1]) of the human
    label on the first judge's raw score, per system; normal intervals (as ppi_py's
    ``ppi_mean_ci``), process estimand.
    """
    ns = len(data.systems)
    est, se, lams = np.full(ns, np.nan), np.full(ns, np.nan), np.full(ns, np.nan)
    for s in range(ns):
        m = data.system == s
        lab = data.labelled[m]
        y, yh = data.human[m][lab], data.score[m, 0][lab]
        yu = data.score[m, 0][~lab]
        n, big_n = y.size, yu.size
        if n < 2 or big_n < 1:
            continue
        if lam is None:
            allh = np.concatenate([yh, yu])
            vh = allh.var(ddof=1)
            c = np.mean(y * yh) - y.mean() * yh.mean()
            lam_s = float(np.clip(c / ((1 + n / big_n) * vh), 0, 1)) if vh > 0 else 0.0
        else:
            lam_s = float(lam)
        est[s] = lam_s * yu.mean() + y.mean() - lam_s * yh.mean()
        se[s] = np.sqrt(lam_s**2 * yu.var() / big_n + (y - lam_s * yh).var() / n)
        lams[s] = lam_s
    lo, hi = data.human_scale
    return ScoreEstimate(est, se, np.full(ns, np.inf), (lo, hi), {"lam": lams})


def labels_only_means(data: ScoreData) -> ScoreEstimate:
    """The labelled rows' mean per system, t interval; process estimand."""
    ns = len(data.systems)
    lab = data.labelled
    sysc, h = data.system[lab], data.human[lab]
    n = np.bincount(sysc, minlength=ns).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = sums(sysc, h, ns) / n
        v = sums(sysc, (h - m[sysc]) ** 2, ns) / (n - 1)
        se = np.sqrt(v / n)
    return ScoreEstimate(m, np.where(n < 2, np.nan, se), n - 1, data.human_scale)


def naive_means(data: ScoreData) -> ScoreEstimate:
    """The judges' mean score mapped linearly from their scale to the human scale
    (uncorrected: biased unless the judge's scale is the humans'), t interval over rows.
    """
    ns = len(data.systems)
    lo, hi = data.score_scale[:, 0], data.score_scale[:, 1]
    hlo, hhi = data.human_scale
    mapped = (hlo + (data.score - lo) / (hi - lo) * (hhi - hlo)).mean(1)
    n = np.bincount(data.system, minlength=ns).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = sums(data.system, mapped, ns) / n
        v = sums(data.system, (mapped - m[data.system]) ** 2, ns) / (n - 1)
    return ScoreEstimate(m, np.sqrt(v / n), n - 1, data.human_scale)
