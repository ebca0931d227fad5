"""The leaderboard family's Bayesian models: :mod:`~.priors` (:class:`~.priors.BoardPriors`)
and :mod:`~.model` (:func:`~.model.board_model`, the systems' abilities and the items'
difficulties with a judge on top, and :func:`~.model.success_probabilities` in numpy).
"""

from judgebayes.models.leaderboard.model import board_model, success_probabilities
from judgebayes.models.leaderboard.priors import BoardPriors

__all__ = ["BoardPriors", "board_model", "success_probabilities"]
