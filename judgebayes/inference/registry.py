"""Sampler settings as data, and the checks every method's arguments share.

Which methods a study offers lives with the study (``study.methods``, a table of
registered callables: :mod:`judgebayes.studies.base`); this module holds what those
methods share and what the engines read:

* :class:`SamplerConfig`, one fit's NUTS settings.  Each model's default travels with its
  :class:`~judgebayes.inference.nuts.ModelSpec` (the study variant that builds the spec
  states it, with the measured reason).  A fit takes
  ``sampler=SamplerConfig(...)`` or a mapping of the fields to change
  (``sampler={"draws": 500}``); the settings used are written into ``fit.tree.attrs``.
  The seed is the fit's ``random_seed`` argument (DESIGN: every sampling call takes one).
* :func:`check_count` and :func:`check_seed`: the one way an integer count or a seed is
  validated, so ``draws=2.5`` is refused by name in every engine.
* :func:`normalise_method`: ``closed-form`` (the CLI's spelling) is ``closed_form``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

import numpy as np

from judgebayes.errors import InputError
from judgebayes.models.sampler import SamplerConfig

__all__ = [
    "SamplerConfig",
    "check_count",
    "check_seed",
    "normalise_method",
    "resolve_sampler",
]


def resolve_sampler(
    base: SamplerConfig, sampler: SamplerConfig | Mapping[str, Any] | None
) -> SamplerConfig:
    """The sampler settings of one fit: the model's default ``base``, updated by
    ``sampler`` (a :class:`SamplerConfig` replaces it, a mapping changes its fields).
    """
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
