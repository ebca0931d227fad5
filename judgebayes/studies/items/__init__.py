"""The items design's studies: one frame, every item judged, some labelled by humans.

:class:`~.base.ItemStudy` picks the variant from the frame (its ``variants``, asked by
priority): :mod:`~.raters`, :mod:`~.covariate`, :mod:`~.judges`, :mod:`~.clustered`,
:mod:`~.paired`, :mod:`~.over_time`, and :mod:`~.plain` for every other frame.
:mod:`~.methods` holds the methods every variant shares.  A new variant is one module here
with a ``matches(data)`` classmethod, imported below.
"""

from judgebayes.studies.items import methods  # noqa: F401  (registers the shared methods)
from judgebayes.studies.items.base import ItemStudy
from judgebayes.studies.items.clustered import ClusteredItems
from judgebayes.studies.items.covariate import CovariateItems
from judgebayes.studies.items.judges import SeveralJudgesItems
from judgebayes.studies.items.over_time import OverTimeItems
from judgebayes.studies.items.paired import PairedItems
from judgebayes.studies.items.plain import PlainItems
from judgebayes.studies.items.raters import SeveralRatersItems

__all__ = [
    "ClusteredItems",
    "CovariateItems",
    "ItemStudy",
    "OverTimeItems",
    "PairedItems",
    "PlainItems",
    "SeveralJudgesItems",
    "SeveralRatersItems",
]
