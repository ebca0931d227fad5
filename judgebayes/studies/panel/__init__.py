"""Generator x validator panels: :mod:`~.base` (the study's door), :mod:`~.fit` (its fit),
one module per Bayesian model (:mod:`~.cells`, :mod:`~.leniency`), :mod:`~.methods` (votes,
the regression, NUTS) and :mod:`~.crossval` (leave-s-out).
"""

from judgebayes.studies.panel import crossval, methods  # noqa: F401  (register on the study)
from judgebayes.studies.panel.base import ValidatorPanel
from judgebayes.studies.panel.cells import HierarchicalPanel, OverdispersedPanel, PooledPanel
from judgebayes.studies.panel.fit import PanelFit
from judgebayes.studies.panel.leniency import LeniencyPanel

__all__ = [
    "HierarchicalPanel",
    "LeniencyPanel",
    "OverdispersedPanel",
    "PanelFit",
    "PooledPanel",
    "ValidatorPanel",
]
