r"""Several systems answering the same prompts (``item=``), one judge: paired comparisons.

:class:`PairedItems`: differences between systems are paired by prompt in every engine.
The closed form's contrasts are double sampling of the per-prompt difference over joint
verdict categories (:func:`~judgebayes.inference.items.paired_difference`);
``exact`` is the conjugate posterior of the joint verdicts and the joint truths given them
(:mod:`judgebayes.inference.items.paired`); ``nuts`` fits the same parametrisation
under the items prior (:func:`~judgebayes.models.items.paired_items_model`) and also
takes prompts that some system did not answer; Laplace is refused.  Neither counts a
judge that passes or fails the answers to one prompt together as two witnesses.  Nothing
is shared across systems: ``judge_rates`` is ``"per_system"``.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import MethodRefused
from judgebayes.inference.items.paired import (
    exact_paired_draws,
    prompt_table,
    truths_drawn,
)
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import items as mi
from judgebayes.results import tree
from judgebayes.studies.base import FitParts
from judgebayes.studies.items.base import ItemStudy

__all__ = ["COMPLETE_PATTERNS", "PairedItems"]

#: the paired model's pattern table is complete (every verdict x label state of every
#: system) up to this many rows (four systems), so that it compiles once per S
COMPLETE_PATTERNS = 6561


class PairedItems(ItemStudy):
    """Several systems on the same prompts, one judge (module docstring)."""

    key = "items.paired"
    priority = 40
    judge_rates_offered = ("per_system",)
    #: a state the data barely see mixes slowly near 0; 4 x 2000 at 0.95 failed the gate in
    #: 1 of 40 simulated pairs (400 prompts, 90% agreement, 25% labelled on both)
    sampler = SamplerConfig(draws=2000, target_accept=0.95)

    @classmethod
    def matches(cls, data: ItemData) -> bool:
        """``item=`` with several systems, one judge, no clusters."""
        return (
            data.item is not None
            and len(data.systems) > 1
            and data.n_judges == 1
            and data.cluster is None
        )

    def _auto_judge_rates(self) -> str:
        return "per_system"  # each system's own joint confusion

    def _judge_rates_reason(self) -> str:
        return (
            "with item= the Bayesian fits pair the systems by item and give the judge a "
            "confusion per joint truth, nothing shared across systems; leave judge_rates out"
        )

    @property
    def paired(self) -> bool:
        """The Bayesian fits pair the systems by item."""
        return True

    def _refuse_unpaired(self, method: str) -> None:
        """Every engine of this variant pairs."""

    def _patterns(self):
        """Distinct (verdict, label) patterns of the prompts over the systems, and counts
        (built once: the data do not change, and a fit reads them three times).
        """
        if getattr(self, "_pattern_cache", None) is None:
            self._pattern_cache = self._build_patterns()
        return self._pattern_cache

    def _build_patterns(self):
        S = len(self.systems)
        v, h = prompt_table(self.data)
        seen, n_seen = np.unique(np.concatenate([v, h], 1), axis=0, return_counts=True)
        if 9**S > COMPLETE_PATTERNS:
            return seen[:, :S], seen[:, S:], n_seen
        # every pattern, seen or not: the model's shapes depend only on S, so one compiled
        # model serves every data set with as many systems (a warm refit)
        one = np.array([(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)])  # (9, 2)
        idx = np.stack(np.meshgrid(*[np.arange(9)] * S, indexing="ij"), -1).reshape(-1, S)
        pat = np.concatenate([one[idx, 0], one[idx, 1]], 1)
        code = ((seen[:, :S] + 1) * 3 + (seen[:, S:] + 1)) @ (9 ** np.arange(S - 1, -1, -1))
        counts = np.zeros(len(pat), dtype=np.int64)
        counts[code] = n_seen
        return pat[:, :S], pat[:, S:], counts

    def model_spec(self) -> ModelSpec:
        """The paired model (:func:`~judgebayes.models.items.paired_items_model`)."""
        if len(self.systems) > mi.PAIRED_MAX_SYSTEMS:
            raise MethodRefused(
                f"the paired Bayesian model takes at most {mi.PAIRED_MAX_SYSTEMS} systems "
                f"(its joint has 2 ** S cells); got {len(self.systems)}: fit pairs of "
                "systems, or use method='closed_form'",
                field="system",
                value=len(self.systems),
            )
        if len(self.data.strata) > 1:
            raise MethodRefused(
                "the paired Bayesian model has no strata; use method='closed_form' (paired, "
                "stratified)",
                field="stratum",
                value=self.data.columns.get("stratum"),
            )
        v, h, counts = self._patterns()
        return ModelSpec(
            mi.paired_items_model,
            dict(counts=counts, verdict=v, human=h),
            dict(systems=self.systems, priors=self.priors),
            ("theta", "share", "given"),
            sampler=self.sampler,
        )

    def _items_draws(self, post, random_seed) -> np.ndarray:
        """Per draw and pattern, the prompts' joint truths drawn from their posterior given
        the pattern; labelled answers keep their label.
        """
        v, h, counts = self._patterns()
        states = mi.truth_states(v.shape[1])  # (T, S)
        V, L = mi.pattern_masks(v, h)
        T = states.shape[0]
        share = post["share"].values.reshape(-1, T)  # (D, W)
        given = post["given"].values.reshape(-1, T, T)  # (D, W, T)
        n_t = truths_drawn(share, given, V, L, counts, self._rng(random_seed, 11))  # (D, P, T)
        answered = (v >= 0) | (h >= 0)  # (P, S)
        right = np.einsum("dpt,ts,ps->ds", n_t, states, answered)
        n_s = (counts[:, None] * answered).sum(0)
        return (right / n_s).reshape(post["theta"].shape)

    def _bayes_done(self, parts: FitParts, random_seed) -> FitParts:
        parts = super()._bayes_done(parts, random_seed)
        v, h, counts = self._patterns()
        answered = ((v >= 0) | (h >= 0)).astype(np.int64)
        parts.info["paired_items"] = (answered.T @ (answered * counts[:, None])).tolist()
        return parts


@PairedItems.methods.register("exact", engine="exact", summary="exact paired posterior draws")
def _exact(study: PairedItems, *, random_seed=None, draws: int = 4000) -> FitParts:
    """``draws`` draws of the conjugate posterior of the prompts' joint verdicts and joint
    truths (:func:`~judgebayes.inference.items.paired.exact_paired_draws`): every rate
    a sum over the same draws, so differences are paired.
    """
    d = study.data
    if d.weights is not None:
        raise MethodRefused(
            "method='exact' is the posterior of labelling on the verdicts; with weights use "
            "'closed_form' (design-based)",
            field="weights",
            value=d.columns.get("weights"),
        )
    dr = exact_paired_draws(d, draws, np.random.default_rng(random_seed))
    idata = tree(
        {"posterior": {k: dr[k][None] for k in ("theta", "theta_items")}},
        coords={"system": list(study.systems)},
        dims={"theta": ["system"], "theta_items": ["system"]},
    )
    notes = ()
    if dr["ess"] < 400:
        notes = (
            f"the importance weights of the {dr['n_partial']} prompt(s) labelled on some "
            f"systems only leave {dr['ess']:.0f} effective draws: label both answers of a "
            "prompt, or use 'nuts'",
        )
    n = dr["n_prompts"]
    return FitParts(
        idata,
        quantity=study.quantity,
        notes=notes,
        info={
            "draws": draws,
            "prior": "Dirichlet over the joint verdicts' shares and over the joint truths "
            "given a verdict (each system's human rate given a verdict Beta(1/4, 1/4))",
            "ess": dr["ess"],
            "paired_items": np.full((len(study.systems),) * 2, n).tolist(),
        },
    )


PairedItems.methods.refuse(
    "laplace",
    "the Laplace approximation does not fit the paired model: its Dirichlets over the 2 ** S "
    "joint verdicts and truths put mass on the simplex's edges a Gaussian misses; "
    "method='exact' is the same model's posterior without an approximation, 'nuts' takes "
    "prompts some system did not answer",
    field="item",
)
