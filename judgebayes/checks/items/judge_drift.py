r"""Did the judge's sensitivity or specificity change over the periods?  (items over time)

With ``time=`` the periods are the strata: every method estimates each period on its own
labels, and the model over time lets the judge's rates walk, so no fit here assumes the
judge stood still and the row is a warning.  It says whether, and from when, the judge
changed: the betting test of :func:`~judgebayes.inference.sequences.drift_alarm` against
the first :data:`REFERENCE` periods, whose p-value (the smallest level at which it alarms,
:func:`~judgebayes.inference.sequences.drift_pvalue`) is valid however many periods the log
has and however often it was looked at.
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "REFERENCE"]

#: periods whose judge rates the later ones are compared with
REFERENCE = 4


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    from judgebayes.inference import sequences as sq

    d = study.data
    P = len(d.strata)
    if P <= REFERENCE:
        return []
    period = np.asarray(d.stratum, dtype=np.int64)
    p = sq.drift_pvalue(period, d.judge, d.human, P, REFERENCE)
    alarm = sq.drift_alarm(period, d.judge, d.human, P, alpha, REFERENCE)
    first = np.flatnonzero(alarm["alarm"])
    where = d.strata[int(first[0])] if first.size else None
    lab = d.labelled
    hits = (d.judge[lab] >= 0.5) == (d.human[lab] >= 0.5)
    ref = period[lab] < REFERENCE
    return [
        {
            "unit": f"the judge over {P} periods ({d.columns.get('time')})"
            + (f": {alarm['which'][int(first[0])]} by period {where}" if where else ""),
            "observed": float(hits[~ref].mean()) if (~ref).any() else float("nan"),
            "expected": float(hits[ref].mean()) if ref.any() else float("nan"),
            "p_raw": p,
            "n": int(lab.sum()),
        }
    ]


CHECK = register(
    Check(
        "judge_drift",
        _rows,
        applies_to=("items.over_time",),
        assumption=(
            f"the judge's sensitivity and specificity stay as in the first {REFERENCE} "
            "periods (observed / expected: its agreement with the labels after / in them)"
        ),
        tests=lambda study, fit: False,
    )
)
