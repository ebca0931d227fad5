"""What the demo returns: every part's tables, fits and figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd


@dataclass
class DemoResult:
    """The demo's tables and, when written, its report.

    Attributes
    ----------
    accuracy : DataFrame
        Act 2, one row per LLMBar subset.
    label_a_few : DataFrame, optional
        Act 1: :func:`judgebayes.compare`'s table per judge and method, with ``gold`` and
        ``covered``.
    label_coverage : DataFrame, optional
        Act 1 repeated over random label draws: per judge and method, the share of
        intervals covering gold and their mean width.
    bias, agreement : DataFrame, optional
        Act 3.
    """

    accuracy: pd.DataFrame
    bias: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    report: Any = None
    label_a_few: pd.DataFrame | None = None
    label_coverage: pd.DataFrame | None = None
    fits: tuple = ()
    n_labels: int = 0
