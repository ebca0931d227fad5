r"""The items design: every item judged, a subset labelled by humans, one frame.

``AccuracyStudy.from_items(frame, judge=..., human=...)`` returns an :class:`ItemStudy` of
the variant the frame calls for (a blank human label means unlabelled): one judge
(:mod:`~.plain`), item covariates the judge's errors follow (:mod:`~.covariate`), several
judges (:mod:`~.judges`), clustered items (:mod:`~.clustered`) or several systems answering
the same prompts (:mod:`~.paired`).  Each variant owns its Bayesian model, its draws of
the N items' rate and its sampler default; the closed form, the comparators and the exact
posterior are written once (:mod:`~.methods`).  Its fits are :class:`AccuracyFit` s of the
accuracy family, with one of two estimands, stated in every fit (``fit.info["estimand"]``,
``fit.quantity``):

* ``"items"`` (default): the rate over the :math:`N` items evaluated
  (quantity ``theta_items``): the labelled items are known, only the unlabelled part is
  uncertain;
* ``"process"``: the rate of the process that produced them (quantity ``theta``).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, ClassVar

import numpy as np

from judgebayes.checks.items import labelling
from judgebayes.data.items import ItemData, ItemRoles, items_from_frame
from judgebayes.errors import (
    FewClustersWarning,
    InputError,
    LabellingWarning,
    MethodRefused,
    route_keywords,
)
from judgebayes.inference import items as ie
from judgebayes.models import items as mi
from judgebayes.results import point_tree
from judgebayes.studies.accuracy.fit import AccuracyFit
from judgebayes.studies.base import FitParts, Study
from judgebayes.studies.items.planning import LabelPlanning
from judgebayes.studies.notes import missing_notes

__all__ = ["ESTIMAND_TEXT", "FEW_CLUSTERS", "QUANTITY", "ItemStudy"]

QUANTITY = {"items": "theta_items", "process": "theta"}
ESTIMAND_TEXT = {
    "items": "the rate over the N items evaluated",
    "process": "the rate of the process that produced the items",
}
#: with ``truth="majority"``, the share of labelled items with one rater from which a fit
#: warns that the "majority" is one rater's label (the raters' errors unestimable)
SINGLE_RATER_SHARE = 0.5
#: ... unless the items several raters labelled bound a rater's error rate below this (the
#: closed forms cover at nominal with raters wrong on 5% of items: benchmarks/majority_overlap.py)
RATER_ERROR_BOUND = 0.08
#: below this many clusters a study warns (FewClustersWarning)
FEW_CLUSTERS = 10


class ItemStudy(LabelPlanning, Study):
    r"""One item frame of the items design (module docstring); fits by any method.

    ``ItemStudy(data, ...)`` and ``AccuracyStudy.from_items`` return the variant the data
    call for (the first of :meth:`variants` whose ``matches(data)`` holds).

    Parameters
    ----------
    data : ItemData
        Validated items (:func:`judgebayes.data.items.items_from_frame`).
    estimand : {"items", "process"}
        What the intervals are for (module docstring).
    judge_rates : {"auto", "pooled", "shared", "per_system"}
        Laplace and NUTS: a set of judge rates per system pooled across systems with a
        learnt spread (``"pooled"``), one set for every system (``"shared"``: one judge,
        one sensitivity and specificity; the narrowest, and wrong for every system when
        that fails) or a set per system with nothing shared (``"per_system"``).  Which a
        variant offers, and what ``"auto"`` picks, is the variant's (its docstring).  The
        check ``self_preference`` tests shared rates on the labelled items.  The closed
        form and ``exact`` assume nothing across systems either way.
    priors : AccuracyPriors, optional
        Beta priors of the exact, Laplace and NUTS engines (default
        :func:`~judgebayes.models.items.items_priors`: Jeffreys's Beta(1/2, 1/2) on each
        stratum's rate, uniform on the judge's rates).
    better_than_chance : bool
        Restrict the Bayesian model to q0 + q1 > 1 (default False: the labels identify
        the rate, so there is no mirror to exclude).
    difficulty : bool
        Several judges: let a shared item difficulty make the judges err together.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"judge": [1, 1, 0, 1, 0, 1], "human": [1, None, 0, 0, None, None]})
    >>> study = AccuracyStudy.from_items(frame, judge="judge", human="human")
    >>> study.fit("closed_form").info["estimand"]
    'items'
    """

    family = "accuracy"
    key = "items"
    abstract = True  # the factories return a variant
    fit_type = AccuracyFit
    default_method = "nuts"
    default_methods = ("closed_form", "ppi_plus_plus", "labels_only", "exact", "nuts")
    #: the judge_rates this variant's Bayesian model has
    judge_rates_offered: ClassVar[tuple[str, ...]] = ("shared", "per_system")

    @classmethod
    def _variant_data(cls, data: Any = None, *args: Any, **kwargs: Any) -> ItemData:
        """The item data the variants are chosen from (checked)."""
        if not isinstance(data, ItemData):
            raise InputError(
                "data must be ItemData (use AccuracyStudy.from_items)",
                field="data",
                value=type(data).__name__,
            )
        return data

    def __init__(
        self,
        data: ItemData,
        *,
        estimand: str = "items",
        judge_rates: str = "auto",
        priors: Any = None,
        better_than_chance: bool = False,
        difficulty: bool = False,
    ):
        if not isinstance(data, ItemData):
            raise InputError(
                "data must be ItemData (use AccuracyStudy.from_items)",
                field="data",
                value=type(data).__name__,
            )
        ie.check_estimand(estimand)
        if difficulty and data.n_judges == 1:
            raise InputError(
                "difficulty=True models errors that several judges share on hard items; "
                "it needs several judges (judge=[...])",
                field="difficulty",
                value=True,
            )
        self.data, self.estimand = data, estimand
        self.judge_rates = self._resolve_judge_rates(judge_rates)
        self.difficulty = bool(difficulty)
        self.priors = priors if priors is not None else mi.items_priors()
        self.better_than_chance = bool(better_than_chance)
        g = ie.clusters_per_system(data)
        if g is not None:
            worth = np.where(g < 2, g, ie.bell_mccaffrey_df(data) + 1)
            s = int(np.argmin(worth))
        if g is not None and worth[s] < FEW_CLUSTERS:
            warnings.warn(
                f"system {data.systems[s]!r} has {int(g[s])} clusters worth {worth[s]:.1f} "
                "equal ones (Bell-McCaffrey degrees of freedom + 1; unequal sizes count "
                "less): a cluster-robust interval rests on that many sums (the closed form "
                "uses CR2 with t critical values at those degrees of freedom, which covered "
                "0.93-0.98 in simulation with 5-20 clusters of lognormal sizes or one "
                "holding half the items; the Bayesian fits learn the between-cluster "
                "spread from as few)",
                FewClustersWarning,
                stacklevel=3,
            )
        ns = len(data.systems)
        lab = data.labelled
        self._counts = {  # one system: counts without a pass over its codes
            "n_items": [lab.size] if ns == 1 else np.bincount(data.system, minlength=ns).tolist(),
            "n_labelled": [int(np.count_nonzero(lab))]
            if ns == 1
            else np.bincount(data.system[lab], minlength=ns).tolist(),
        }

    @classmethod
    def from_frame(cls, items, **kwargs: Any) -> ItemStudy:
        """Validate ``items`` (:func:`~judgebayes.data.items.items_from_frame`) and wrap it
        in the variant it calls for.  ``kwargs`` are the frame reader's column keywords and
        the study's own; any other keyword is an :class:`InputError` that lists them.
        """
        frame_kw, study_kw = route_keywords(
            "AccuracyStudy.from_items", kwargs, ItemRoles, ItemStudy.__init__
        )
        return ItemStudy(items_from_frame(items, ItemRoles(**frame_kw)), **study_kw)

    # --------------------------------------------------------------- judge rates
    def _auto_judge_rates(self) -> str:
        """What ``judge_rates="auto"`` means for this variant."""
        return "shared"

    def _resolve_judge_rates(self, judge_rates: str) -> str:
        if judge_rates not in ("auto", *mi.JUDGE_RATES):
            raise InputError(
                f"judge_rates must be one of {('auto', *mi.JUDGE_RATES)}; got {judge_rates!r}",
                field="judge_rates",
                value=judge_rates,
            )
        if judge_rates == "auto":
            return self._auto_judge_rates()
        if judge_rates not in self.judge_rates_offered:
            raise InputError(
                f"judge_rates={judge_rates!r}: {self._judge_rates_reason()}; this model "
                f"offers {self.judge_rates_offered}",
                field="judge_rates",
                value=judge_rates,
            )
        return judge_rates

    def _judge_rates_reason(self) -> str:
        return "'pooled' is a model of one judge's rates on unclustered items"

    # --------------------------------------------------------------- facts
    @property
    def systems(self) -> tuple[str, ...]:
        """System names."""
        return self.data.systems

    @property
    def quantity(self) -> str:
        """The reported variable: ``theta_items`` (N items) or ``theta`` (process)."""
        return QUANTITY[self.estimand]

    @property
    def paired(self) -> bool:
        """Whether the Bayesian fits pair the systems by item (the paired variant)."""
        return False

    def summary(self):
        """Items, labelled items, judged and human positives, missing verdicts per system."""
        return self.data.summary()

    # --------------------------------------------------------------- the Bayesian model
    def model_spec(self):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of this variant's model."""
        raise NotImplementedError

    def build_model(self):
        """A fresh ``pm.Model`` (never sampled here)."""
        return self.model_spec().build()

    def _bayes_spec(self, method: str):
        """The model spec for a Bayesian ``method``, or a refusal of what it cannot serve:
        design weights, and systems paired by item in a variant that cannot pair them.
        """
        d = self.data
        if d.weights is not None:
            raise MethodRefused(
                f"method {method!r} takes items labelled at random within verdicts and "
                "strata; with design weights use method='closed_form' (Hajek-weighted)",
                field="weights",
                value=d.columns.get("weights"),
            )
        self._refuse_unpaired(method)
        return self.model_spec()

    def _refuse_extras(self, model: str, names: tuple[str, ...], way_out: str) -> None:
        """Refuse (:class:`MethodRefused`, naming the field) the first of ``names`` the data
        carry that ``model`` cannot hold: ``"judge"`` (several judges), ``"cluster"``,
        ``"item"``, ``"covariates"``.
        """
        d = self.data
        given = {
            "judge": list(d.judges) if d.n_judges > 1 else None,
            "cluster": d.columns.get("cluster"),
            "item": d.columns.get("item"),
            "covariates": list(d.covariate_names) or None,
        }
        for field_ in names:
            if given[field_] is not None:
                raise MethodRefused(
                    f"{model}; {field_}={given[field_]!r} was given as well: {way_out}",
                    field=field_,
                    value=given[field_],
                )

    def _refuse_unpaired(self, method: str) -> None:
        """Systems that answered the same prompts (``item=``) are compared paired: a
        method that cannot pair them refuses instead of comparing them as independent.
        """
        d = self.data
        if d.item is not None and len(d.systems) > 1:
            raise MethodRefused(
                f"method {method!r} of this model cannot pair the systems by "
                f"item={d.columns.get('item')!r} (it would compare them as independent "
                "samples); use 'closed_form' (paired by item), or leave item= out to compare "
                "them unpaired",
                field="item",
                value=d.columns.get("item"),
            )

    def _items_draws(self, post, random_seed) -> np.ndarray:
        """Draws of the N items' rate (``theta_items``) from the fit's posterior."""
        raise NotImplementedError

    def _bayes_done(self, parts: FitParts, random_seed) -> FitParts:
        """Posterior predictive of the unlabelled items' labels -> ``theta_items``."""
        post = parts.idata.posterior
        val = self._items_draws(post, random_seed)
        post["theta_items"] = post["theta"].copy(data=val)
        parts.quantity = self.quantity
        return parts

    @staticmethod
    def _rng(random_seed, stream: int) -> np.random.Generator:
        """The generator of the items draws (one stream per variant's draws)."""
        return np.random.default_rng([0 if random_seed is None else random_seed, stream])

    # --------------------------------------------------------------- fit hooks
    def _info(self, method, parts: FitParts) -> dict:
        estimand = parts.info.get("estimand", self.estimand)
        return {
            "design": "items",
            "estimand": estimand,
            "estimand_text": ESTIMAND_TEXT[estimand],
            "judge_rates": self.judge_rates,
            **self._counts,
        }

    @functools.cached_property
    def labelling_flags(self) -> dict[str, list[tuple[str, float]]]:
        """The columns the labelling checks flag on the data (computed once)."""
        return labelling.flags(self)

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        out = missing_notes(self.systems, self.data.n_missing, "a verdict")
        if self.data.n_ties and self.data.truth == "majority":
            out = (
                *out,
                f"{self.data.n_ties} item(s) whose raters tied have no majority label and "
                "count as unlabelled",
            )
        alone = self._single_rater_share()
        if alone >= SINGLE_RATER_SHARE and method.name != "nuts":
            note = (
                f"{alone:.0%} of the labelled items have one rater: their 'majority' is that "
                f"rater's label, errors and all, and method {method.name!r} takes it as the "
                "truth, while the few items rated by several cannot say how often a rater "
                "errs; use truth='latent' with method 'nuts' (each rater's errors modelled), "
                "or have most items rated by two or more"
            )
            warnings.warn(note, LabellingWarning, stacklevel=4)
            out = (*out, note)
        flagged = labelling.relevant_flags(self, self.labelling_flags, method.name)
        if flagged:
            note = labelling.remedy(self, flagged, method.name)
            warnings.warn(note, LabellingWarning, stacklevel=4)
            out = (*out, note)
        return out

    def _single_rater_share(self) -> float:
        r"""With ``truth="majority"``: the share of the labelled items one rater labelled,
        or 0 when the items several raters labelled bound a rater's error rate below
        :data:`RATER_ERROR_BOUND`.  The bound: raters erring independently at rate
        :math:`e` disagree on a pair's label with probability :math:`d = 2e(1 - e)`;
        the one-sided 95% Clopper-Pearson upper bound of :math:`d` over the items' rater
        pairs gives :math:`e_U = (1 - \sqrt{1 - 2 d_U}) / 2`.
        """
        from scipy import stats

        raters = self.data.raters
        if raters is None or self.data.truth != "majority":
            return 0.0
        seen = np.isfinite(raters)
        rated = seen.sum(axis=1)
        if not (rated > 0).any():
            return 0.0
        share = float((rated[rated > 0] == 1).mean())
        ones = np.where(seen, raters, 0.0).sum(axis=1)
        pairs = rated * (rated - 1) / 2
        split = ones * (rated - ones)  # the rater pairs that disagree, per item
        n, x = float(pairs.sum()), float(split.sum())
        d_up = float(stats.beta.ppf(0.95, x + 1, n - x)) if n > 0 else 1.0
        e_up = (1 - np.sqrt(max(1 - 2 * d_up, 0.0))) / 2
        return 0.0 if e_up <= RATER_ERROR_BOUND else share

    def _attrs(self, method, parts: FitParts) -> dict:
        return {
            "design": "items",
            "variant": self.key,
            "estimand": parts.info.get("estimand", self.estimand),
            "judge_rates": self.judge_rates,
            "difficulty": self.difficulty,
        }

    def _point(self, values, ifn, info, notes=()) -> FitParts:
        """A point fit whose tree is built on first use (one value per system)."""
        quantity = next(iter(values))
        bad = [s for s, x in zip(self.systems, values[quantity], strict=True) if not np.isfinite(x)]
        notes = (*notes, *(f"system {s!r}: not estimable from these labels: NaN" for s in bad))
        return FitParts(
            point_tree(values, "system", self.systems),
            quantity=quantity,
            interval_fn=ifn,
            info=info,
            notes=tuple(notes),
        )

    def _one_judge(self, name: str) -> None:
        d = self.data
        if d.n_judges > 1:
            raise MethodRefused(
                f"method {name!r} takes one judge's verdicts; {d.n_judges} judges were given: "
                "fit it on one judge's column, or use 'closed_form' / 'exact' for all of them",
                field="judge",
                value=list(d.judges),
            )
