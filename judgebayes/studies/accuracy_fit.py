"""The accuracy family's :class:`~judgebayes.results.Fit`, shared by the accuracy studies
(:mod:`judgebayes.studies.accuracy` and the items design, :mod:`judgebayes.studies.items`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.results import Fit, check_alpha

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["AccuracyFit"]


class AccuracyFit(Fit):
    """:class:`~judgebayes.results.Fit` of the accuracy family, with system summaries.

    ``contrasts`` and ``prob_best`` are computed from the draws, so they work for every
    method that has draws (Laplace, exact, NUTS) and raise a typed error for a point.
    """

    def contrasts(self, alpha: float = 0.05) -> pd.DataFrame:
        """Every ordered pair of systems: mean of theta_a - theta_b, its interval, P(a > b)."""
        alpha = check_alpha(alpha)
        self._require_draws("contrasts")
        d = self.draws()
        names = [str(v) for v in d["system"].values]
        x = d.values
        rows = []
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i == j:
                    continue
                diff = x[:, i] - x[:, j]
                rows.append(
                    {
                        "a": a,
                        "b": b,
                        "difference": diff.mean(),
                        "lower": np.quantile(diff, alpha / 2),
                        "upper": np.quantile(diff, 1 - alpha / 2),
                        "p_a_greater": float((diff > 0).mean()),
                    }
                )
        return pd.DataFrame(rows)

    def prob_best(self) -> pd.Series:
        """Posterior probability that each system has the highest theta."""
        self._require_draws("prob_best")
        d = self.draws()
        best = np.argmax(d.values, axis=1)
        names = [str(v) for v in d["system"].values]
        counts = np.bincount(best, minlength=len(names)) / best.size
        return pd.Series(counts, index=pd.Index(names, name="system"), name="p_best")
