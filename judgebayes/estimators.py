"""The closed-form estimators: numpy in, numbers and intervals out, no sampling.

``jb.estimators.rogan_gladen(0.62, 0.7, 0.9)`` corrects a judge's raw rate for its
specificity and sensitivity; :func:`lang_reiczigel_interval` gives its interval from a
calibration set; :func:`ppi_plus_plus`, :func:`difference_estimate` and kin estimate a rate
from a few human labels and every verdict; :func:`judge_agreement` and
:func:`effective_judges` measure raters against each other.  Each study's ``closed_form``
method calls these; use them directly for one number, a simulation or a design.

>>> import judgebayes as jb
>>> round(jb.estimators.rogan_gladen(0.62, 0.7, 0.9), 4)
0.5333
"""

from judgebayes._lazy import lazy_namespace

_CF = "judgebayes.inference.accuracy.closed_form"
_EXPORTS = {
    **dict.fromkeys(
        (
            "rogan_gladen",
            "rogan_gladen_bias",
            "naive_bias",
            "naive_rate",
            "delta_method_variance",
            "judge_rates",
            "lang_reiczigel_interval",
            "wald_interval",
            "wilson_interval",
            "clopper_pearson_interval",
            "binomial_interval",
            "calibration_only_estimate",
            "difference_estimate",
            "ppi_plus_plus",
            "conditional_calibration_estimate",
            "misclassification_adjusted_estimate",
            "point_estimators",
            "confusion_inversion",
            "Interval",
        ),
        _CF,
    ),
    "exact_posterior": "judgebayes.inference.accuracy.exact",
    "accuracy_table": "judgebayes.studies.accuracy",
    "without_replacement": "judgebayes.workflows.monitor",
    "judge_agreement": "judgebayes.workflows.agreement",
    "effective_judges": "judgebayes.workflows.agreement",
    "human_error_contrasts": "judgebayes.workflows.labeller_error",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_namespace(__name__, _EXPORTS)
