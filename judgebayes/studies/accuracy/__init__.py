"""The accuracy family's studies: two frames (test and calibration), one module per variant.

:class:`~.base.AccuracyStudy` picks the variant from the data: :mod:`~.binary` (one
calibration set shared by every system), :mod:`~.strata` (calibration strata, pooled judge
rates), :mod:`~.multiclass` (a K-class judge); :mod:`~.replicates` fits many independent
binary problems at once.  The items design (one frame, some items labelled) is
:mod:`judgebayes.studies.items`.
"""

from judgebayes.studies.accuracy.base import AccuracyStudy
from judgebayes.studies.accuracy.binary import (
    NOT_BETTER_THAN_CHANCE,
    BinaryAccuracy,
    accuracy_table,
    better_than_chance_mass,
)
from judgebayes.studies.accuracy.fit import AccuracyFit
from judgebayes.studies.accuracy.multiclass import MulticlassAccuracy
from judgebayes.studies.accuracy.replicates import ReplicateStudy
from judgebayes.studies.accuracy.strata import STRATA_LAPLACE, StrataAccuracy

__all__ = [
    "NOT_BETTER_THAN_CHANCE",
    "STRATA_LAPLACE",
    "AccuracyFit",
    "AccuracyStudy",
    "BinaryAccuracy",
    "MulticlassAccuracy",
    "ReplicateStudy",
    "StrataAccuracy",
    "accuracy_table",
    "better_than_chance_mass",
]
