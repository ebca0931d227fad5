r"""Bias-aware Bradley-Terry: pairwise verdicts of one or several judges, ranked.

>>> ranking = PairwiseRanking.from_frames(comparisons, items, covariates=["length"])
>>> fit = ranking.fit("nuts", prior=HorseshoeBias(), random_seed=0)  # or prior="horseshoe"
>>> fit.top_k(5)  # P(item in top 5) per item
>>> fit.rank_intervals()  # rank median and 95% rank interval per item
>>> fit.bias_table()  # length and position coefficients with intervals

Methods
-------
``"naive"``
    Bradley-Terry without covariates or position (MAP + Laplace, analytic Newton).
``"laplace"``
    MAP + Laplace of the bias-aware model.  With a Gaussian bias prior
    (:class:`~judgebayes.models.ranking.NormalBias`, the paper's fixed precision, or
    :class:`~judgebayes.models.ranking.HierarchicalBias`, empirical-Bayes tau) the
    analytic Newton engine of :mod:`judgebayes.inference.ranking.newton`; with
    :class:`~judgebayes.models.ranking.HorseshoeBias` the generic
    Laplace of :mod:`judgebayes.inference.laplace` in PyMC's unconstrained space (a
    Gaussian there, so it cannot represent the horseshoe's spike-and-tail shape: use it
    to see where the approximation fails, not to report).
``"nuts"``
    NUTS (nutpie) on the PyMC model of :mod:`judgebayes.models.ranking`, any
    prior, with the convergence gate.

With human preferences on some comparisons (``from_frames(..., human=...)``) the study is
a :class:`~judgebayes.studies.ranking.channel.JudgeErrorRanking`, which adds the rankings
corrected for the judges' own errors (``judge_error``, ``ppi``).  Qualities are reported
on one identified scale, set in one place (:meth:`PairwiseRanking._identified`):
sum-to-zero within each connected component, or relative to a ``reference`` item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.ranking import (
    IdentifiabilityReport,
    PairwiseData,
    component_labels,
    identifiability_report,
    kept_instances,
    pairwise_from_arrays,
    pairwise_from_frames,
    parse_pairs,
    warn_identifiability,
)
from judgebayes.errors import InputError, require_type, route_keywords
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.ranking.baselines import win_counts
from judgebayes.inference.ranking.topk import identify
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models.ranking import (
    BiasPrior,
    RankingPriors,
    bias_prior,
    bradley_terry_model,
    bt_var_names,
)
from judgebayes.results import LazyTree
from judgebayes.studies.base import FitParts, Study
from judgebayes.studies.ranking.fit import RankingFit

__all__ = ["PairwiseRanking", "RankingInputs"]


@dataclass(frozen=True)
class RankingInputs:
    """What the ranking variants are chosen from: the judges' verdicts and the human
    preferences (a :class:`~judgebayes.data.ranking.channel.ChannelData`, or the column holding
    them), if any.
    """

    data: PairwiseData | None
    channel: Any = None


class PairwiseRanking(Study):
    """Pairwise verdicts of one or several judges, ready to fit.

    Parameters
    ----------
    data : PairwiseData
        Validated verdicts (use :meth:`from_frames` or :meth:`from_arrays`).
    priors : RankingPriors, optional
        Prior settings of the bias-aware models.
    channel : ChannelData, optional
        Human preferences beside the judges' verdicts: the study is then a
        :class:`~judgebayes.studies.ranking.channel.JudgeErrorRanking`.
    instance : array, optional
        One id per kept comparison, shared by the comparisons of one instance (a pair's
        two presentation orders): the ``pairs`` check then tests the order swap.
    """

    family = "ranking"
    key = "ranking"
    fit_type = RankingFit
    default_method = "laplace"
    default_methods = ("naive", "laplace", "nuts")
    #: Bradley-Terry with a normal bias prior (a bias prior that needs other settings
    #: states them: :attr:`BiasPrior.sampler <judgebayes.models.ranking.BiasPrior.sampler>`)
    sampler = SamplerConfig(target_accept=0.95)
    #: the instance effect's scale mixes slowly; on ChatGPT's LLMBar verdicts (normal
    #: prior) 4 x 1000 left R-hat 1.008-1.011 on instance_sd and bulk ESS 470-610 over seeds
    #: 0-3, at the gate's edge; 4 x 2000 gave R-hat <= 1.008 and bulk ESS >= 980
    sampler_instance = SamplerConfig(draws=2000, target_accept=0.95)

    @classmethod
    def _variant_data(cls, data=None, *, channel=None, **_) -> RankingInputs:
        """The verdicts and the human preferences the variants are chosen from."""
        return RankingInputs(data, channel)

    @classmethod
    def matches(cls, data: RankingInputs) -> bool:
        """Verdicts without human preferences (the judge-error variant takes those)."""
        return data.channel is None

    def __init__(
        self,
        data: PairwiseData,
        *,
        priors: RankingPriors | None = None,
        channel: Any = None,
        instance: Sequence | None = None,
    ):
        self.data = require_type(data, PairwiseData, "data", "use from_frames / from_arrays")
        self.priors = (
            RankingPriors() if priors is None else require_type(priors, RankingPriors, "priors")
        )
        self.channel = channel
        self.instance = self._instance_index(instance)

    # constructors ------------------------------------------------------
    @classmethod
    def from_frames(
        cls,
        comparisons: pd.DataFrame,
        items: pd.DataFrame | None = None,
        *,
        covariates: Sequence[str] = (),
        ties: str = "davidson",
        priors: RankingPriors | None = None,
        human: str | None = None,
        instance: str | None = None,
        **columns: Any,
    ) -> PairwiseRanking:
        """From the comparisons and items frames of the DESIGN contract.

        See :func:`judgebayes.data.ranking.pairwise_from_frames` for the columns.  Ties
        (counted in ``data.n_ties``) are a third outcome of Davidson's model by default;
        ``ties="drop"`` drops them and ``ties="half"`` counts them as half a win (the
        practitioners' comparator, not a probability model).

        ``human`` (a column: the human's preferred item, ``"tie"``, or missing where no
        human labelled the comparison) makes the study a
        :class:`~judgebayes.studies.ranking.channel.JudgeErrorRanking`.  ``instance``
        names the column that ties the rows of one comparison together (several judges'
        verdicts on it, its two presentation orders).
        """
        (columns,) = route_keywords("PairwiseRanking.from_frames", columns, pairwise_from_frames)
        keys = ("first", "second", "winner", "judge")
        parsed = parse_pairs(comparisons, **{k: v for k, v in columns.items() if k in keys})
        data = pairwise_from_frames(
            comparisons, items, covariates=covariates, ties=ties, parsed=parsed, **columns
        )
        variant = cls.variant_for(RankingInputs(data, human))
        return variant._from_parsed(
            comparisons, data, parsed, human=human, instance=instance, priors=priors
        )

    @classmethod
    def _from_parsed(cls, comparisons, data, parsed, *, human, instance, priors):
        """The study of ``comparisons``, already read into ``data`` and ``parsed``
        (``instance``: the column that ties one comparison's rows together).
        """
        ids = kept_instances(comparisons, instance, parsed, data.ties)
        return cls(data, priors=priors, instance=ids)

    @classmethod
    def from_arrays(
        cls, first, second, y, *, priors: RankingPriors | None = None, instance=None, **kwargs
    ) -> PairwiseRanking:
        """From integer arrays; see :func:`judgebayes.data.ranking.pairwise_from_arrays`
        (``instance``: one id per kept comparison).
        """
        (kwargs,) = route_keywords("PairwiseRanking.from_arrays", kwargs, pairwise_from_arrays)
        return cls(
            pairwise_from_arrays(first, second, y, **kwargs), priors=priors, instance=instance
        )

    def identifiability(self) -> IdentifiabilityReport:
        """Which parameters the design identifies (see :func:`identifiability_report`)."""
        return identifiability_report(self.data)

    # fitting -----------------------------------------------------------
    def learns_spread(self, prior: BiasPrior | str) -> bool:
        """Whether the default fit learns the qualities' spread: when the bias-aware model
        has an item-level covariate (its coefficient is identified through the spread).
        """
        return bias_prior(prior).has_bias and any(v[2] == "item" for v in self.data.scales.values())

    def model_spec(
        self,
        prior: BiasPrior | str = "horseshoe",
        *,
        position: bool = True,
        theta: str = "prior",
        learn_spread: bool | None = None,
        instance: np.ndarray | None = None,
    ) -> ModelSpec:
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of a PyMC model
        (``instance``: an index 0..I-1 per comparison for the instance effect).
        """
        prior = bias_prior(prior)
        d = self.data if prior.has_bias else self.data.without_covariates()
        data = {"first": d.first, "second": d.second, "y": d.y, "X": d.X, "judge": d.judge}
        n_inst = 0
        sampler = prior.sampler or self.sampler
        if instance is not None:
            data["instance"] = np.asarray(instance, dtype=np.int64)
            n_inst = int(data["instance"].max()) + 1
            if prior.sampler is None:
                sampler = self.sampler_instance
        davidson = d.has_ties and d.ties == "davidson"
        learn = self.learns_spread(prior) if learn_spread is None else bool(learn_spread)
        return ModelSpec(
            builder=bradley_terry_model,
            data=data,
            structure={
                "n_instances": n_inst,
                "items": d.items,
                "covariates": d.covariates,
                "judges": d.judges,
                "prior": prior,
                "position": position,
                "theta": theta,
                "half_ties": d.has_ties and d.ties == "half",
                "davidson": davidson,
                "learn_spread": learn and theta == "prior",
                "priors": self.priors,
            },
            var_names=bt_var_names(prior, len(d.judges), davidson=davidson),
            sampler=sampler,
        )

    def build_model(self, prior: BiasPrior | str = "horseshoe", **kwargs: Any):
        """The PyMC model (not sampled)."""
        return self.model_spec(prior, **kwargs).build()

    def _attrs(self, method, parts: FitParts) -> dict:
        return {
            "bias_prior": parts.extra.get("prior", "none"),
            "position": parts.info.get("position", False),
            "identification": parts.info["identification"],
        }

    def _uses_priors(self, method) -> bool:
        return True

    def _checked(
        self, prior: BiasPrior | str, *, warn: bool, position: bool, reference, spread=None
    ) -> tuple[BiasPrior, bool]:
        """The checks common to the Bradley-Terry methods: the prior and the reference are
        known, there is something to fit, identifiability is reported; returns (prior,
        learn the qualities' spread).
        """
        prior = bias_prior(prior)
        if self.data.n == 0:
            raise InputError("there are no comparisons to fit", field="comparisons", value=0)
        self._check_reference(reference)
        if spread not in (None, "learned", "fixed"):
            raise InputError(
                f"theta_spread must be 'learned' or 'fixed', got {spread!r}",
                field="theta_spread",
                value=spread,
            )
        if warn:
            warn_identifiability(
                self.data if prior.has_bias else self.data.without_covariates(),
                position=prior.has_bias and position,
            )
        return prior, self.learns_spread(prior) if spread is None else spread == "learned"

    def _check_reference(self, reference) -> None:
        if reference is not None and reference not in self.data.items:
            raise InputError(
                f"reference must be one of the items {list(self.data.items)[:10]}"
                f"{' ...' if self.data.n_items > 10 else ''}; got {reference!r}",
                field="reference",
                value=reference,
            )

    def _identified(self, parts: FitParts, reference: str | None, pairs) -> FitParts:
        """``parts`` with theta on the identified scale (draws, point, info, notes);
        ``pairs`` (first, second) are the comparisons that connect the items.
        """
        d = self.data
        own = pairs[0] is d.first and pairs[1] is d.second
        comps = d.components if own else component_labels(d.n_items, *pairs)
        ref = None if reference is None else d.items.index(reference)
        lazy = parts.idata if isinstance(parts.idata, LazyTree) else None
        theta = lazy.values["theta"] if lazy else parts.idata.posterior["theta"].values
        theta[...] = identify(theta, comps, ref)  # in place: the tree's own draws
        if parts.point is not None:
            parts.point = identify(np.asarray(parts.point)[None, :], comps, ref)[0]
        n_comp = int(comps.max(initial=-1) + 1)
        if n_comp > 1:
            parts.notes += (
                f"the comparison graph has {n_comp} connected components: qualities are "
                "identified within each (sum to zero"
                + ("" if ref is None else ", or relative to the reference in its own")
                + "); differences across components are set by the prior alone",
            )
        if own:
            parts.notes += _unbeaten_notes(d)
        parts.info |= {
            "identification": "sum_to_zero" if ref is None else f"reference={reference}",
            "components": n_comp,
        }
        parts.extra.setdefault("data", self.data)
        return parts

    def _instance_index(self, instance) -> np.ndarray | None:
        """``instance`` ids (one per kept comparison) as an index 0..I-1, checked."""
        if instance is None:
            return None
        ids = np.asarray(instance)
        if ids.shape != (self.data.n,):
            raise InputError(
                f"instance needs one id per kept comparison ({self.data.n}), got {ids.shape}",
                field="instance",
                value=ids.shape,
            )
        inv = np.unique(ids, return_inverse=True)[1].ravel()
        d = self.data
        lo, hi = np.minimum(d.first, d.second), np.maximum(d.first, d.second)
        head = np.zeros(inv.max() + 1, dtype=np.int64)
        head[inv[::-1]] = np.arange(inv.size)[::-1]  # first comparison of each instance
        bad = (lo != lo[head[inv]]) | (hi != hi[head[inv]])
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"instance {ids[r]!r} shows two different pairs (comparison {r}); the "
                "comparisons of one instance are the presentation orders of one pair",
                field="instance",
                value=str(ids[r]),
            )
        return inv


def _unbeaten_notes(d) -> tuple[str, ...]:
    """A note naming the items that won, or lost, every comparison they were in: their
    maximum-likelihood quality is infinite, so the prior alone bounds it.
    """
    share = win_counts(d)  # NaN for an item never compared
    out = []
    for what, hit in (("won", share == 1), ("lost", share == 0)):
        if hit.any():
            names = [d.items[i] for i in np.flatnonzero(hit)]
            out.append(
                f"{len(names)} item(s) {what} every comparison they were in ({names[:5]}"
                f"{' ...' if len(names) > 5 else ''}): their maximum-likelihood qualities are "
                "infinite, so their estimates and one end of their intervals are set by the "
                "prior"
            )
    return tuple(out)
