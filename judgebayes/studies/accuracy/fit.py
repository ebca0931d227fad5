"""The accuracy family's :class:`~judgebayes.results.Fit`, shared by the accuracy studies
(:mod:`judgebayes.studies.accuracy` and the items design, :mod:`judgebayes.studies.items`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.errors import InputError
from judgebayes.inference.items import contrast_matrices
from judgebayes.results import Fit, check_alpha

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["AccuracyFit"]


class AccuracyFit(Fit):
    """:class:`~judgebayes.results.Fit` of the accuracy family, with system summaries.

    ``contrasts`` and ``prob_best`` are computed from the draws, so they work for every
    method that has draws (Laplace, exact, NUTS) and raise a typed error for a point.
    """

    @property
    def has_contrasts(self) -> bool:
        """Whether :meth:`contrasts` answers: the fit has draws, or a point method gave the
        joint distribution of the systems' estimates (the items design's closed form).
        """
        return not self.is_point or self.info.get("contrasts") is not None

    def contrasts(self, alpha: float = 0.05) -> pd.DataFrame:
        r"""Every ordered pair of systems: theta_a - theta_b, its interval, P(a > b), and
        ``estimand``: whose difference it is and whether the systems were paired by item.

        From the draws for Laplace, exact and NUTS.  The items design's closed form gives
        the Wald interval of its difference with a paired standard error when the study
        has ``item=`` (:func:`~judgebayes.inference.items.contrasts_items`), an
        independent one otherwise; its ``p_a_greater`` is :math:`\Phi(d / \mathrm{se})`,
        the normal approximation's confidence that a is ahead, and ``se`` and ``slack``
        (the partially identified width added to both ends) say how the interval was made.
        """
        alpha = check_alpha(alpha)
        self._require_systems("contrasts")
        table = self.info.get("contrasts")
        if self.is_point and table is not None:
            return _wald_contrasts(table, alpha, self.info.get("estimand", "process"))
        self._require_draws("contrasts")
        d = self.draws()
        names = [str(v) for v in d["system"].values]
        x = d.values
        paired = self.info.get("paired_items")
        estimand = self.info.get("estimand", "process")
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
                        "estimand": estimand
                        if paired is None
                        else f"{estimand}, paired on {int(paired[i][j])} items",
                    }
                )
        return pd.DataFrame(rows)

    def _require_systems(self, what: str) -> None:
        """An :class:`InputError` when the fit has one system: ``what`` compares systems."""
        if len(self.units) < 2:
            raise InputError(
                f"{what} compares systems, and this fit has one ({self.units[0]!r}): give the "
                "study system= (a column naming each row's system) to fit several",
                field="system",
                value=self.units[0],
            )

    def prob_best(self) -> pd.Series:
        """Posterior probability that each system has the highest theta (1 for a fit of
        one system, whatever its method).
        """
        if len(self.units) == 1:
            return pd.Series([1.0], index=pd.Index(self.units, name="system"), name="p_best")
        self._require_draws("prob_best")
        d = self.draws()
        best = np.argmax(d.values, axis=1)
        names = [str(v) for v in d["system"].values]
        counts = np.bincount(best, minlength=len(names)) / best.size
        return pd.Series(counts, index=pd.Index(names, name="system"), name="p_best")


def _wald_contrasts(table: dict, alpha: float, estimand: str) -> pd.DataFrame:
    """Wald rows of a contrast table: normal critical values, or Student's t at the
    smaller of the two systems' degrees of freedom when the table has ``df``; clipped to
    plus or minus the table's ``range`` (1 for rates).
    """
    names = table["systems"]
    d, se, slack, paired = contrast_matrices(table)
    span = float(table.get("range", 1.0))
    dfs = np.asarray(table.get("df", [np.inf] * len(names)), float)
    with np.errstate(invalid="ignore", divide="ignore"):
        crit = stats.t.ppf(1 - alpha / 2, np.minimum(dfs[:, None], dfs[None, :]))
        p_greater = stats.norm.cdf(d / se)
    unpaired = {}
    for a, b, why in table.get("independent", []):
        unpaired[(names[a], names[b])] = unpaired[(names[b], names[a])] = why
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            how = f"paired on {int(paired[i, j])} items" if paired[i, j] else "independent"
            if not paired[i, j] and (a, b) in unpaired:
                how = f"independent: {unpaired[(a, b)]}"
            half = crit[i, j] * se[i, j] + slack[i, j]
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "difference": d[i, j],
                    "lower": max(-span, d[i, j] - half),
                    "upper": min(span, d[i, j] + half),
                    "p_a_greater": float(p_greater[i, j]),
                    "estimand": f"{estimand}, {how}",
                    "se": se[i, j],
                    "slack": slack[i, j],
                    "df": float(min(dfs[i], dfs[j])),
                }
            )
    return pd.DataFrame(rows)
