r"""Input validation and normalisation: labels, counts and item-level frames.

Everything that enters judgebayes from a user passes through this module and leaves it
as a typed container (:class:`TestCounts`, :class:`CalibrationCounts`) or a clear,
typed error that names the field and the offending value.  Missing verdicts are never
dropped silently: they are counted and carried on every container as ``n_missing``.

Label vocabulary (case-insensitive, surrounding white space ignored)
--------------------------------------------------------------------
positive (1): ``True``, ``1``, ``1.0``, "1", "correct", "valid", "pass", "yes", "true"
negative (0): ``False``, ``0``, ``0.0``, "0", "incorrect", "invalid", "fail", "no", "false"
missing: ``None``, ``NaN``, ``pd.NA``, "" (or only white space)

``positive=`` overrides the vocabulary: the given value(s) map to 1 and every other
non-missing value maps to 0 (or, if ``negative=`` is also given, only those map to 0 and
anything else is an unknown label).
"""

from judgebayes.data.accuracy.counts import MAX_COUNT as MAX_COUNT
from judgebayes.data.accuracy.counts import CalibrationCounts as CalibrationCounts
from judgebayes.data.accuracy.counts import MulticlassCounts as MulticlassCounts
from judgebayes.data.accuracy.counts import TestCounts as TestCounts
from judgebayes.data.accuracy.counts import check_counts as check_counts
from judgebayes.data.accuracy.frames import calibration_mask as calibration_mask
from judgebayes.data.accuracy.frames import calibration_split as calibration_split
from judgebayes.data.accuracy.frames import (
    counts_from_calibration_frame as counts_from_calibration_frame,
)
from judgebayes.data.accuracy.frames import counts_from_frames as counts_from_frames
from judgebayes.data.accuracy.frames import (
    counts_from_multiclass_frames as counts_from_multiclass_frames,
)
from judgebayes.data.accuracy.frames import counts_from_test_frame as counts_from_test_frame
from judgebayes.data.accuracy.labels import ALL as ALL
from judgebayes.data.accuracy.labels import NormalizedLabels as NormalizedLabels
from judgebayes.data.accuracy.labels import normalize_labels as normalize_labels

__all__ = [
    "ALL",
    "CalibrationCounts",
    "MulticlassCounts",
    "NormalizedLabels",
    "TestCounts",
    "calibration_mask",
    "calibration_split",
    "check_counts",
    "counts_from_calibration_frame",
    "counts_from_frames",
    "counts_from_multiclass_frames",
    "counts_from_test_frame",
    "normalize_labels",
]
