r"""The cell model of a panel (:func:`~judgebayes.models.panel.panel_cell_model`), one
class per structure: logit-normal hierarchies over validators, with or without a
generator-level shift of the validators' rates and with or without overdispersion.

:class:`HierarchicalPanel` (rate shifts) is the panel's default model; the others are
reached by their class (``PooledPanel.from_frames(...)``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from judgebayes.data.panel import PanelData
from judgebayes.models.panel import panel_cell_model
from judgebayes.studies.panel.base import ValidatorPanel

__all__ = ["CellPanel", "HierarchicalPanel", "OverdispersedPanel", "PooledPanel"]


class CellPanel(ValidatorPanel):
    """The cell model's variants (this class asked for: the hierarchical one)."""

    abstract = True
    builder: ClassVar[Any] = staticmethod(panel_cell_model)


class PooledPanel(CellPanel):
    """The cell model without rate shifts: every generator's outputs see the same
    validator rates.
    """

    key = "panel.pooled"
    model_name = "pooled"
    priority = 20
    structure: ClassVar[dict[str, Any]] = {"rate_shift": False, "overdispersion": False}


class HierarchicalPanel(CellPanel):
    """The cell model with a generator-level shift of the validators' rates: the panel's
    default model.
    """

    key = "panel.hierarchical"
    model_name = "hierarchical"
    priority = 100  # asked last: every panel the leniency model does not claim
    structure: ClassVar[dict[str, Any]] = {"rate_shift": True, "overdispersion": False}

    @classmethod
    def matches(cls, data: PanelData) -> bool:
        """Every panel (asked after the leniency model)."""
        return True

    @classmethod
    def why(cls, data: PanelData) -> str:
        """The leniency model's check did not choose it (its own reason)."""
        from judgebayes.studies.panel.leniency import LeniencyPanel

        return LeniencyPanel.verdict(data)[1]


class OverdispersedPanel(CellPanel):
    """The cell model with rate shifts and overdispersed cells."""

    key = "panel.overdispersed"
    model_name = "overdispersed"
    priority = 30
    structure: ClassVar[dict[str, Any]] = {"rate_shift": True, "overdispersion": True}
