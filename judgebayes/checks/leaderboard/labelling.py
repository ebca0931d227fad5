r"""Were a judged board's labelled rows a random choice of each system's rows, with respect
to the judge's verdict?  (leaderboards with ``human=``)

The closed form corrects each system by its labelled rows' residuals (:mod:`~judgebayes.
inference.leaderboard.judged`).  With few score values it averages them within each
value, so labels drawn more often where the judge said 1 still give the system's mean as
long as every value a system has carries two labels; where one does not, the system's
residuals are averaged over all its labels, which then must be a random choice of its
rows.  This check tests that choice: per system with two labelled and two unlabelled
rows, labelled against unlabelled rows' scores, Fisher's exact test for 0/1 verdicts,
the chi-square test of the score values' counts for a few values, else the two-sample
Kolmogorov-Smirnov test.  ``observed`` is the labelled rows' mean score minus the
others', ``expected`` 0.  A labelling that followed something else the judge follows
(an answer's length) shows here too, through the verdicts.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "labelling_pvalues"]


def labelling_pvalues(x: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """(S,) p-values of "the labelled cells' scores are distributed as the others'" for
    (S, I) judge scores ``x`` and labelled booleans (NaN where a side has under 2 cells).
    """
    out = np.full(x.shape[0], np.nan)
    values = np.unique(x)
    for s in range(x.shape[0]):
        a, b = x[s, labelled[s]], x[s, ~labelled[s]]
        if a.size < 2 or b.size < 2:
            continue
        if values.size == 2:
            table = [[np.sum(a == values[1]), np.sum(a == values[0])],
                     [np.sum(b == values[1]), np.sum(b == values[0])]]  # fmt: skip
            out[s] = stats.fisher_exact(table).pvalue
        elif values.size <= 10:
            counts = np.array([[np.sum(a == v), np.sum(b == v)] for v in values])
            counts = counts[counts.sum(axis=1) > 0]
            out[s] = stats.chi2_contingency(counts)[1] if counts.shape[0] > 1 else 1.0
        else:
            out[s] = stats.ks_2samp(a, b).pvalue
    return out


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    d = study.data
    if not d.judged:
        return []
    full = d.complete_items()
    x = d.scores[:, full]
    lab = ~np.isnan(d.labels[:, full])
    ps = labelling_pvalues(x, lab)
    return [
        {
            "unit": f"system {name!r}: labelled rows' scores against the others'",
            "observed": float(x[s, lab[s]].mean() - x[s, ~lab[s]].mean()),
            "expected": 0.0,
            "p_raw": float(ps[s]),
            "n": int(lab[s].sum()),
        }
        for s, name in enumerate(d.systems)
        if not np.isnan(ps[s])
    ]


CHECK = register(
    Check(
        "board_labelling",
        _rows,
        applies_to=("leaderboard",),
        assumption="each system's labelled rows are a random choice of its rows, whatever "
        "the judge's verdict (within each score value, for a judge of few values)",
        tests=lambda study, fit: fit.method in ("closed_form", "bootstrap"),
    )
)
