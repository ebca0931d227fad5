r"""One judge on clustered items (several responses per prompt, turns of a conversation).

:class:`ClusteredItems` (``cluster=``): each cluster's rate is logit-normal around its
system's, with a learnt spread, and items are independent given their cluster's rate
(:func:`~judgebayes.models.items.clustered_items_model`); the judge's rates are one pair
for every system (``"shared"``, the default) or the system's (``"per_system"``).  The closed
form is cluster-robust (CR2, t at Bell-McCaffrey's degrees of freedom); the comparators
that treat items as independent refuse ``cluster=``.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import MethodRefused
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import items as mi
from judgebayes.studies.items.base import ItemStudy
from judgebayes.studies.items.plain import items_draws

__all__ = ["ClusteredItems"]


class ClusteredItems(ItemStudy):
    """One judge on clustered items (module docstring)."""

    key = "items.clustered"
    priority = 30
    #: as the items model (0.95: the Jeffreys prior's long logit tails); the cluster
    #: spread is non-centred
    sampler = SamplerConfig(target_accept=0.95)

    @classmethod
    def matches(cls, data: ItemData) -> bool:
        """One judge's verdicts with ``cluster=``."""
        return data.cluster is not None and data.n_judges == 1

    def _judge_rates_reason(self) -> str:
        cluster = self.data.columns.get("cluster")
        return f"with cluster={cluster!r} the judge's rates have no pooled form"

    def _cells(self):
        """Per (system, cluster) counts, and each cluster's system code."""
        d = self.data
        if len(d.strata) > 1:
            raise MethodRefused(
                "the clustered Bayesian model has no strata; with both stratum and cluster "
                "use method='closed_form'",
                field="stratum",
                value=d.columns.get("stratum"),
            )
        width = int(d.cluster.max()) + 1
        codes, inv = np.unique(d.system.astype(np.int64) * width + d.cluster, return_inverse=True)
        lab, v = d.labelled, d.judge
        h = np.where(lab, d.human, 0.0)

        def cnt(x):
            return np.rint(np.bincount(inv, weights=x, minlength=codes.size)).astype(np.int64)

        cells = {
            "N1": cnt(v),
            "N0": cnt(1 - v),
            "L1": cnt(lab * v),
            "L0": cnt(lab * (1 - v)),
            "H1": cnt(h * v),
            "H0": cnt(h * (1 - v)),
        }
        return cells, codes // width

    def model_spec(self) -> ModelSpec:
        """The clustered model (:func:`~judgebayes.models.items.clustered_items_model`)."""
        c, sys_of = self._cells()
        data = dict(**self.data.model_counts(c), cluster_system=sys_of)
        structure = dict(
            systems=self.systems,
            clusters=tuple(f"c{i}" for i in range(len(sys_of))),
            judge_rates=self.judge_rates,
            priors=self.priors,
        )
        names = ("theta", "mu", "sigma", "z", "q0", "q1")
        return ModelSpec(mi.clustered_items_model, data, structure, names, sampler=self.sampler)

    def _items_draws(self, post, random_seed) -> np.ndarray:
        c, sys_of = self._cells()
        q0, q1 = post["q0"].values, post["q1"].values
        if self.judge_rates == "per_system":
            q0, q1 = q0[..., sys_of], q1[..., sys_of]
        else:
            q0, q1 = q0[..., None], q1[..., None]
        rng = self._rng(random_seed, 7)
        extra = items_draws(c, post["theta_cluster"].values, q0, q1, rng)
        ns = len(self.systems)
        n_s = np.bincount(sys_of, weights=c["N1"] + c["N0"], minlength=ns)
        known = np.bincount(sys_of, weights=c["H1"] + c["H0"], minlength=ns)
        return (known + extra @ np.eye(ns)[sys_of]) / n_s


for _name in ("ppi", "ppi_plus_plus", "labels_only", "naive", "rogan_gladen"):
    ClusteredItems.methods.refuse(
        _name,
        f"method {_name!r} treats items as independent and would ignore the clusters; use "
        "'closed_form' (cluster-robust) or 'nuts' (hierarchical), or leave cluster out to "
        "compare it",
        field="cluster",
    )
ClusteredItems.methods.refuse(
    "exact",
    "method='exact' is the posterior of independent items labelled at random within "
    "verdicts; with clusters use 'closed_form' (cluster-robust) or 'nuts' (hierarchical)",
    field="cluster",
)
ClusteredItems.methods.refuse(
    "laplace",
    "Laplace is not offered for the clustered model: the clusters' rates are a non-centred "
    "hierarchy with a learnt spread, and its importance check refused 20 of 20 simulated "
    "sets (400 items in 20 clusters, 120 labelled); use method='nuts'",
)
