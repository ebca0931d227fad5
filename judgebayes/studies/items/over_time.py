r"""One judge over time (``time=``): the periods are the strata, and the Bayesian model lets
the judge's rates and each system's rate walk from one period to the next.

:class:`OverTimeItems`: every method estimates each period (labels drawn at random within
it) and pools the periods by their items; ``nuts`` fits
:func:`~judgebayes.models.items.items_dynamic_model`, a random walk on the judge's logit
sensitivity and specificity and on each system's logit rate, so a period with few labels
borrows from its neighbours as much as the data say the judge stood still.
:meth:`OverTimeFit.periods` reads the rate and the judge's rates per period off the fit.
The check ``judge_drift`` tests whether the judge's rates moved (an anytime-valid betting
test, :func:`~judgebayes.inference.sequences.drift_alarm`); no method here assumes they did
not, so it is a warning that says where the judge changed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.data.items import ItemData
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import items as mi
from judgebayes.studies.accuracy.fit import AccuracyFit
from judgebayes.studies.items.plain import PlainItems

__all__ = ["OverTimeFit", "OverTimeItems"]


class OverTimeFit(AccuracyFit):
    """A fit of items over time: the pooled rates, and each period's (:meth:`periods`)."""

    def periods(self, alpha: float = 0.05) -> pd.DataFrame:
        """Per system and period: the rate, and the judge's sensitivity and specificity
        (``nuts``: posterior mean and equal-tailed interval of the dynamic model).

        Returns
        -------
        DataFrame
            Indexed by (system, period): ``rate``, ``rate_lower``, ``rate_upper``,
            ``sensitivity`` ..., ``specificity`` ....
        """
        self._require_draws("periods")
        th = self.draws("theta_stratum")
        q1, q0 = self.draws("q1").values, self.draws("q0").values
        systems = [str(v) for v in th["system"].values]
        periods = [str(v) for v in th["stratum"].values]
        t = th.values
        lo, hi = alpha / 2, 1 - alpha / 2

        def summary(x):
            return x.mean(0), np.quantile(x, lo, axis=0), np.quantile(x, hi, axis=0)

        rows = []
        s1, s0 = summary(q1), summary(q0)
        for i, system in enumerate(systems):
            r = summary(t[:, i])
            for j, period in enumerate(periods):
                rows.append(
                    {
                        "system": system,
                        "period": period,
                        "rate": r[0][j],
                        "rate_lower": r[1][j],
                        "rate_upper": r[2][j],
                        "sensitivity": s1[0][j],
                        "sensitivity_lower": s1[1][j],
                        "sensitivity_upper": s1[2][j],
                        "specificity": s0[0][j],
                        "specificity_lower": s0[1][j],
                        "specificity_upper": s0[2][j],
                    }
                )
        return pd.DataFrame(rows).set_index(["system", "period"])


class OverTimeItems(PlainItems):
    """One judge over time (module docstring)."""

    key = "items.over_time"
    priority = 3
    fit_type = OverTimeFit
    judge_rates_offered = ("shared",)
    #: non-centred walks with two-normal mixture steps: 2 of 100 simulated drifts missed
    #: the gate (R-hat 1.010-1.012, no divergence), 4 with the default 1,000 warm-up draws
    #: (R-hat to 1.017); t steps drawn as a scale mixture of
    #: normals missed it in 7-10 of the same 100, on rare divergences
    sampler = SamplerConfig(target_accept=0.99, tune=2000)
    sampler_pooled = sampler

    @classmethod
    def matches(cls, data: ItemData) -> bool:
        """A time column given (``time=``)."""
        return data.columns.get("time") is not None

    def _auto_judge_rates(self) -> str:
        return "shared"

    def _judge_rates_reason(self) -> str:
        return "over time the one judge's rates walk from period to period, shared by the systems"

    def _bayes_spec(self, method: str):
        self._refuse_extras(
            "the model over time takes one judge's verdicts on unclustered, unpaired items "
            "without covariates",
            ("judge", "cluster", "item", "covariates"),
            "the closed form and exact estimate each period without a model of the judge",
        )
        return super()._bayes_spec(method)

    def model_spec(self) -> ModelSpec:
        """The dynamic model (:func:`~judgebayes.models.items.items_dynamic_model`)."""
        c = self.data.cells()
        n_c = (c["N1"] + c["N0"]).astype(float)
        data = dict(**self.data.model_counts(c), share=n_c / n_c.sum(1, keepdims=True))
        structure = dict(systems=self.systems, strata=self.data.strata, priors=self.priors)
        return ModelSpec(
            mi.items_dynamic_model,
            data,
            structure,
            ("theta", "theta_stratum", "q0", "q1"),
            sampler=self.sampler,
        )


OverTimeItems.methods.refuse(
    "laplace",
    "the Laplace approximation does not fit the model over time (its random walks' step "
    "scales are funnels); use 'nuts', or 'closed_form' / 'exact' per period",
    field="time",
)
