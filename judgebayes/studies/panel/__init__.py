"""Generator x validator panels: :mod:`~.base` (the study and its fit), :mod:`~.methods`
(votes, the regression, the Bayesian models) and :mod:`~.crossval` (leave-s-out).
"""

from judgebayes.studies.panel import crossval, methods  # noqa: F401  (register on the study)
from judgebayes.studies.panel.base import VARIANTS, PanelFit, ValidatorPanel

__all__ = ["VARIANTS", "PanelFit", "ValidatorPanel"]
