r"""Several judges on the same items (``judge=[...]``), one human subset.

:class:`SeveralJudgesItems`: the closed form and the exact posterior work over the vote
count (the number of judges saying positive) and assume nothing about how the judges'
errors relate; ``exact`` is the default.  ``nuts`` / ``laplace`` fit the joint latent-class
model (:func:`~judgebayes.models.items.multi_judge_items_model`: judges independent
given the true label, or with ``difficulty=True`` sharing an item difficulty), which the
check ``judge_dependence`` tests on the labelled items; it under-covered with correlated
judges, which is why it is not the default.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import MethodRefused
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import items as mi
from judgebayes.studies.items.base import ItemStudy

__all__ = ["SeveralJudgesItems"]


class SeveralJudgesItems(ItemStudy):
    """Several judges' verdicts on every item (module docstring)."""

    key = "items.judges"
    priority = 20
    #: as the items model (0.95: the Jeffreys prior's long logit tails)
    sampler = SamplerConfig(target_accept=0.95)

    @classmethod
    def matches(cls, data: ItemData) -> bool:
        """Several judges' columns (``judge=[...]``)."""
        return data.n_judges > 1

    @property
    def default_method(self) -> str:
        """``exact``, the vote-count posterior (it assumes nothing about how the judges'
        errors relate); ``closed_form`` with design weights or clusters, which it refuses.
        """
        d = self.data
        return "exact" if d.weights is None and d.cluster is None else "closed_form"

    def _judge_rates_reason(self) -> str:
        return f"with judge={list(self.data.judges)} the judges' rates have no pooled form"

    def _patterns(self):
        """Vote patterns seen, and per (system, pattern): unlabelled, labelled +, labelled -."""
        d = self.data
        if d.cluster is not None or len(d.strata) > 1:
            field = "cluster" if d.cluster is not None else "stratum"
            raise MethodRefused(
                f"the joint model of several judges takes no {field}; use method='closed_form'",
                field=field,
                value=d.columns.get(field),
            )
        patterns, inv = np.unique(d.votes.astype(np.int64), axis=0, return_inverse=True)
        ns, npat = len(d.systems), len(patterns)
        key = d.system * npat + np.ravel(inv)
        lab = d.labelled
        h = np.where(lab, d.human, 0.0)

        def cnt(x):
            out = np.bincount(key, weights=x, minlength=ns * npat).reshape(ns, npat)
            return np.rint(out).astype(np.int64)

        return patterns, cnt(1.0 - lab), cnt(lab * h), cnt(lab * (1 - h))

    def model_spec(self) -> ModelSpec:
        """The latent-class model (:func:`~judgebayes.models.items.multi_judge_items_model`)."""
        patterns, u, y, z = self._patterns()
        data = dict(unlabelled=u, labelled_pos=y, labelled_neg=z, patterns=patterns)
        structure = dict(
            systems=self.systems,
            judges=self.data.judges,
            judge_rates=self.judge_rates,
            difficulty=self.difficulty,
            priors=self.priors,
        )
        names = ("theta", "q0", "q1") + (("gamma0", "gamma1", "tau") if self.difficulty else ())
        # start every chain at the labelled items' (smoothed) rates: the unlabelled vote
        # patterns alone fit the mirror (every judge worse than chance, theta -> 1 - theta)
        # as well, and a chain started there stays (seen: 1 of 4 chains, r-hat 1.54)
        v = patterns.astype(float)
        ys, zs = (y, z) if self.judge_rates == "per_system" else (y.sum(0), z.sum(0))
        q1 = (ys @ v + 1.0) / (ys.sum(-1, keepdims=True) + 2.0)
        q0 = (zs @ (1.0 - v) + 1.0) / (zs.sum(-1, keepdims=True) + 2.0)
        theta = (y.sum(1) + 1.0) / (y.sum(1) + z.sum(1) + 2.0)
        init = {"theta": theta, "q0": q0, "q1": q1}
        if self.difficulty:
            init |= {"gamma0": np.log(q0 / (1 - q0)), "gamma1": np.log(q1 / (1 - q1))}
        return ModelSpec(
            mi.multi_judge_items_model, data, structure, names, init=init, sampler=self.sampler
        )

    def _items_draws(self, post, random_seed) -> np.ndarray:
        """P(h = 1 | pattern) per draw, a binomial fill of each pattern's unlabelled items."""
        patterns, u, y, _ = self._patterns()
        th = post["theta"].values[..., :, None]  # (c, d, S, 1)
        if self.difficulty:
            ll1, ll0 = post["log_lik_pos"].values, post["log_lik_neg"].values
        else:
            q0, q1 = post["q0"].values, post["q1"].values
            if self.judge_rates != "per_system":
                q0, q1 = q0[..., None, :], q1[..., None, :]
            v = patterns.astype(float)
            ll1 = np.log(q1) @ v.T + np.log1p(-q1) @ (1 - v).T
            ll0 = np.log1p(-q0) @ v.T + np.log(q0) @ (1 - v).T
        pos = np.log(th) + ll1
        prob = np.exp(pos - np.logaddexp(pos, np.log1p(-th) + ll0))
        extra = self._rng(random_seed, 7).binomial(u, prob).sum(-1)
        return (y.sum(1) + extra) / np.bincount(self.data.system, minlength=len(self.systems))


for _name in ("ppi", "ppi_plus_plus", "labels_only", "naive", "rogan_gladen"):
    SeveralJudgesItems.methods.refuse(
        _name,
        f"method {_name!r} takes one judge's verdicts, and several judges were given: fit it "
        "on one judge's column, or use 'closed_form' / 'exact' over the vote count",
        field="judge",
    )
