"""Pairwise rankings: :mod:`~.base` (bias-aware Bradley-Terry, the study), :mod:`~.methods`
(naive, Laplace, NUTS), :mod:`~.channel` (the variant with human preferences: rankings
corrected for the judges' own errors), :mod:`~.fit` (its summaries) and :mod:`~.compare`.
"""

from judgebayes.studies.ranking import methods  # noqa: F401  (registers the methods)
from judgebayes.studies.ranking.base import PairwiseRanking
from judgebayes.studies.ranking.channel import CHANNEL_METHODS, JudgeErrorRanking
from judgebayes.studies.ranking.compare import compare_loo, compare_posteriors
from judgebayes.studies.ranking.fit import RankingFit

__all__ = [
    "CHANNEL_METHODS",
    "JudgeErrorRanking",
    "PairwiseRanking",
    "RankingFit",
    "compare_loo",
    "compare_posteriors",
]
