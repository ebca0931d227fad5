"""Checks of the models' assumptions: one module per check, one result type.

:mod:`~.base` says what a check is (:class:`~.base.Check`), what it returns
(:class:`~.base.CheckResult`, :class:`~.base.CheckReport`) and how checks are found
(:func:`~.base.checks_for`).  Each module below registers its check on import:
``transfer`` and ``ppc`` (two frames), ``labelling`` (and ``labelling_covariates``),
``judge_dependence`` and ``self_preference`` (the items design), ``cells`` and
``leniency`` (panels), ``pairs`` and ``channel`` (rankings), ``calibration_transport``
(:mod:`~.transport`) and ``monotone_calibration`` (:mod:`~.monotone`) (judge scores),
``label_agreement`` (:mod:`~.raters`: several human raters), ``judge_drift`` (items over
time), ``score_labelling`` and ``score_range`` (judge scores: labels drawn by the score,
scores the labels never saw), and the leaderboard's (:mod:`~.leaderboard`: items that
move together, items grouped undeclared, labels that follow the verdict).  A new check is
one module here, imported below.
"""

from judgebayes.checks import (  # noqa: F401  (each module registers its check)
    cells,
    channel,
    judge_dependence,
    judge_drift,
    labelling,
    leaderboard,
    leniency,
    monotone,
    pairs,
    predictive,
    raters,
    score_labelling,
    score_range,
    self_preference,
    transfer,
    transport,
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
