r"""The judged counts against a fit's posterior predictive (two frames).

Per system, the observed judged count against its replicates from the fit's draws
(``study.judged_replicates``: the binary model's judged rate :math:`p`, or the strata
model's per-stratum rates), with the two-sided predictive p-value.  Each system's rate is
free, so the model fits these counts by construction: the check finds sampler or
data-entry problems, not a wrong model (``transfer`` tests the assumption that matters).
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]


def _rows(study, fit, *, alpha: float, random_seed: int = 0) -> list[dict]:
    rep, k = study.judged_replicates(fit, np.random.default_rng(random_seed))
    rows = []
    for i, s in enumerate(study.systems):
        r = rep[:, i]
        rows.append(
            {
                "unit": s,
                "observed": int(k[i]),
                "expected": float(r.mean()),
                "lower": float(np.quantile(r, 0.025)),
                "upper": float(np.quantile(r, 0.975)),
                "p_raw": float(min(1.0, 2 * min((r >= k[i]).mean(), (r <= k[i]).mean()))),
            }
        )
    return rows


CHECK = register(
    Check(
        "ppc",
        _rows,
        applies_to=("accuracy.binary", "accuracy.strata"),
        assumption="the fit reproduces the judged counts it was given (sampler, data entry)",
        needs="draws",
        accepts=lambda fit: "p" in fit.tree.posterior or "theta_stratum" in fit.tree.posterior,
    )
)
