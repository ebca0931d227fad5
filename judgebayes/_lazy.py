"""Lazy public namespaces: a module lists ``name -> defining module`` and imports each
defining module on the name's first use, so ``import judgebayes.plan`` costs nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_namespace(
    namespace: str, exports: Mapping[str, str], submodules: tuple[str, ...] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for module ``namespace`` whose public names are
    ``exports`` (each defined in the module it maps to) and whose ``submodules`` load on
    first use.
    """
    module = importlib.import_module(namespace)

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
            setattr(module, name, value)  # cache: later look-ups skip __getattr__
            return value
        if name in submodules:
            return importlib.import_module(f"{namespace}.{name}")
        raise AttributeError(f"module {namespace!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(exports) | set(submodules))

    return __getattr__, __dir__
