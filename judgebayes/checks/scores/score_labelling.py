r"""Were the labelled rows a random choice of each system's rows, with respect to the
judge's score?  (the scores design)

``labels_only``, ``ppi`` and ``ppi_plus_plus`` take the labels as a simple random sample
of a system's rows; labels drawn more often on some scores bias them.  The closed form
calibrates on the score, so it stays valid when the labelling depended on the score alone
and the labelled scores cover the unlabelled ones (check ``score_range``); ``label_prob=``
states known probabilities and ``labelled_by=`` the columns the labelling followed, and
this check then has no rows.

Per system with two labelled and two unlabelled rows: the two-sample Kolmogorov-Smirnov
test of the labelled rows' scores (their mean over the judges) against the unlabelled
rows'; ``observed`` is the labelled rows' mean score minus the others', ``expected`` 0.
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]

RANDOM_LABELS = ("labels_only", "ppi", "ppi_plus_plus")


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    from judgebayes.inference.scores import score_labelling_pvalues

    d = study.data
    if d.weights is not None:
        return []
    f, lab, ps = d.mean_score, d.labelled, score_labelling_pvalues(d)
    return [
        {
            "unit": f"system {name!r}: labelled rows' scores against the others'",
            "observed": float(f[(d.system == s) & lab].mean() - f[(d.system == s) & ~lab].mean()),
            "expected": 0.0,
            "p_raw": float(ps[s]),
            "n": int(((d.system == s) & lab).sum()),
        }
        for s, name in enumerate(study.systems)
        if not np.isnan(ps[s])
    ]


CHECK = register(
    Check(
        "score_labelling",
        _rows,
        applies_to=("scores",),
        assumption="the labelled rows are a random choice of each system's rows, whatever "
        "their score (label_prob= states known probabilities instead, labelled_by= the "
        "columns the labelling followed)",
        tests=lambda study, fit: fit.method in RANDOM_LABELS,
    )
)
