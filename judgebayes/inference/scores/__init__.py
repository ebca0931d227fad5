r"""Closed forms of the scores design: a judge's scores calibrated to human labels."""

from judgebayes.inference.scores.calibration import CALIBRATIONS as CALIBRATIONS
from judgebayes.inference.scores.calibration import FOLDS as FOLDS
from judgebayes.inference.scores.calibration import Calibration as Calibration
from judgebayes.inference.scores.calibration import calibrate as calibrate
from judgebayes.inference.scores.calibration import folds as folds
from judgebayes.inference.scores.calibration import isotonic as isotonic
from judgebayes.inference.scores.calibration import logistic as logistic
from judgebayes.inference.scores.comparators import labels_only_means as labels_only_means
from judgebayes.inference.scores.comparators import naive_means as naive_means
from judgebayes.inference.scores.comparators import ppi_means as ppi_means
from judgebayes.inference.scores.estimate import ScoreEstimate as ScoreEstimate
from judgebayes.inference.scores.means import augmented_means as augmented_means
from judgebayes.inference.scores.means import paired_contrasts as paired_contrasts
from judgebayes.inference.scores.means import period_means as period_means
from judgebayes.inference.scores.means import power_tuned as power_tuned
from judgebayes.inference.scores.means import (
    score_labelling_pvalues as score_labelling_pvalues,
)
from judgebayes.inference.scores.means import tuned_calibration as tuned_calibration

__all__ = [
    "CALIBRATIONS",
    "ScoreEstimate",
    "augmented_means",
    "calibrate",
    "isotonic",
    "labels_only_means",
    "logistic",
    "naive_means",
    "period_means",
    "power_tuned",
    "ppi_means",
]
