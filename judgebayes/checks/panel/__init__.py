"""The panel family's checks, one module each: :mod:`~.cells` (each cell against the cell
model's posterior predictive) and :mod:`~.leniency` (the validators' judged rates follow
the share valid one to one, as the leniency model says).
"""

from judgebayes.checks.panel import (  # noqa: F401  (each module registers its check)
    cells,
    leniency,
)
