r"""Are several judges' verdicts independent given the human label?  (labelled items)

The latent-class model of several judges (``nuts`` / ``laplace`` with ``judge=[...]``)
assumes it; the vote-count closed form and ``exact`` do not.  For every system, human label
and pair of judges, the labelled items' 2 x 2 table of the two verdicts: under conditional
independence their odds ratio is 1.  ``observed`` is the share of items the two agree on,
``expected`` the share independence predicts from their marginal rates,
:math:`p_j p_k + (1-p_j)(1-p_k)`; ``p_raw`` is Fisher's exact test.  A pair where a judge
gives one verdict only carries no information (p = 1).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    d = study.data
    rows = []
    for s, name in enumerate(d.systems):
        for h in (1, 0):
            v = d.votes[d.labelled & (d.system == s) & (d.human == h)].astype(bool)
            for j, k in itertools.combinations(range(d.n_judges), 2):
                a, b = v[:, j], v[:, k]
                table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
                informative = a.size > 1 and 0 < a.mean() < 1 and 0 < b.mean() < 1
                pa, pb = (a.mean(), b.mean()) if a.size else (np.nan, np.nan)
                rows.append(
                    {
                        "unit": f"{name}: {d.judges[j]} & {d.judges[k]} | human {h}",
                        "observed": float(np.mean(a == b)) if a.size else np.nan,
                        "expected": float(pa * pb + (1 - pa) * (1 - pb)),
                        "p_raw": float(stats.fisher_exact(table)[1]) if informative else 1.0,
                        "n": int(a.size),
                    }
                )
    return rows


CHECK = register(
    Check(
        "judge_dependence",
        _rows,
        applies_to=("items.judges",),
        assumption="several judges' verdicts are independent given the true label "
        "(the latent-class model of nuts / laplace)",
        tests=lambda study, fit: fit.method in ("nuts", "laplace"),
    )
)
