"""Notes a family's fits share: rows excluded for lacking a verdict, and intervals that
are a point because the labels agree.
"""

from __future__ import annotations

import numpy as np

__all__ = ["missing_notes", "point_interval_notes"]


def missing_notes(systems, n_missing, what: str) -> tuple[str, ...]:
    """One note per system with rows excluded for lacking ``what`` (counted, not dropped
    silently).
    """
    return tuple(
        f"system {s!r}: {int(nm)} row(s) without {what} are not evaluated items (excluded, "
        "counted here)"
        for s, nm in zip(systems, n_missing, strict=True)
        if nm
    )


def point_interval_notes(systems, se, method: str) -> list[str]:
    """One note per system whose ``method`` variance is 0 because its labels agree: the
    peer's formula then gives a point, which the closed form's floored variance does not.
    """
    return [
        f"system {s!r}: {method}'s variance estimate is 0 (the labels do not vary), so its "
        "interval is a point (the peers' formula; the closed form floors the variance)"
        for s, x in zip(systems, np.atleast_1d(se), strict=True)
        if x == 0
    ]
