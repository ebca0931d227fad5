"""What a NUTS fit is asked for: the model spec, and the switches of the engine
(interpreted evaluation, the engines' own warnings).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgebayes.errors import ConvergenceWarning, MirrorWarning
from judgebayes.inference.registry import SamplerConfig


@contextmanager
def interpreted():
    """Compile nothing inside: PyTensor functions made in this block run NumPy per node.

    Yields the compile keywords (``mode``).  PyTensor's FAST_COMPILE still builds C modules
    for the ops that have them and links inner graphs with them (slow on a machine whose
    cache is empty), and the default linker compiles with Numba (per model structure);
    with no C compiler configured, neither happens.  The flag is
    process-wide while the block runs: a function another thread compiles meanwhile is
    interpreted too (slower, the same numbers).
    """
    import pytensor
    from pytensor.compile.mode import Mode

    with pytensor.config.change_flags(cxx=""):
        yield {"mode": Mode(linker="vm", optimizer="fast_compile")}


@contextmanager
def quiet_engine_warnings():
    """For the CLI and the demo: silence PyTensor's BLAS notice, the gate's and the mirror's
    warnings.

    Callers that use it report ``fit.diagnostics`` themselves (one line per failed fit),
    so a failed gate is still said, once, in their own format.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*BLAS.*")
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", MirrorWarning)  # in fit.notes / info["p_mirror"]
        yield


@dataclass(frozen=True)
class ModelSpec:
    """What to build: ``builder(**data, **structure)`` returns a ``pm.Model``.

    ``data`` holds the arguments that may change between fits without recompiling;
    ``structure`` the ones that define the model's graph (coords, design, priors).
    ``var_names`` are the reported variables (checked by the gate).  ``density``
    (optional) returns the same model's log density in numpy (``x0``, ``logp``, ``grad``,
    ``expand``, ``dims``, ``coords``: e.g.
    :class:`~judgebayes.models.items.ItemsLogDensity`); the Laplace engine then uses
    it instead of compiling the PyTensor graph.  ``sampler`` is the model's own NUTS
    default (its variant states it with the measured reason); a fit's ``sampler=`` updates it.
    """

    builder: Callable[..., Any]
    data: dict[str, Any]
    structure: dict[str, Any]
    var_names: tuple[str, ...]
    init: dict[str, Any] | None = None
    density: Callable[[], Any] | None = None
    sampler: SamplerConfig = field(default_factory=SamplerConfig)

    def build(self):
        """A fresh ``pm.Model``."""
        return self.builder(**self.data, **self.structure)

    def key(self) -> tuple:
        """Hashable identity of the compiled graph."""
        return (
            self.builder.__module__,
            self.builder.__qualname__,
            tuple(sorted((k, repr(v)) for k, v in self.structure.items())),
            tuple(sorted((k, np.shape(v)) for k, v in self.data.items())),
        )
