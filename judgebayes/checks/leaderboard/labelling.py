r"""Were a judged board's labelled rows a random choice of each system's rows, with respect
to the judge's verdict?  (leaderboards with ``human=``)

The closed form corrects each system by its labelled rows' residuals (:mod:`~judgebayes.
inference.leaderboard.judged`).  With few score values it averages them within each
value, so labels drawn more often where the judge said 1 still give the system's mean as
long as every value a system has carries two labels; where one does not, the system's
residuals are averaged over all its labels, which then must be a random choice of its
rows.  The Bayesian models read each system's sensitivity and specificity off its labelled
rows as a random choice of them, so labels drawn by the verdict bias those too.  And
labels drawn by something else the judge follows (an answer's length) bias
the correction even within each verdict.  This check tests both: per system with two
labelled and two unlabelled rows, labelled against unlabelled rows' scores (Fisher's
exact test for 0/1 verdicts, the chi-square test of the score values' counts for a few
values, else the two-sample Kolmogorov-Smirnov test), and the same for every other
numeric column of the frame (the Kolmogorov-Smirnov test of the labelled rows' values
against the others').  ``observed`` is the labelled rows' mean minus the others',
``expected`` 0.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "labelling_pvalues"]


def labelling_pvalues(x: np.ndarray, labelled: np.ndarray, continuous: bool = False) -> np.ndarray:
    """(S,) p-values of "the labelled cells' values are distributed as the others'" for
    (S, I) values ``x`` (a judge's scores, or another column's) and labelled booleans
    (NaN where a side has under 2 cells); ``continuous``: always Kolmogorov-Smirnov.
    """
    out = np.full(x.shape[0], np.nan)
    values = np.unique(x[np.isfinite(x)])
    if continuous:
        values = np.arange(11)  # more than ten: the Kolmogorov-Smirnov test
    for s in range(x.shape[0]):
        ok = np.isfinite(x[s])
        a, b = x[s, labelled[s] & ok], x[s, ~labelled[s] & ok]
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
    lab = ~np.isnan(d.labels[:, full])
    columns = {"judge's scores": d.scores, **d.row_columns}
    rows = []
    for what, values in columns.items():
        x = values[:, full]
        ps = labelling_pvalues(x, lab, continuous=what != "judge's scores")
        rows += [
            {
                "unit": f"system {name!r}: labelled rows' {what} against the others'",
                "observed": float(np.nanmean(x[s, lab[s]]) - np.nanmean(x[s, ~lab[s]])),
                "expected": 0.0,
                "p_raw": float(ps[s]),
                "n": int(lab[s].sum()),
                "column": what,
            }
            for s, name in enumerate(d.systems)
            if not np.isnan(ps[s])
        ]
    return rows


CHECK = register(
    Check(
        "board_labelling",
        _rows,
        applies_to=("leaderboard",),
        assumption="each system's labelled rows are a random choice of its rows, whatever "
        "the judge's verdict (within each score value, for a judge of few values)",
    )
)
