"""The monitor family's data: a running evaluation's log (verdicts, labels, periods,
systems) and a fixed set of items labelled one at a time, read by :mod:`~.log`.
"""

from judgebayes.data.monitor.log import labelled_sequence, monitor_log

__all__ = ["labelled_sequence", "monitor_log"]
