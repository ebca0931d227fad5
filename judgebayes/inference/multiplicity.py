"""Multiple testing: Holm's step-down adjustment, shared by the checks and the
leaderboard's claims.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["holm"]


def holm(p_raw: Any) -> np.ndarray:
    """Holm's step-down adjusted p-values of ``p_raw`` (NaN stays NaN)."""
    p = np.asarray(p_raw, float)
    if p.size <= 1:  # one test (or none): nothing to adjust (runs with every items fit)
        return np.minimum(p, 1.0)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if ok.size:
        order = ok[np.argsort(p[ok], kind="stable")]
        m = order.size
        steps = np.minimum(1.0, (m - np.arange(m)) * p[order])
        out[order] = np.maximum.accumulate(steps)
    return out
