r"""One judge on independent items: the items model.

:class:`PlainItems`: per system :math:`s` and stratum :math:`t`, the rate
:math:`\theta_{st}` (Jeffreys prior), the judge's sensitivity and specificity, and the
labelled (verdict, label) pairs with the unlabelled verdicts as the whole likelihood
(:func:`~judgebayes.models.items.items_accuracy_model`).  With several systems the
judge's rates are pooled across them by default (``judge_rates="pooled"``: each system's
rates logit-normal around the judge's typical ones with a learnt spread), so that a judge
lenient on one system's answers is not forced to one set of rates; ``"shared"`` forces one
set (check ``self_preference`` tests it), ``"per_system"`` shares nothing.  Laplace has its
model's log density in numpy (no PyTensor compile) and refuses the pooled spread.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import LaplaceError
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import items as mi
from judgebayes.studies.items.base import ItemStudy

__all__ = ["PlainItems", "items_draws"]


class PlainItems(ItemStudy):
    """One judge on independent items (module docstring)."""

    key = "items.plain"
    priority = 100  # asked last: every frame the other variants do not claim
    judge_rates_offered = ("pooled", "shared", "per_system")
    #: the Jeffreys prior on the rate has long tails on the logit scale when a system has
    #: few positives (or few negatives) among its labels; on 12 SBC data sets drawn from
    #: that prior 6 fits diverged at 0.9 (1-5 each), none at 0.95 or 0.99
    sampler = SamplerConfig(target_accept=0.95)
    #: judge rates pooled across systems (a learnt logit-normal spread, non-centred): with
    #: two systems the spread is barely identified; at 0.95, 3 of 20 fits diverged (1-2
    #: each), at 0.99 1 of 20 (benchmarks/misspecification.py, self and shift); at 0.99
    #: over 100 sets 3 and 1 missed the gate, and 10 of 200 SBC fits (R-hat <= 1.011)
    sampler_pooled = SamplerConfig(target_accept=0.99)

    @classmethod
    def matches(cls, data: ItemData) -> bool:
        """The last resort: every frame the other variants do not claim."""
        return True

    def _auto_judge_rates(self) -> str:
        # one system: the three are one model
        return "pooled" if len(self.systems) > 1 else "shared"

    def _bayes_spec(self, method: str):
        if method == "laplace" and self.judge_rates == "pooled":
            raise LaplaceError(
                "the Laplace approximation does not fit the judge's rates pooled across "
                "systems (the learnt spread's posterior is a funnel: its importance check "
                "refused 40 of 40 simulated two-system sets); use method='nuts', or for "
                "Laplace judge_rates='per_system' (or 'shared', which check self_preference "
                "tests)",
                field="judge_rates",
                value="pooled",
            )
        return super()._bayes_spec(method)

    def model_spec(self) -> ModelSpec:
        """The items model (:func:`~judgebayes.models.items.items_accuracy_model`)."""
        c = self.data.cells()
        n_c = (c["N1"] + c["N0"]).astype(float)
        data = dict(**self.data.model_counts(c), share=n_c / n_c.sum(1, keepdims=True))
        structure = dict(
            systems=self.systems,
            strata=self.data.strata,
            judge_rates=self.judge_rates,
            priors=self.priors,
            better_than_chance=self.better_than_chance,
        )
        density = None
        if not self.better_than_chance and self.judge_rates != "pooled":  # Laplace's numpy density
            kw = {k: v for k, v in structure.items() if k != "better_than_chance"}
            density = partial(mi.ItemsLogDensity, **data, **kw)
        pooled = self.judge_rates == "pooled"
        return ModelSpec(
            mi.items_accuracy_model,
            data,
            structure,
            ("theta", "theta_stratum", "q0", "q1"),
            density=density,
            sampler=self.sampler_pooled if pooled else self.sampler,
        )

    def _items_draws(self, post, random_seed) -> np.ndarray:
        c = self.data.cells()
        q0, q1 = post["q0"].values, post["q1"].values
        if self.judge_rates == "shared":
            q0, q1 = q0[..., None, :], q1[..., None, :]
        extra = items_draws(c, post["theta_stratum"].values, q0, q1, self._rng(random_seed, 7))
        return ((c["H1"] + c["H0"]).sum(1) + extra.sum(-1)) / (c["N1"] + c["N0"]).sum(1)


def items_draws(c: dict, th, q0, q1, rng) -> np.ndarray:
    r"""Human positives among each cell's unlabelled items, one draw per posterior draw:
    :math:`\text{Bin}(U_1, \theta q_1 / p) + \text{Bin}(U_0, \theta (1 - q_1) / (1 - p))`,
    :math:`p = \theta q_1 + (1 - \theta)(1 - q_0)`, for cells ``c`` (``N1, N0, L1, L0``)
    and rates broadcast to them.
    """
    p = th * q1 + (1 - th) * (1 - q0)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.clip(np.nan_to_num(th * q1 / p), 0, 1)
        b = np.clip(np.nan_to_num(th * (1 - q1) / (1 - p)), 0, 1)
    return rng.binomial(c["N1"] - c["L1"], a) + rng.binomial(c["N0"] - c["L0"], b)
