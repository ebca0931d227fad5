"""The closed-form estimators: numpy in, numbers and intervals out, no sampling.

``jb.estimators.rogan_gladen(0.62, 0.7, 0.9)`` corrects a judge's raw rate for its
specificity and sensitivity; :func:`lang_reiczigel_interval` gives its interval from a
calibration set; :func:`ppi_plus_plus`, :func:`difference_estimate` and kin estimate a rate
from a few human labels and every verdict; :func:`double_sampling_items` and
:func:`ppi_items` are the items design's closed form and PPI on an
:func:`~judgebayes.io.items_from_frame` container; :func:`judge_agreement` and
:func:`effective_judges` measure raters against each other; :func:`win_counts`,
:func:`order_swap_majority` and :func:`length_residualisation` are the pairwise
comparators.  Each study's ``closed_form`` method calls these; use them directly for one
number, a simulation or a design.  :func:`check_claims` decides claims on any fit as
``judgebayes gate`` does.

The analyses of a judge against gold labels on real data are here too:
:func:`judge_rates_by_stratum`, :func:`transfer_table` and :func:`stratum_shift_study`
(with :func:`summarise_shift`) for a judge whose rates differ between strata;
:func:`fit_judge_bias`, :func:`judge_bias_table`, :func:`plot_bias_forest` and
:func:`cross_validated_agreement` for a pairwise judge's length and position bias from
both presentation orders; :func:`fit_sources`, :func:`rank_interval_table` and
:func:`ranking_agreement` for rankings of the same items from several verdict sources.
These fit the Bayesian models where they say so.

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
    "double_sampling_items": "judgebayes.inference.items",
    "ppi_items": "judgebayes.inference.items",
    **dict.fromkeys(
        ("win_counts", "order_swap_majority", "length_residualisation"),
        "judgebayes.inference.ranking.baselines",
    ),
    "check_claims": "judgebayes.workflows.gate",
    **dict.fromkeys(
        ("judge_rates_by_stratum", "transfer_table", "stratum_shift_study", "summarise_shift"),
        "judgebayes.workflows.invariance",
    ),
    **dict.fromkeys(
        ("fit_judge_bias", "judge_bias_table", "plot_bias_forest", "cross_validated_agreement"),
        "judgebayes.workflows.judge_bias",
    ),
    **dict.fromkeys(
        ("fit_sources", "rank_interval_table", "ranking_agreement"),
        "judgebayes.workflows.source_rankings",
    ),
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_namespace(__name__, _EXPORTS)
