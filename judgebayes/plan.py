"""Designs and label budgets: how many labels, which ones, and where the next budget goes.

- :func:`plan_calibration` -- the smallest calibration set whose interval is at most a
  given width, split between the classes; :func:`allocate_calibration` splits a budget
  from a pilot, :func:`interval_width` gives the width a design reaches and
  :func:`llm_advantage_region` where a calibrated judge beats labelling alone;
- :func:`plan_paired` -- labels and prompts for a paired comparison of two systems;
- :func:`plan_repeats` -- more prompts, more generations or more judge runs;
- :func:`plan_anchors` -- how many anchors to re-judge each period to see a judge's drift;
- :func:`label_next` -- which items to label in the next round (active labelling);
  :func:`design_round` is the same round from arrays with a random generator you pass
  (for simulation studies);
- :func:`early_stop` and :class:`StoppingRule` -- when an eval run in random order can
  stop: a judge-corrected interval for the true pass rate, valid at every look, narrow
  enough or wholly on one side of a claim (:class:`StopDecision` is the answer);
- :func:`run_active` and :func:`budget_study` -- which comparisons to ask a pairwise judge
  for, against a full verdict matrix (:class:`MatrixOracle`) or a live judge
  (:class:`CallableOracle`).

>>> import judgebayes as jb
>>> jb.plan.plan_calibration(0.6, 0.7, 0.9, width=0.2).m > 0
True
"""

from judgebayes._lazy import lazy_namespace

_DESIGN = "judgebayes.inference.accuracy.design"
_ACTIVE = "judgebayes.workflows.active"
_EXPORTS = {
    "plan_calibration": _DESIGN,
    "allocate_calibration": _DESIGN,
    "interval_width": _DESIGN,
    "llm_advantage_region": _DESIGN,
    "plan_paired": _DESIGN,
    "CalibrationPlan": _DESIGN,
    "plan_repeats": "judgebayes.workflows.repeats",
    "plan_anchors": "judgebayes.inference.monitor.design",
    "label_next": "judgebayes.workflows.label_next",
    "design_round": "judgebayes.inference.items.active",
    "early_stop": "judgebayes.inference.stopping",
    "StoppingRule": "judgebayes.inference.stopping",
    "StopDecision": "judgebayes.inference.stopping",
    "run_active": _ACTIVE,
    "budget_study": _ACTIVE,
    "MatrixOracle": _ACTIVE,
    "CallableOracle": _ACTIVE,
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_namespace(__name__, _EXPORTS)
