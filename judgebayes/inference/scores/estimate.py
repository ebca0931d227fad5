"""What a closed form of the scores design returns (:class:`ScoreEstimate`), and the
sums and the calibration's jackknife variance that its estimators share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.data.scores import ScoreData
    from judgebayes.inference.scores.calibration import Calibration

__all__ = ["ScoreEstimate", "fold_jackknife", "sums"]


@dataclass
class ScoreEstimate:
    """Per-system estimates with standard errors and degrees of freedom (t intervals)."""

    estimate: np.ndarray
    se: np.ndarray
    df: np.ndarray
    bounds: tuple[float, float]
    info: dict = field(default_factory=dict)

    def interval(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """``alpha -> (lower, upper)``: t intervals clipped to the bounds."""
        with np.errstate(invalid="ignore"):
            q = stats.t.ppf(1 - alpha / 2, np.where(self.df >= 1, self.df, np.nan))
            half = q * self.se
        lo, hi = self.bounds
        return np.clip(self.estimate - half, lo, hi), np.clip(self.estimate + half, lo, hi)


def sums(g: np.ndarray, x: np.ndarray, size: int) -> np.ndarray:
    """``x`` summed within each group code of ``g`` (``size`` groups)."""
    return np.bincount(g, weights=x, minlength=size)


def fold_jackknife(data: ScoreData, cal: Calibration, n_all, n_lab) -> np.ndarray:
    """The calibration's own share of the variance: the delete-a-fold jackknife of what the
    estimate reads off the calibration, its mean over every row minus its mean over the
    labelled rows (per system); 0 with one fold.
    """
    kk = cal.models.shape[0]
    if kk < 2:
        return np.zeros(len(n_all))
    ns = len(n_all)
    sysc, lab = data.system, data.labelled
    g = np.stack(
        [
            sums(sysc, m, ns) / n_all - sums(sysc[lab], m[lab], ns) / np.maximum(n_lab, 1)
            for m in cal.models
        ]
    )
    return (kk - 1) / kk * ((g - g.mean(0)) ** 2).sum(0)
