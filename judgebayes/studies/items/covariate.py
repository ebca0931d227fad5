r"""One judge whose errors (and the rate) follow item covariates (``covariates=[...]``).

:class:`CovariateItems`: the rate and the judge's sensitivity and specificity are logistic
in the standardised covariates, slopes shared across systems and shrunk to N(0, 1)
(:func:`~judgebayes.models.items.items_covariate_model`), so that a judge lenient on
long answers reads a system with long answers right.  The judge's rates are shared across
systems given the covariates by default (``"shared"``; pooled intercepts on top cost
several times the fit); the check ``self_preference`` then tests what is left given
them.  The closed form and ``exact`` ignore the covariates (they model nothing of the
judge's errors).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit, logit

from judgebayes.data.items import ItemData
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import items as mi
from judgebayes.studies.items.base import ItemStudy

__all__ = ["CovariateItems"]


class CovariateItems(ItemStudy):
    """One judge whose errors follow item covariates (module docstring)."""

    key = "items.covariates"
    priority = 10
    judge_rates_offered = ("pooled", "shared", "per_system")
    #: as the items model (0.95)
    sampler = SamplerConfig(target_accept=0.95)
    #: and with pooled intercepts (0.99, as the pooled items model)
    sampler_pooled = SamplerConfig(target_accept=0.99)

    @classmethod
    def matches(cls, data: ItemData) -> bool:
        """Item covariates given (``covariates=``)."""
        return data.covariates is not None

    def model_spec(self) -> ModelSpec:
        """The covariate model (:func:`~judgebayes.models.items.items_covariate_model`)."""
        self._refuse_extras(
            "the covariate model takes one judge's verdicts on unclustered, unpaired items",
            ("judge", "cluster", "item"),
            "fit without covariates= (the closed form and exact need no model of the judge's "
            "errors)",
        )
        d = self.data
        z, _, _ = mi.standardise(d.covariates)
        data = dict(
            item_system=d.system,
            item_stratum=d.stratum,
            z=z,
            verdict=d.judge,
            human=np.nan_to_num(d.human, nan=-1.0),
        )
        structure = dict(
            systems=self.systems,
            strata=d.strata,
            covariates=d.covariate_names,
            judge_rates=self.judge_rates,
            priors=self.priors,
        )
        names = ("theta", "theta_stratum", "q0", "q1", "rate_coef", "q0_coef", "q1_coef")
        pooled = self.judge_rates == "pooled"
        sampler = self.sampler_pooled if pooled else self.sampler
        return ModelSpec(mi.items_covariate_model, data, structure, names, sampler=sampler)

    def _refuse_unpaired(self, method: str) -> None:
        # the covariate model names item= itself (model_spec); exact pairs nothing
        if method == "exact":
            super()._refuse_unpaired(method)

    def _notes(self, method, parts, info) -> tuple[str, ...]:
        out = super()._notes(method, parts, info)
        d = self.data
        if (
            method.name in ("laplace", "nuts")
            and len(d.systems) > 1
            and self.judge_rates == "shared"
        ):
            out = (
                f"the judge's rates are shared across systems given "
                f"{', '.join(d.covariate_names)}: a lenience on one system beyond them is not "
                "modelled (covered A - B in 0.63 of simulated sets; judge_rates='per_system' "
                "0.97); check self_preference tests it",
                *out,
            )
        return out

    def _items_draws(self, post, random_seed) -> np.ndarray:
        """Each unlabelled item's P(h = 1 | v, z) per draw, one Bernoulli each, plus the
        labelled items' own labels.
        """
        d = self.data
        z, _, _ = mi.standardise(d.covariates)
        u = ~d.labelled
        sy, st, zu, vu = d.system[u], d.stratum[u], z[u], d.judge[u]

        def flat(name):
            x = post[name].values
            return x.reshape(-1, *x.shape[2:])

        th0, gam = flat("theta_stratum"), flat("rate_coef")
        q0, q1, b0, b1 = flat("q0"), flat("q1"), flat("q0_coef"), flat("q1_coef")
        shared, per_system = self.judge_rates == "shared", self.judge_rates == "per_system"
        rng = self._rng(random_seed, 7)
        ns = len(self.systems)
        known = np.bincount(d.system[~u], weights=d.human[~u], minlength=ns)
        onehot = np.eye(ns)[sy]  # (unlabelled items, systems): a draw's sums per system
        out = np.empty((th0.shape[0], ns))
        for lo in range(0, th0.shape[0], 250):  # draws in chunks: (chunk x items) arrays
            sl = slice(lo, lo + 250)
            eta = logit(th0[sl][:, sy, st]) + np.einsum("dip,ip->di", gam[sl][:, sy], zu)
            if shared:
                e1, e0 = logit(q1[sl][:, st]), logit(q0[sl][:, st])
            else:
                e1, e0 = logit(q1[sl][:, sy, st]), logit(q0[sl][:, sy, st])
            if per_system:
                e1 = e1 + np.einsum("dip,ip->di", b1[sl][:, sy], zu)
                e0 = e0 + np.einsum("dip,ip->di", b0[sl][:, sy], zu)
            else:
                e1, e0 = e1 + b1[sl] @ zu.T, e0 + b0[sl] @ zu.T
            lpos = log_expit(eta) + np.where(vu == 1, log_expit(e1), log_expit(-e1))
            lneg = log_expit(-eta) + np.where(vu == 1, log_expit(-e0), log_expit(e0))
            draw = (rng.random(lpos.shape) < expit(lpos - lneg)).astype(float)
            out[sl] = known + draw @ onehot
        n_s = np.bincount(d.system, minlength=ns)
        return (out / n_s).reshape(post["theta"].shape)
