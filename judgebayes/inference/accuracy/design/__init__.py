r"""Calibration design: how many human labels to collect, and of which class.

* :func:`optimal_calibration_ratio` — Prop. 5.2 of Lee et al.: the Lang-Reiczigel interval
  is shortest when :math:`m_0/m_1 \approx (1/p - 1)\sqrt{\kappa}` with the error ratio
  :math:`\kappa = (1-q_0)/(1-q_1)`; the exact AM-GM ratio is available too.
* :func:`allocate_calibration` — Algorithm 1: split a budget ``m`` between the classes
  from Laplace-smoothed pilot rates; continuous in ``p`` and never 0 for a class.
* :func:`plan_calibration` — the smallest total ``m`` whose interval reaches a target
  width for given ``p, q0, q1, n`` (``n`` may be infinite), under equal or optimal split.
* :func:`plan_paired` — what a paired comparison of two systems on the same prompts can
  detect, and how many prompts to label on both systems for a given difference.
* :func:`llm_advantage_region` — Prop. 6.1: the true accuracies for which a calibrated
  LLM judge (with :math:`n\to\infty`) beats human-only evaluation of the same budget.
"""

from judgebayes.inference.accuracy.design.calibration import CalibrationPlan as CalibrationPlan
from judgebayes.inference.accuracy.design.calibration import (
    allocate_calibration as allocate_calibration,
)
from judgebayes.inference.accuracy.design.calibration import interval_width as interval_width
from judgebayes.inference.accuracy.design.calibration import (
    llm_advantage_region as llm_advantage_region,
)
from judgebayes.inference.accuracy.design.calibration import (
    optimal_calibration_ratio as optimal_calibration_ratio,
)
from judgebayes.inference.accuracy.design.calibration import plan_calibration as plan_calibration
from judgebayes.inference.accuracy.design.paired import PairedPlan as PairedPlan
from judgebayes.inference.accuracy.design.paired import paired_joint as paired_joint
from judgebayes.inference.accuracy.design.paired import plan_paired as plan_paired

__all__ = [
    "CalibrationPlan",
    "PairedPlan",
    "allocate_calibration",
    "interval_width",
    "llm_advantage_region",
    "optimal_calibration_ratio",
    "paired_joint",
    "plan_calibration",
    "plan_paired",
]
