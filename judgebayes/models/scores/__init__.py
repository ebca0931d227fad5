"""The scores family's Bayesian model: :mod:`~.model` (:func:`~.model.scores_model`, the
human level given the judges' scores, and :func:`~.model.level_probabilities` in numpy).
Builders never sample.
"""

from judgebayes.models.scores.model import PAD, distinct_lines, level_probabilities, scores_model

__all__ = ["PAD", "distinct_lines", "level_probabilities", "scores_model"]
