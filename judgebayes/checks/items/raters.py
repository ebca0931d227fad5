r"""Do the human raters agree enough for their labels to stand for the truth?  (several raters)

With ``human=[...]`` and ``truth="majority"`` every method takes the raters' majority label
as the truth; when the raters barely agree, that label is noise and so is any claim read off
it.  The statistic is the raters' Krippendorff alpha (nominal) on the items two or more of
them rated, with Gwet's linearised standard error (cluster-robust with ``cluster=``); the
one-sided p-value of :math:`H_0: \alpha \ge` :data:`MIN_ALPHA` is
:math:`F_{t,\,df}((\hat\alpha - \alpha_0) / \mathrm{se})`, so the check flags raters who
agree significantly less than Krippendorff's bar for tentative conclusions.

It fails the fits that take the majority as the truth; the latent-truth model
(``truth="latent"``) models each rater's errors instead, so there the row is a warning
(low agreement then shows as a wide interval, not a biased one).
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "MIN_ALPHA"]

#: Krippendorff's lowest alpha for drawing tentative conclusions from labels (2004, p. 241)
MIN_ALPHA = 0.667


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    from scipy import stats

    from judgebayes.data.agreement import rating_counts
    from judgebayes.inference.agreement import coefficients as ag

    d = study.data
    raters = getattr(d, "raters", None)
    if raters is None:
        return []
    codes = np.where(np.isnan(raters), -1, raters).astype(np.int64)
    counts = rating_counts(codes, 2)
    if (counts.sum(axis=1) >= 2).sum() < 3 or counts.sum(axis=0).min() == 0:
        return []
    est = ag.krippendorff_terms(counts, np.array([0.0, 1.0]), "nominal")
    var, df = ag.linearized_variance(est, d.cluster)
    se = float(np.sqrt(var))
    p = float(stats.t.cdf((est.estimate - MIN_ALPHA) / se, df)) if se > 0 else 0.5
    return [
        {
            "unit": f"raters {', '.join(d.rater_names)}: Krippendorff's alpha",
            "observed": est.estimate,
            "expected": MIN_ALPHA,
            "p_raw": p,
            "n": int(est.used.sum()),
            "se": se,
        }
    ]


CHECK = register(
    Check(
        "label_agreement",
        _rows,
        applies_to=("items",),
        assumption=(
            f"the human raters agree at least at Krippendorff's alpha {MIN_ALPHA} (their "
            "majority label can stand for the truth)"
        ),
        tests=lambda study, fit: getattr(study.data, "truth", "human") == "majority",
    )
)
