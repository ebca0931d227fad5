"""A study class's method table: methods by name, inherited along the class hierarchy.

:class:`Methods` maps names to :class:`Method` (a registered callable and what it is) for
one study class, its parent's table included; a class may add a method, replace an
inherited one or refuse it (:class:`Refusal`, with the reason and what to use instead).
:mod:`judgebayes.studies.base` gives every study class its table.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from judgebayes.errors import InputError, MethodRefused, unknown_keyword
from judgebayes.inference.registry import normalise_method

__all__ = ["Method", "Methods", "Refusal"]


@functools.cache
def _keywords(fn: Callable) -> tuple[str, ...]:
    """The keyword-only parameters of method ``fn`` (its first parameter is the study)."""
    params = list(inspect.signature(fn).parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if not params or params[0].kind not in positional:
        raise TypeError(f"method {fn.__qualname__} must take the study first")
    bad = [p.name for p in params[1:] if p.kind != p.KEYWORD_ONLY]
    if bad:
        raise TypeError(f"method {fn.__qualname__}: options must be keyword-only; {bad} are not")
    return tuple(p.name for p in params[1:])


@dataclass(frozen=True)
class Method:
    """One method: its name, the callable that fits, and what it is.

    ``options`` (the keywords ``fit`` accepts for it) are read from the callable's
    signature: its keyword-only parameters, ``random_seed`` aside.
    """

    name: str
    fn: Callable[..., Any]  # returns the study's FitParts
    engine: str
    summary: str = ""
    mcmc: bool = False

    @property
    def options(self) -> tuple[str, ...]:
        """The keywords this method takes besides ``random_seed``."""
        return tuple(k for k in _keywords(self.fn) if k != "random_seed")

    def check_options(self, options: Mapping[str, Any]) -> None:
        """An :class:`InputError` naming a keyword this method does not take."""
        unknown_keyword(f"method {self.name!r}", options, {"random_seed", *self.options})


@dataclass(frozen=True)
class Refusal:
    """A method a study class does not offer: why (and what to use), and what of the data
    or design it refuses (``field``).
    """

    reason: str
    field: str = "method"


class Methods(Mapping):
    """The methods of one study class by name, its parent's included (``-`` and ``_``
    spell the same).  A name the class refuses maps to nothing here and is listed, with
    its reason, in :attr:`refused`.
    """

    def __init__(self, owner: str, parent: Methods | None = None):
        self.owner, self.parent = owner, parent
        self._own: dict[str, Method | Refusal] = {}

    def _lookup(self, name: str) -> Method | Refusal | None:
        if name in self._own:
            return self._own[name]
        return None if self.parent is None else self.parent._lookup(name)

    def _names(self) -> list[str]:
        names = [] if self.parent is None else self.parent._names()
        return names + [n for n in self._own if n not in names]

    def __getitem__(self, name: str) -> Method:
        found = self._lookup(name)
        if not isinstance(found, Method):
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return (n for n in self._names() if isinstance(self._lookup(n), Method))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    @property
    def refused(self) -> dict[str, str]:
        """Methods of the family this class does not offer, with the reason."""
        out = {}
        for n in self._names():
            found = self._lookup(n)
            if isinstance(found, Refusal):
                out[n] = found.reason
        return out

    def register(self, name: str, *, engine: str, summary: str = "", mcmc: bool = False):
        """Decorator: register ``fn(study, *, random_seed=None, **options) -> FitParts``
        (replacing an inherited method or refusal of that name).
        """

        def deco(fn):
            if "random_seed" not in _keywords(fn):
                raise TypeError(f"method {fn.__qualname__} must take random_seed")
            self._own[name] = Method(name, fn, engine, summary, mcmc)
            return fn

        return deco

    def refuse(self, name: str, reason: str, *, field: str = "method") -> None:
        """``name`` is not offered here, and ``reason`` says why and what to use; ``field``
        names what of the data or design it refuses (default: the method itself).
        """
        self._own[name] = Refusal(reason, field)

    def resolve(self, method: Any) -> Method:
        """The method of that name; an :class:`InputError` for a name no class of the
        family knows, a :class:`~judgebayes.errors.MethodRefused` for one this class refuses.
        """
        name = normalise_method(method)
        found = self._lookup(name) if isinstance(name, str) else None
        if isinstance(found, Refusal):
            raise MethodRefused(found.reason, method=name, field=found.field, value=method)
        if found is None:
            raise InputError(
                f"method must be one of {tuple(self)} ({self.owner}); got {method!r}",
                field="method",
                value=method,
            )
        return found

    def describe(self) -> str:
        """One line per method: name, summary, engine, options; then the refusals."""
        lines = [
            f"{m.name}: {m.summary} [{m.engine}] options: {', '.join(m.options) or '-'}"
            for m in self.values()
        ]
        return "\n".join(lines + [f"{n}: refused ({r})" for n, r in self.refused.items()])
