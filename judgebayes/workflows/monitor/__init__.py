r"""Evaluation as it runs: anytime-valid rates by period, a drift alarm for the judge, and
an exact sequence for a fixed set of items labelled in random order.

:func:`monitor` reads a log of judged items with a period column and a few human labels per
period and returns, after every period, the corrected rate of all items so far with a
confidence sequence (valid at every look, however often one looks) and an alarm when the
judge's sensitivity or specificity has changed (one alarm for all systems, or one per
system); a judge that gives scores gets the same sequence for the mean human label.
:func:`sequential_decision` reads a claim
off the last look: pass, fail or continue.  :func:`without_replacement` is the sequence for
the ``items`` estimand of one fixed set.  The mathematics is in
:mod:`judgebayes.inference.sequences`.
"""

from judgebayes.workflows.monitor.decision import sequential_decision as sequential_decision
from judgebayes.workflows.monitor.decision import without_replacement as without_replacement
from judgebayes.workflows.monitor.stream import monitor as monitor

__all__ = ["monitor", "sequential_decision", "without_replacement"]
