r"""Were the labelled rows a random choice of each system's rows, with respect to the
judge's score?  (the scores design)

``labels_only``, ``ppi`` and ``ppi_plus_plus`` take the labels as a simple random sample
of a system's rows; labels drawn more often on some scores bias them.  The closed form
calibrates on the score, so it stays valid when the labelling depended on the score alone
and the labelled scores cover the unlabelled ones (check ``score_range``); ``label_prob=``
states known probabilities, and this check then has no rows.

Per system with two labelled and two unlabelled rows: the two-sample Kolmogorov-Smirnov
test of the labelled rows' scores (their mean over the judges) against the unlabelled
rows'; ``observed`` is the labelled rows' mean score minus the others', ``expected`` 0.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]

RANDOM_LABELS = ("labels_only", "ppi", "ppi_plus_plus")


def mean_scores(data) -> np.ndarray:
    """Each row's score, averaged over the judges."""
    return np.asarray(data.score, float).reshape(len(data.system), -1).mean(axis=1)


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    d = study.data
    if d.weights is not None:
        return []
    f, lab = mean_scores(d), d.labelled
    rows = []
    for s, name in enumerate(study.systems):
        mine = d.system == s
        a, b = f[mine & lab], f[mine & ~lab]
        if a.size < 2 or b.size < 2 or np.ptp(f[mine]) == 0:
            continue
        rows.append(
            {
                "unit": f"system {name!r}: labelled rows' scores against the others'",
                "observed": float(a.mean() - b.mean()),
                "expected": 0.0,
                "p_raw": float(stats.ks_2samp(a, b).pvalue),
                "n": int(a.size),
            }
        )
    return rows


CHECK = register(
    Check(
        "score_labelling",
        _rows,
        applies_to=("scores",),
        assumption="the labelled rows are a random choice of each system's rows, whatever "
        "their score (label_prob= states known probabilities instead)",
        tests=lambda study, fit: fit.method in RANDOM_LABELS,
    )
)
