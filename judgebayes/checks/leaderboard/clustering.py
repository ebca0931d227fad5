r"""Are a leaderboard's items grouped by a column the user has not declared?  (clustering)

The closed form and the bootstrap take the items as a sample of independent items unless
``cluster=`` names their groups.  Items of one subtask, source or template move together
(a subtask is hard for every system, or for some), and then every interval and rank
claim is too narrow: with 15 subtasks undeclared, simulated boards' rank intervals
covered every true rank on 0.82 of boards and each system's interval 0.54.

The board's reader keeps, when ``cluster=`` is not given, every other column of the frame
that is constant within each item and takes 2 to :math:`I/2` values (a candidate
grouping).  Per candidate, two F-tests on the (systems x items) scores: the items' mean
over the systems between groups (the groups differ in difficulty), and the systems x
groups interaction of the two-way residuals (the groups favour some systems); the
smaller p-value, doubled, is the row's.  ``observed`` is the larger F ratio, ``expected``
1.  A flag says the items are grouped by the column: if its groups are a sample of the
groups the benchmark could have drawn (subtasks, sources), declare it as ``cluster=``;
if they are the benchmark's fixed strata, the intervals are already conservative.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "grouping_pvalue"]


def grouping_pvalue(x: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    """(p-value, larger F ratio) of items grouped by ``group`` in the (S, I) scores ``x``
    (module docstring).
    """
    x = np.asarray(x, float)
    S, n_items = x.shape
    codes = np.unique(group, return_inverse=True)[1]
    G = int(codes.max()) + 1
    if G < 2 or G >= n_items:
        return float("nan"), float("nan")
    size = np.bincount(codes, minlength=G)
    m = x.mean(axis=0)
    gm = np.bincount(codes, weights=m, minlength=G) / size
    between = float((size * (gm - m.mean()) ** 2).sum()) / (G - 1)
    within = float(((m - gm[codes]) ** 2).sum()) / (n_items - G)
    f1 = between / within if within > 0 else (np.inf if between > 0 else 0.0)
    p1 = float(stats.f.sf(f1, G - 1, n_items - G)) if np.isfinite(f1) else 0.0
    p, f = p1, f1
    if S > 1:
        e = x - x.mean(axis=1, keepdims=True) - m[None, :] + x.mean()
        eg = np.stack([np.bincount(codes, weights=row, minlength=G) for row in e]) / size
        ss_int = float((size * eg**2).sum())
        ss_within = float((e**2).sum()) - ss_int
        df1, df2 = (S - 1) * (G - 1), (S - 1) * (n_items - G)
        f2 = (ss_int / df1) / (ss_within / df2) if ss_within > 0 else np.inf
        p2 = float(stats.f.sf(f2, df1, df2)) if np.isfinite(f2) else 0.0
        p, f = min(p1, p2), max(f1, f2)
    return min(1.0, 2 * p), float(f)


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    d = study.data
    if d.clusters or not d.item_groups:
        return []
    full = d.complete_items()
    x = d.scores[:, full]
    rows = []
    for col, codes in d.item_groups.items():
        p, f = grouping_pvalue(x, np.asarray(codes)[full])
        if np.isnan(p):
            continue
        rows.append(
            {
                "unit": f"items grouped by column {col!r} ({np.unique(codes).size} groups)",
                "observed": f,
                "expected": 1.0,
                "p_raw": p,
                "column": col,
            }
        )
    return rows


CHECK = register(
    Check(
        "undeclared_clusters",
        _rows,
        applies_to=("leaderboard",),
        assumption="the items are independent draws (no subtask, source or template they "
        "share, unless it is declared as cluster=)",
        tests=lambda study, fit: fit.method in ("closed_form", "bootstrap"),
    )
)
