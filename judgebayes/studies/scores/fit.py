"""The fit of the scores design (:mod:`judgebayes.studies.scores`): each system's mean
human label, its periods under ``time=`` and its ranks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.errors import MethodRefused
from judgebayes.inference import scores as sc
from judgebayes.results import check_alpha
from judgebayes.studies.accuracy.fit import AccuracyFit

__all__ = ["ScoreFit"]


@dataclass(frozen=True, eq=False)
class ScoreFit(AccuracyFit):
    """:class:`~judgebayes.results.Fit` of the scores family: each system's mean human
    label (``mu_items`` over the rows, ``mu`` of the process).  ``contrasts`` (paired by
    item where the study has ``item=``) and, for fits with draws, ``prob_best`` and
    :meth:`ranks`.
    """

    family: str = "scores"
    quantity: str = "mu_items"

    def periods(self, alpha: float = 0.05) -> pd.DataFrame:
        """Each system's mean in each period of ``time=`` (the closed form calibrates
        within each period): one row per (period, system) with rows, labelled rows,
        ``estimate`` and its t interval at ``1 - alpha``.
        """
        t = self.info.get("periods")
        if t is None:
            raise MethodRefused(
                "periods() needs a closed-form fit of a study made with time=",
                field="time",
                value=None,
            )
        est = sc.ScoreEstimate(
            *(np.asarray(t[k], float) for k in ("estimate", "se", "df")),
            tuple(self.info["human_scale"]),
        )
        lower, upper = est.interval(check_alpha(alpha))
        out = pd.DataFrame(
            {
                "period": np.repeat(t["periods"], len(t["systems"])),
                "system": np.tile(t["systems"], len(t["periods"])),
                "n_items": np.ravel(t["n_items"]).astype(int),
                "n_labelled": np.ravel(t["n_labelled"]).astype(int),
                "estimate": est.estimate.ravel(),
                "lower": lower.ravel(),
                "upper": upper.ravel(),
            }
        )
        return out[out["n_items"] > 0].reset_index(drop=True)

    def ranks(self, alpha: float = 0.05) -> pd.DataFrame:
        """Each system's rank (1 = highest mean) per draw: mean and equal-tailed interval."""
        self._require_draws("ranks")
        d = self.draws()
        x = d.values
        r = (-x).argsort(1).argsort(1) + 1
        names = [str(v) for v in d["system"].values]
        lo, hi = np.quantile(r, [alpha / 2, 1 - alpha / 2], axis=0)
        return pd.DataFrame(
            {"rank": r.mean(0), "lower": lo, "upper": hi},
            index=pd.Index(names, name="system"),
        )
