"""The panel family's fit: each generator's precision, with the validators' rates where
the method estimates them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.results import Fit

__all__ = ["PanelFit"]


@dataclass(frozen=True, eq=False)
class PanelFit(Fit):
    """:class:`~judgebayes.results.Fit` of the panel family: each generator's precision.

    ``quantity`` is ``g`` (the generator's precision) over the ``generator`` unit.  Point
    methods (votes, the regression, plug-in) are one-draw posteriors with NaN intervals
    (said in ``notes``); NUTS fits have draws of ``g``, ``tpr`` and ``tnr`` and (cell
    model) ``precision_judged``, the share of valid outputs among the outputs in the panel
    (``fit.interval(var="precision_judged")``); ``info["variant"]`` names the Bayesian
    model (the study class's :attr:`~ValidatorPanel.model_name`).
    """

    family: str = "panel"
    quantity: str = "g"
    unit: str = "generator"

    @property
    def generators(self) -> tuple[str, ...]:
        """Generator names."""
        return self.units

    def _rate(self, var: str) -> np.ndarray | None:
        if var not in self.tree.posterior:
            return None
        return self.estimate(var)

    @property
    def tpr(self) -> np.ndarray | None:
        """Each validator's TPR (posterior mean or point), where the method estimates it."""
        return self._rate("tpr")

    @property
    def tnr(self) -> np.ndarray | None:
        """Each validator's TNR (posterior mean or point), where the method estimates it."""
        return self._rate("tnr")
