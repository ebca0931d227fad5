"""Sampler settings as data: a model's NUTS defaults travel with it (its study variant, or
a bias prior, states them with the measured reason), below the engines that read them.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgebayes.errors import InputError

__all__ = ["SamplerConfig"]


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
