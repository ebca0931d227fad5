r"""Do the labelled rows' scores cover the unlabelled rows'?  (the scores design)

A calibration learnt on the labelled rows says nothing of scores it never saw: labels
drawn only on high scores leave the low ones to an extrapolation (isotonic regression holds
its last value; the ordinal model its line), and the system's mean can be off by far more
than its interval.  Exchangeable labelled and unlabelled rows put an unlabelled row outside
the range of :math:`n` labelled scores with chance :math:`2/(n+1)`; ``p_raw`` is the
binomial tail of the unlabelled rows found outside (pooled over systems, as the
calibration is), ``observed`` their share and ``expected`` :math:`2/(n+1)`.
"""

from __future__ import annotations

from scipy import stats

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    d = study.data
    f, lab = d.mean_score, d.labelled
    n, u = int(lab.sum()), f[~lab]
    if n < 2 or u.size == 0:
        return []
    outside = int(((u < f[lab].min()) | (u > f[lab].max())).sum())
    chance = 2.0 / (n + 1)
    return [
        {
            "unit": "unlabelled rows scored outside the labelled scores' range "
            f"[{f[lab].min():g}, {f[lab].max():g}]",
            "observed": outside / u.size,
            "expected": chance,
            "p_raw": float(stats.binom.sf(outside - 1, u.size, chance)),
            "n": int(u.size),
        }
    ]


CHECK = register(
    Check(
        "score_range",
        _rows,
        applies_to=("scores",),
        assumption="the labelled rows' scores cover the unlabelled rows' (the calibration "
        "is not extrapolated)",
        tests=lambda study, fit: fit.method in ("closed_form", "nuts"),
    )
)
