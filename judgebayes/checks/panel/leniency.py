r"""Does each validator's judged rate follow the share valid one to one (the leniency
model's assumption)?

On the annotated generators, the validators' mean logit judged rate against the logit
share valid (:func:`~judgebayes.inference.panel.leniency.leniency_slope`): the leniency
model says the slope is 1 (a validator shifts every generator's share by its leniency);
validators that keep a sensitivity and a specificity across generators give a slope below
1 (0.3 on the cell model's agreeable panels), and there the leniency model's intervals for
an unannotated generator undercover.  One row, the slope against 1 (observed / expected),
from 3 annotated generators on; a data check, so it runs with every panel fit, and only a
leniency fit makes the assumption.
"""

from __future__ import annotations

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]


def _rows(panel, fit=None, *, alpha: float) -> list[dict]:
    from judgebayes.inference.panel.leniency import leniency_slope

    r = leniency_slope(panel.data)
    if r is None:
        return []
    return [
        {
            "unit": f"slope over {r.n_annotated} annotated generators",
            "observed": r.slope,
            "expected": 1.0,
            "p_raw": r.p_value,
            "se": r.se,
            "df": r.df,
        }
    ]


CHECK = register(
    Check(
        "leniency",
        _rows,
        applies_to=("panel",),
        assumption="each validator's judged rate is the share valid shifted on the logit "
        "scale (slope 1 on the annotated generators), as the leniency model says",
        tests=lambda panel, fit: fit.info.get("variant") == "leniency",
    )
)
