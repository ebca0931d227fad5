"""Checks of the models' assumptions: one module per check, one result type.

:mod:`~.base` says what a check is (:class:`~.base.Check`), what it returns
(:class:`~.base.CheckResult`, :class:`~.base.CheckReport`) and how checks are found
(:func:`~.base.checks_for`).  Each module registers its check on import, a family's
checks in its folder: :mod:`~.accuracy` (two frames: ``transfer`` and ``ppc``),
:mod:`~.items` (``labelling`` and ``labelling_covariates``, ``judge_dependence``,
``self_preference``, ``label_agreement``: several human raters, ``judge_drift``: items over
time), :mod:`~.leaderboard` (items that move together, items grouped undeclared, labels
that follow the verdict), :mod:`~.scores` (``calibration_transport``,
``monotone_calibration``, ``score_labelling`` and ``score_range``: one calibration for every
system, a label rising with the score, labels drawn by the score, scores the labels never
saw), :mod:`~.panel` (``cells`` and ``leniency``) and :mod:`~.ranking` (``pairs`` and
``channel``).  A new check is one module in its family's folder, imported in the folder's
``__init__``.
"""

from judgebayes.checks import (  # noqa: F401  (each module registers its check)
    accuracy,
    items,
    leaderboard,
    panel,
    ranking,
    scores,
)
from judgebayes.checks.base import (
    CHECK_COLUMNS,
    POLICY,
    Check,
    CheckReport,
    CheckResult,
    checks_for,
    holm,
    register,
    registered,
)

__all__ = [
    "CHECK_COLUMNS",
    "POLICY",
    "Check",
    "CheckReport",
    "CheckResult",
    "checks_for",
    "holm",
    "register",
    "registered",
]
