"""The scores family's studies: :class:`~.base.ScoreStudy` (the door, its Bayesian model),
its methods beside NUTS (:mod:`~.methods`: the closed form and the comparators) and its
fit (:class:`~.fit.ScoreFit`: periods and ranks).
"""

from judgebayes.studies.scores import methods  # noqa: F401  (registers the methods)
from judgebayes.studies.scores.base import ScoreStudy
from judgebayes.studies.scores.fit import ScoreFit

__all__ = ["ScoreFit", "ScoreStudy"]
