"""The repeats family's study: :class:`~.base.RepeatsStudy` (the door: judge runs on several
generations of several prompts) and its methods (:mod:`~.methods`: the closed form, NUTS,
and the rate's interval from either).  Its fits are
:class:`~judgebayes.studies.accuracy.fit.AccuracyFit`.
"""

from judgebayes.studies.repeats import methods  # noqa: F401  (registers the methods)
from judgebayes.studies.repeats.base import COMPONENTS, RepeatsStudy
from judgebayes.studies.repeats.methods import rate_interval

__all__ = ["COMPONENTS", "RepeatsStudy", "rate_interval"]
