"""The scores design's checks, one module each: :mod:`~.transport` (one calibration of the
judge's score holds for every system), :mod:`~.monotone` (the human label rises with the
score), :mod:`~.score_labelling` (labels not drawn by the score) and :mod:`~.score_range`
(the labelled scores cover the unlabelled ones).
"""

from judgebayes.checks.scores import (  # noqa: F401  (each module registers its check)
    monotone,
    score_labelling,
    score_range,
    transport,
)
