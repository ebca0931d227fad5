"""The exception and warning hierarchy of judgebayes.

Every error judgebayes raises on purpose is a :class:`JudgeBayesError`; bad user input is
an :class:`InputError` (also a ``ValueError``) that names the ``field`` and the ``value``
it found there.  Every warning it emits on purpose is a :class:`JudgeBayesWarning`, so a
user (or a test suite) can filter or escalate them in one line.  This module imports
nothing from the package: every layer may import it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConvergenceWarning",
    "CountError",
    "EmptyClassError",
    "IdentifiabilityWarning",
    "InputError",
    "JudgeBayesError",
    "JudgeBayesWarning",
    "JudgeNoBetterThanChanceError",
    "LabelError",
    "LaplaceError",
    "LengthMismatchError",
    "MapError",
    "MirrorWarning",
    "NotBetterThanChanceWarning",
    "require_type",
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


class LengthMismatchError(InputError):
    """Arrays that should describe the same items have different lengths."""


class JudgeNoBetterThanChanceError(JudgeBayesError, ValueError):
    """The judge's sensitivity + specificity is not above 1, so it cannot be inverted."""


# ------------------------------------------------------------------ engines
class LaplaceError(JudgeBayesError):
    """The mode could not be found or the Hessian is not negative definite there."""


class MapError(JudgeBayesError):
    """Newton's method did not converge."""


# ------------------------------------------------------------------ warnings
class NotBetterThanChanceWarning(JudgeBayesWarning):
    r"""Some entries had :math:`q_0 + q_1 \\le 1` and were returned as NaN."""


class MirrorWarning(JudgeBayesWarning):
    r"""The data leave more than 1% posterior mass on :math:`q_0 + q_1 < 1` (unrestricted prior)."""


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
