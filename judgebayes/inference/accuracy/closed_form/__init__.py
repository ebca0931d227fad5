r"""Closed-form estimators of accuracy under misclassification (numpy, vectorised).

Notation (Lee et al., 2025).  A judge with sensitivity :math:`q_1 = P(\hat Z=1\mid Z=1)`
and specificity :math:`q_0 = P(\hat Z=0\mid Z=0)` labels ``n`` test items; ``k`` of them
positive, :math:`\hat p = k/n`.  On a human-labelled calibration set it labels ``tp`` of
``m1`` truly positive items positive and ``tn`` of ``m0`` truly negative items negative.
Because :math:`p = \theta q_1 + (1-\theta)(1-q_0)`, the naive rate :math:`\hat p` is biased
for the true accuracy :math:`\theta` unless :math:`q_0 = q_1 = 1`.

Every function broadcasts over numpy arrays; scalars in give Python floats out.  A judge
no better than chance (:math:`q_0 + q_1 \le 1`) cannot be inverted: with
``errors="raise"`` (default) a :class:`~judgebayes.errors.JudgeNoBetterThanChanceError`
says so; with ``errors="nan"`` those entries become NaN, a
:class:`NotBetterThanChanceWarning` states how many, and interval results carry the count
in ``n_invalid``.
"""

from judgebayes.errors import NotBetterThanChanceWarning as NotBetterThanChanceWarning
from judgebayes.inference.accuracy.closed_form.binomial import Errors as Errors
from judgebayes.inference.accuracy.closed_form.binomial import Estimate as Estimate
from judgebayes.inference.accuracy.closed_form.binomial import Interval as Interval
from judgebayes.inference.accuracy.closed_form.binomial import JudgeRates as JudgeRates
from judgebayes.inference.accuracy.closed_form.binomial import (
    binomial_interval as binomial_interval,
)
from judgebayes.inference.accuracy.closed_form.binomial import (
    clopper_pearson_interval as clopper_pearson_interval,
)
from judgebayes.inference.accuracy.closed_form.binomial import naive_rate as naive_rate
from judgebayes.inference.accuracy.closed_form.binomial import wald_interval as wald_interval
from judgebayes.inference.accuracy.closed_form.binomial import wilson_interval as wilson_interval
from judgebayes.inference.accuracy.closed_form.binomial import z_value as z_value
from judgebayes.inference.accuracy.closed_form.labelled import (
    calibration_only_estimate as calibration_only_estimate,
)
from judgebayes.inference.accuracy.closed_form.labelled import (
    conditional_calibration_estimate as conditional_calibration_estimate,
)
from judgebayes.inference.accuracy.closed_form.labelled import (
    confusion_inversion as confusion_inversion,
)
from judgebayes.inference.accuracy.closed_form.labelled import (
    difference_estimate as difference_estimate,
)
from judgebayes.inference.accuracy.closed_form.labelled import double_sampling as double_sampling
from judgebayes.inference.accuracy.closed_form.labelled import (
    misclassification_adjusted_estimate as misclassification_adjusted_estimate,
)
from judgebayes.inference.accuracy.closed_form.labelled import point_estimators as point_estimators
from judgebayes.inference.accuracy.closed_form.labelled import ppi_plus_plus as ppi_plus_plus
from judgebayes.inference.accuracy.closed_form.lang_reiczigel import (
    lang_reiczigel_from_counts as lang_reiczigel_from_counts,
)
from judgebayes.inference.accuracy.closed_form.lang_reiczigel import (
    lang_reiczigel_interval as lang_reiczigel_interval,
)
from judgebayes.inference.accuracy.closed_form.rogan_gladen import (
    StratifiedEstimate as StratifiedEstimate,
)
from judgebayes.inference.accuracy.closed_form.rogan_gladen import (
    delta_method_variance as delta_method_variance,
)
from judgebayes.inference.accuracy.closed_form.rogan_gladen import judge_rates as judge_rates
from judgebayes.inference.accuracy.closed_form.rogan_gladen import moment_start as moment_start
from judgebayes.inference.accuracy.closed_form.rogan_gladen import naive_bias as naive_bias
from judgebayes.inference.accuracy.closed_form.rogan_gladen import rogan_gladen as rogan_gladen
from judgebayes.inference.accuracy.closed_form.rogan_gladen import (
    rogan_gladen_bias as rogan_gladen_bias,
)
from judgebayes.inference.accuracy.closed_form.rogan_gladen import (
    stratified_rogan_gladen as stratified_rogan_gladen,
)

__all__ = [
    "Estimate",
    "Interval",
    "JudgeRates",
    "NotBetterThanChanceWarning",
    "binomial_interval",
    "calibration_only_estimate",
    "clopper_pearson_interval",
    "conditional_calibration_estimate",
    "confusion_inversion",
    "delta_method_variance",
    "difference_estimate",
    "double_sampling",
    "judge_rates",
    "lang_reiczigel_from_counts",
    "lang_reiczigel_interval",
    "misclassification_adjusted_estimate",
    "moment_start",
    "naive_bias",
    "naive_rate",
    "point_estimators",
    "ppi_plus_plus",
    "rogan_gladen",
    "rogan_gladen_bias",
    "stratified_rogan_gladen",
    "wald_interval",
    "wilson_interval",
    "z_value",
]
