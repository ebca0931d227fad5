"""Sampler settings as data, and the checks every method's arguments share.

Which methods a study offers lives with the study (``study.methods``, a table of
registered callables: :mod:`judgebayes.studies.base`); this module holds what those
methods share and what the engines read:

* :class:`SamplerConfig`, one fit's NUTS settings, and :data:`DEFAULT_SAMPLERS`, every
  model's default with the measured reason for it.  A fit takes
  ``sampler=SamplerConfig(...)`` or a mapping of the fields to change
  (``sampler={"draws": 500}``); the settings used are written into ``fit.idata.attrs``.
  The seed is the fit's ``random_seed`` argument (DESIGN: every sampling call takes one).
* :func:`check_count` and :func:`check_seed`: the one way an integer count or a seed is
  validated, so ``draws=2.5`` is refused by name in every engine.
* :func:`normalise_method`: ``closed-form`` (the CLI's spelling) is ``closed_form``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from judgebayes.errors import InputError

__all__ = [
    "DEFAULT_SAMPLERS",
    "SamplerConfig",
    "check_count",
    "check_seed",
    "normalise_method",
    "resolve_sampler",
]


@dataclass(frozen=True)
class SamplerConfig:
    """NUTS settings of one fit.

    Attributes
    ----------
    draws : int
        Kept draws per chain.
    tune : int
        Warm-up draws per chain (discarded).
    chains : int
        Independent chains (R-hat needs at least 2).
    target_accept : float
        Step-size adaptation target in (0, 1); higher means smaller steps, fewer
        divergences in funnels, slower sampling.
    backend : {"nutpie", "pymc"}
        ``"nutpie"`` (compiled once per model structure, data swapped in) or
        ``"pymc"`` (``pm.sample``, no compile cache).
    """

    draws: int = 1000
    tune: int = 1000
    chains: int = 4
    target_accept: float = 0.8
    backend: str = "nutpie"

    def __post_init__(self):
        for name in ("draws", "tune", "chains"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "tune" else 1):
                low = 0 if name == "tune" else 1
                raise InputError(
                    f"sampler.{name} must be an integer >= {low}; got {v!r}",
                    field=f"sampler.{name}",
                    value=v,
                )
        ta = self.target_accept
        if isinstance(ta, bool) or not isinstance(ta, int | float) or not 0 < ta < 1:
            raise InputError(
                f"sampler.target_accept must lie in (0, 1); got {ta!r}",
                field="sampler.target_accept",
                value=ta,
            )
        if self.backend not in ("nutpie", "pymc"):
            raise InputError(
                f"sampler.backend must be 'nutpie' or 'pymc'; got {self.backend!r}",
                field="sampler.backend",
                value=self.backend,
            )


#: Per-model NUTS defaults, and why.
DEFAULT_SAMPLERS: dict[str, SamplerConfig] = {
    # binary / K-class accuracy: low-dimensional, but q0 and q1 are shared by every
    # system, and at 0.8 a two-system fit diverged in 5 of 8 seeds (1-2 divergences each,
    # the CLI test's data); at 0.9 in none of them, for the same time per fit (0.36 s)
    "accuracy": SamplerConfig(target_accept=0.9),
    # the pooled-strata model has a funnel in the spread of the judge's logit rates; with
    # few strata 0.95 still left divergences (17 in 2 fits on LLMBar), 0.99 none
    "accuracy.strata": SamplerConfig(target_accept=0.99),
    # independent replicates (split protocol): one NUTS run over hundreds of small
    # posteriors, some pressed against theta in {0, 1}; 0.95 keeps divergences at 0
    "accuracy.replicates": SamplerConfig(target_accept=0.95),
    # the items design's models (one judge, clustered, several judges): the Jeffreys prior
    # on the rate has long tails on the logit scale when a system has few positives (or
    # few negatives) among its labels; on 12 SBC data sets drawn from that prior 6 fits
    # diverged at 0.9 (1-5 each), none at 0.95 or 0.99
    "accuracy.items": SamplerConfig(target_accept=0.95),
    # judge rates pooled across systems (a learnt logit-normal spread, non-centred): with
    # two systems the spread is barely identified; at 0.95, 3 of 20 fits diverged (1-2
    # each), at 0.99 1 of 20 (benchmarks/misspecification.py, self and shift); at 0.99
    # over 100 sets 3 and 1 missed the gate, and 10 of 200 SBC fits (R-hat <= 1.011)
    "accuracy.items.pooled": SamplerConfig(target_accept=0.99),
    # the paired model (several systems' joint truth and the judge's joint verdicts on the
    # same items, Dirichlets over the 2 ** S states): a state the data barely see mixes
    # slowly near 0; 4 x 2000 at 0.95 failed the gate in 1 of 40 simulated pairs (400
    # prompts, 90% agreement, 25% labelled on both), 2.5 s a fit
    "accuracy.paired": SamplerConfig(draws=2000, target_accept=0.95),
    # repeated generations and judge runs: two non-centred normal effects (prompt, and
    # generation within prompt); the generation sd, which three runs per generation
    # barely see, had R-hat 1.023 and bulk ESS 224 at 4 x 1000 (150 prompts x 4
    # generations x 3 runs); 4 x 2000 after 1500 tuning passed on 3 of 3 seeds (22-30 s)
    "accuracy.repeats": SamplerConfig(draws=2000, tune=1500, target_accept=0.95),
    # panel cell and item models: logit-normal hierarchies over validators.  With the
    # gate on every free variable, the validator population mean mu_tpr had R-hat 1.026
    # at 4 x 1000 (tune 800, 0.9) on a 10 x 8 simulated panel; tune 1500 at 0.95 passes
    # there.  On 30 small panels (benchmarks/panel_gate.py: 5 x 4 plain and shifted, 6 x 5)
    # 4 x 1000 at 0.95 left R-hat up to 1.016 and tail ESS down to 85; 4 x 2000 passed
    # R-hat and ESS but 12 of 30 fits diverged (1-4 each), at g -> 1 where the realised
    # share's logit sd was unbounded.  With that sd bounded (models/panel.py), 4 x 2000 at
    # 0.95 passed 26 of 30 (3 with 1-2 divergences) and at 0.99 28 of 30 (no divergence;
    # the two failures are tail ESS 76 and 168 on 6 x 5 panels with rate shifts)
    "panel": SamplerConfig(draws=2000, tune=1500, target_accept=0.99),
    # the item-level model of one generator (one pool of outputs, several judges: the
    # Dawid-Skene setting): no generator hierarchy and no rate shifts, so none of the
    # funnels above; on a 200-output, 8-judge simulation 4 x 1000 at 0.9 passed
    # the gate in 3 of 3 seeds at 8 s a fit
    "panel.single_generator": SamplerConfig(target_accept=0.9),
    # Bradley-Terry with a normal or hierarchical bias prior
    "ranking": SamplerConfig(target_accept=0.95),
    # the regularized horseshoe's spike needs small steps (Piironen & Vehtari 2017)
    "ranking.horseshoe": SamplerConfig(target_accept=0.99),
    # the hierarchical bias prior's scale over two coefficients is a funnel when the true
    # biases are near 0: on 20 SBC data sets (6 items, 300 comparisons) 7 fits failed the
    # gate at 0.95 (1-3 divergences each), 1 at 0.99 (R-hat 1.015 on tau_b)
    "ranking.hierarchical": SamplerConfig(target_accept=0.99),
    # the instance effect (a pair's two presentation orders share a deviation): its scale
    # mixes slowly; on ChatGPT's LLMBar verdicts (normal prior) 4 x 1000 left R-hat
    # 1.008-1.011 on instance_sd and bulk ESS 470-610 over seeds 0-3, at the gate's edge;
    # 4 x 2000 gave R-hat <= 1.008 and bulk ESS >= 980 (18 s a fit instead of 12 s)
    "ranking.instance": SamplerConfig(draws=2000, target_accept=0.95),
    # judge-error ranking: a few qualities and a confusion simplex per judge; on PandaLM
    # (999 instances, 2 judges, ties) 0.9 passes the gate with bulk ESS > 1,800
    "ranking.judge_error": SamplerConfig(target_accept=0.9),
    # the same with a channel that depends on covariates or item favouritism (a
    # half-normal scale per judge, non-centred): on a 5-system simulation with a
    # length-biased judge 2 of 6 fits diverged at 0.9, none of 6 at 0.95
    "ranking.judge_error.bias": SamplerConfig(target_accept=0.95),
}


def resolve_sampler(model: str, sampler: SamplerConfig | Mapping[str, Any] | None) -> SamplerConfig:
    """The sampler settings of one fit: ``model``'s default, updated by ``sampler``."""
    base = DEFAULT_SAMPLERS[model]
    if sampler is None:
        return base
    if isinstance(sampler, SamplerConfig):
        return sampler
    if not isinstance(sampler, Mapping):
        raise InputError(
            f"sampler must be a SamplerConfig or a mapping of its fields; got "
            f"{type(sampler).__name__}",
            field="sampler",
            value=type(sampler).__name__,
        )
    valid = {f.name for f in fields(SamplerConfig)}
    bad = sorted(set(sampler) - valid)
    if bad:
        raise InputError(
            f"sampler has no setting {bad[0]!r}; valid settings: {sorted(valid)}",
            field="sampler",
            value=bad[0],
        )
    return replace(base, **dict(sampler))


#: the fewest posterior draws a draw-based interval is read from: its 2.5% tail is then
#: at least two draws, below that the interval is Monte-Carlo noise
MIN_DRAWS = 100


def check_count(value: Any, field: str, minimum: int = 1) -> int:
    """``value`` as an int when it is a whole number >= ``minimum`` (a Python or numpy
    integer, not a bool or a float), else one :class:`InputError` naming ``field``.
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise InputError(
            f"{field} must be an integer >= {minimum}; got {value!r}", field=field, value=value
        )
    return int(value)


def check_seed(seed: Any) -> int | None:
    """``random_seed`` as None or an int in [0, 2**63); anything else is an InputError."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InputError(
            f"random_seed must be None or a non-negative integer; got {seed!r}",
            field="random_seed",
            value=seed,
        )
    if not 0 <= int(seed) < 2**63:
        raise InputError(
            f"random_seed must lie in [0, 2**63); got {int(seed)}",
            field="random_seed",
            value=int(seed),
        )
    return int(seed)


def normalise_method(method: Any) -> Any:
    """``closed-form`` and ``closed_form`` are one method (CLI and API spellings)."""
    return method.replace("-", "_") if isinstance(method, str) else method
