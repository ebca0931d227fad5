"""The exception and warning hierarchy of judgebayes.

Every error judgebayes raises on purpose is a :class:`JudgeBayesError`; bad user input is
an :class:`InputError` (also a ``ValueError``) that names the ``field`` and the ``value``
it found there.  Every warning it emits on purpose is a :class:`JudgeBayesWarning`, so a
user (or a test suite) can filter or escalate them in one line.  This module imports
nothing from the package: every layer may import it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "ClusteringWarning",
    "ConvergenceWarning",
    "CountError",
    "DataNotFoundError",
    "EmptyClassError",
    "FewClustersWarning",
    "IdentifiabilityWarning",
    "InputError",
    "JudgeBayesError",
    "JudgeBayesWarning",
    "JudgeNoBetterThanChanceError",
    "LabelError",
    "LabellingWarning",
    "LaplaceError",
    "LengthMismatchError",
    "MapError",
    "MethodRefused",
    "MirrorWarning",
    "NotBetterThanChanceWarning",
]


class JudgeBayesError(Exception):
    """Base class of every error judgebayes raises on purpose."""


class JudgeBayesWarning(UserWarning):
    """Base class of every warning judgebayes emits on purpose."""


class InputError(JudgeBayesError, ValueError):
    """Bad user input; ``field`` names where it was found, ``value`` what it was."""

    def __init__(self, message: str, *, field: str | None = None, value: Any = None):
        super().__init__(message)
        self.field = field
        self.value = value


class LabelError(InputError):
    """A label that is neither positive, negative nor missing."""

    def __init__(self, column: str, value: Any, count: int, allowed: str):
        msg = (
            f"column {column!r}: unknown label {value!r} in {count} row(s); "
            f"expected {allowed} (pass positive=... to map other labels)"
        )
        super().__init__(msg, field=column, value=value)
        self.count = count


class CountError(InputError):
    """A count that is negative, not an integer, or larger than its total."""


class EmptyClassError(CountError):
    """A calibration class (truly positive or truly negative) without any example."""


class DataNotFoundError(InputError):
    """The real data folder (or a file of it) is not where it was looked for."""


class LengthMismatchError(InputError):
    """Arrays that should describe the same items have different lengths."""


class JudgeNoBetterThanChanceError(JudgeBayesError, ValueError):
    """The judge's sensitivity + specificity is not above 1, so it cannot be inverted."""


# ------------------------------------------------------------------ refusals
class MethodRefused(JudgeBayesError, ValueError):
    """A method that cannot serve these data, which are valid: a model it does not have, an
    approximation its own check rejects, a design it would ignore.  Not bad input: another
    method answers (``compare()`` shows it as a row with this reason; the CLI exits 1).

    ``field`` and ``value`` name what in the data or the options it refuses, when one thing
    does; ``method`` the method refused.
    """

    def __init__(
        self, message: str, *, method: str | None = None, field: str | None = None, value=None
    ):
        super().__init__(message)
        self.method, self.field, self.value = method, field, value


class LaplaceError(MethodRefused):
    """The mode could not be found, the Hessian is not negative definite there, or the
    importance check rejects the Gaussian: the Laplace approximation refuses these data.
    """


class MapError(MethodRefused):
    """Newton's method did not converge."""


# ------------------------------------------------------------------ warnings
class NotBetterThanChanceWarning(JudgeBayesWarning):
    r"""Some entries had :math:`q_0 + q_1 \\le 1` and were returned as NaN."""


class MirrorWarning(JudgeBayesWarning):
    r"""The data leave more than 1% posterior mass on :math:`q_0 + q_1 < 1` (unrestricted prior)."""


class FewClustersWarning(JudgeBayesWarning):
    """Fewer than about 10 clusters: cluster-robust variances rest on very few sums."""


class ClusteringWarning(JudgeBayesWarning):
    """The items look grouped by a column not declared as ``cluster=``."""


class LabellingWarning(JudgeBayesWarning):
    """The labelled items differ from the unlabelled ones within the design's cells."""


class IdentifiabilityWarning(JudgeBayesWarning):
    """The design cannot separate some parameters; the prior alone decides them."""


class ConvergenceWarning(JudgeBayesWarning):
    """A NUTS fit failed the convergence gate (R-hat, ESS or divergences)."""


def require_type(value: Any, expected: type, field: str, hint: str = "") -> Any:
    """``value`` if it is an ``expected``, else an :class:`InputError` naming the field.

    ``hint`` says how to make one (e.g. "use from_frames / from_arrays").
    """
    if not isinstance(value, expected):
        raise InputError(
            f"{field} must be {expected.__name__}{' (' + hint + ')' if hint else ''}; got "
            f"{type(value).__name__}",
            field=field,
            value=type(value).__name__,
        )
    return value


def check_choice(value, choices, field: str, what: str) -> None:
    """An :class:`InputError` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise InputError(
            f"unknown {what} {value!r}; choose one of {list(choices)}", field=field, value=value
        )


@functools.cache
def _keyword_names(fn: Callable) -> tuple[str, ...]:
    params = inspect.signature(fn).parameters.values()
    return tuple(p.name for p in params if p.kind == p.KEYWORD_ONLY)


def unknown_keyword(where: str, kwargs: Mapping[str, Any], valid: set[str]) -> None:
    """An :class:`InputError` naming the first keyword of ``kwargs`` not in ``valid``."""
    bad = sorted(set(kwargs) - valid)
    if bad:
        raise InputError(
            f"{where} takes no keyword {bad[0]!r}; it takes: {', '.join(sorted(valid))}",
            field=bad[0],
            value=kwargs[bad[0]],
        )


def route_keywords(where: str, kwargs: Mapping[str, Any], *targets: Callable) -> list[dict]:
    """Split ``kwargs`` among ``targets`` by their keyword-only parameters.

    A keyword no target takes is an :class:`InputError` that names it and lists the valid
    ones, so a constructor that passes keywords on never fails later with a bare TypeError.
    """
    names = [_keyword_names(t) for t in targets]
    unknown_keyword(where, kwargs, {n for ns in names for n in ns})
    return [{k: v for k, v in kwargs.items() if k in ns} for ns in names]


def keywords_checked(fn: Callable) -> Callable:
    """Refuse an unknown keyword of ``fn`` with an :class:`InputError` listing the valid ones."""
    params = inspect.signature(fn).parameters.values()
    valid = {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    valid -= {"cls", "self"}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        unknown_keyword(fn.__qualname__, kwargs, valid)
        return fn(*args, **kwargs)

    return wrapper
