r"""The leniency model of a panel (:func:`~judgebayes.models.panel.panel_leniency_model`):
each validator's judged rate is the share valid shifted on the logit scale, learnt on the
annotated generators; no sensitivity or specificity.

``ValidatorPanel``'s factories choose it when its check
(:mod:`judgebayes.checks.panel.leniency`) passes on enough annotated generators.
"""

from __future__ import annotations

from typing import Any, ClassVar

from judgebayes.data.panel import PanelData
from judgebayes.models.panel import panel_leniency_model
from judgebayes.studies.panel.base import ValidatorPanel

__all__ = ["LENIENCY_ALPHA", "LENIENCY_MIN_ANNOTATED", "LeniencyPanel"]

#: the default panel model is the leniency model from this many annotated generators on
#: when its check's p-value is at least this level.  The level asks more of the check
#: than ``panel.check(fit)``'s 0.01: a mixture panel read by the leniency model
#: undercovers (0.71-0.84 at 90%), a leniency panel read by the cell model costs
#: accuracy.  On panels simulated from the cell model's mixture
#: (tests/simulators.py's mixture_panel, 300 each) p < 0.05 in 0.82 with 4
#: annotated generators, 0.95 with 5, 0.99 with 6 (at 0.01: 0.38 / 0.77 / 0.91); on
#: panels that follow the leniency model in 0.06-0.09 (a false alarm sends them to the
#: cell model)
LENIENCY_MIN_ANNOTATED = 5
LENIENCY_ALPHA = 0.05


class LeniencyPanel(ValidatorPanel):
    """The leniency model (module docstring)."""

    key = "panel.leniency"
    model_name = "leniency"
    priority = 10
    builder: ClassVar[Any] = staticmethod(panel_leniency_model)
    gate_vars: ClassVar[tuple[str, ...] | None] = ("g", "leniency", "precision_judged")

    @classmethod
    def verdict(cls, data: PanelData) -> tuple[bool, str]:
        """Whether the data call for the leniency model, and why: from
        :data:`LENIENCY_MIN_ANNOTATED` annotated generators on when its check gives p of
        at least :data:`LENIENCY_ALPHA`; else the hierarchical cell model.
        """
        from judgebayes.inference.panel.leniency import leniency_slope

        r = leniency_slope(data)
        if r is None or r.n_annotated < LENIENCY_MIN_ANNOTATED:
            k = 0 if r is None else r.n_annotated
            return False, (
                f"the hierarchical cell model: {k} annotated generator(s) with verdicts, "
                f"fewer than the {LENIENCY_MIN_ANNOTATED} the leniency model's check needs"
            )
        said = f"slope {r.slope:.2f}, se {r.se:.2f}, p = {r.p_value:.2g}"
        over = f"{LENIENCY_ALPHA} over {r.n_annotated} annotated generators"
        if r.p_value < LENIENCY_ALPHA:
            return False, (
                "the hierarchical cell model: the leniency check rejects the slope 1 the "
                f"leniency model assumes ({said} < {over})"
            )
        return True, f"the leniency model: its check passes ({said} >= {over})"

    @classmethod
    def matches(cls, data: PanelData) -> bool:
        """The leniency check passes on enough annotated generators (:meth:`verdict`)."""
        return cls.verdict(data)[0]

    @classmethod
    def why(cls, data: PanelData) -> str:
        """The check's numbers (:meth:`verdict`)."""
        return cls.verdict(data)[1]

    def _data_structure(self, d: PanelData) -> dict[str, Any]:
        """Which generators are annotated (the model learns the leniency on those)."""
        return {"annotated": tuple(map(bool, d.n_annotated > 0))}
