"""judgebayes: what LLM judges' verdicts really say, with honest uncertainty.

The public API is loaded lazily: ``import judgebayes`` imports neither pymc, pytensor,
arviz nor even numpy-heavy submodules until a name is first used.

>>> import judgebayes as jb
>>> round(jb.rogan_gladen(0.62, 0.7, 0.9), 4)
0.5333
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # closed form (numpy, vectorised)
    "rogan_gladen": "judgebayes.inference.accuracy.closed_form",
    "lang_reiczigel_interval": "judgebayes.inference.accuracy.closed_form",
    "delta_method_variance": "judgebayes.inference.accuracy.closed_form",
    "rogan_gladen_bias": "judgebayes.inference.accuracy.closed_form",
    "naive_bias": "judgebayes.inference.accuracy.closed_form",
    "naive_rate": "judgebayes.inference.accuracy.closed_form",
    "wald_interval": "judgebayes.inference.accuracy.closed_form",
    "wilson_interval": "judgebayes.inference.accuracy.closed_form",
    "clopper_pearson_interval": "judgebayes.inference.accuracy.closed_form",
    "binomial_interval": "judgebayes.inference.accuracy.closed_form",
    "judge_rates": "judgebayes.inference.accuracy.closed_form",
    "calibration_only_estimate": "judgebayes.inference.accuracy.closed_form",
    "difference_estimate": "judgebayes.inference.accuracy.closed_form",
    "ppi_plus_plus": "judgebayes.inference.accuracy.closed_form",
    "conditional_calibration_estimate": "judgebayes.inference.accuracy.closed_form",
    "misclassification_adjusted_estimate": "judgebayes.inference.accuracy.closed_form",
    "point_estimators": "judgebayes.inference.accuracy.closed_form",
    "Interval": "judgebayes.inference.accuracy.closed_form",
    "MirrorWarning": "judgebayes.errors",
    "FewClustersWarning": "judgebayes.errors",
    "LabellingWarning": "judgebayes.errors",
    "NotBetterThanChanceWarning": "judgebayes.errors",
    # evaluation as it runs
    "monitor": "judgebayes.workflows.monitor",
    "sequential_decision": "judgebayes.workflows.monitor",
    "without_replacement": "judgebayes.workflows.monitor",
    "label_next": "judgebayes.workflows.label_next",
    "active_estimate": "judgebayes.workflows.label_next",
    # calibration design
    "allocate_calibration": "judgebayes.inference.accuracy.design",
    "optimal_calibration_ratio": "judgebayes.inference.accuracy.design",
    "plan_calibration": "judgebayes.inference.accuracy.design",
    "plan_paired": "judgebayes.inference.accuracy.design",
    "interval_width": "judgebayes.inference.accuracy.design",
    "llm_advantage_region": "judgebayes.inference.accuracy.design",
    "CalibrationPlan": "judgebayes.inference.accuracy.design",
    # data contract
    "normalize_labels": "judgebayes.data.accuracy",
    "TestCounts": "judgebayes.data.accuracy",
    "CalibrationCounts": "judgebayes.data.accuracy",
    "counts_from_test_frame": "judgebayes.data.accuracy",
    "counts_from_calibration_frame": "judgebayes.data.accuracy",
    "JudgeBayesError": "judgebayes.errors",
    "JudgeBayesWarning": "judgebayes.errors",
    "InputError": "judgebayes.errors",
    "MethodRefused": "judgebayes.errors",
    "LabelError": "judgebayes.errors",
    "CountError": "judgebayes.errors",
    "EmptyClassError": "judgebayes.errors",
    "LengthMismatchError": "judgebayes.errors",
    "JudgeNoBetterThanChanceError": "judgebayes.errors",
    # simulation
    "simulate_accuracy": "judgebayes.simulate.accuracy",
    "accuracy_frames": "judgebayes.simulate.accuracy",
    "monte_carlo_study": "judgebayes.simulate.accuracy",
    "bayesian_coverage_study": "judgebayes.simulate.exact_studies",
    "sbc_ranks": "judgebayes.simulate.exact_studies",
    "sbc_study": "judgebayes.simulate.sbc",
    # accuracy summaries
    "accuracy_table": "judgebayes.studies.accuracy",
    "AccuracyStudy": "judgebayes.studies.accuracy",
    "ItemStudy": "judgebayes.studies.items",
    "calibration_split": "judgebayes.data.accuracy",
    "confusion_inversion": "judgebayes.inference.accuracy.closed_form",
    "MulticlassCounts": "judgebayes.data.accuracy",
    "AccuracyFit": "judgebayes.studies.accuracy",
    "compare": "judgebayes.results",
    # agreement between raters
    "agreement": "judgebayes.workflows.agreement",
    "judge_agreement": "judgebayes.workflows.agreement",
    "effective_judges": "judgebayes.workflows.agreement",
    "human_error_interval": "judgebayes.workflows.labeller_error",
    "human_error_contrasts": "judgebayes.workflows.labeller_error",
    "Fit": "judgebayes.results",
    "load_fit": "judgebayes.studies.archive",
    "Study": "judgebayes.studies.base",
    "SamplerConfig": "judgebayes.inference.registry",
    "plot_forest": "judgebayes.results",
    "plot_check": "judgebayes.results",
    "plot_intervals": "judgebayes.results",
    "ConvergenceWarning": "judgebayes.errors",
    "Diagnostics": "judgebayes.inference.nuts",
    "exact_posterior": "judgebayes.inference.accuracy.exact",
    # pairwise ranking
    "PairwiseRanking": "judgebayes.studies.ranking",
    "RankingPriors": "judgebayes.models.ranking",
    "PanelPriors": "judgebayes.models.panel",
    "AccuracyPriors": "judgebayes.models.accuracy",
    "RankingFit": "judgebayes.studies.ranking",
    "compare_loo": "judgebayes.studies.ranking",
    "compare_posteriors": "judgebayes.studies.ranking",
    "PairwiseData": "judgebayes.data.ranking",
    "IdentifiabilityWarning": "judgebayes.errors",
    "identifiability_report": "judgebayes.data.ranking",
    "run_active": "judgebayes.workflows.active",
    "budget_study": "judgebayes.workflows.active",
    "MatrixOracle": "judgebayes.workflows.active",
    "CallableOracle": "judgebayes.workflows.active",
    "simulate_bt_judge": "judgebayes.simulate.ranking",
    "controlled_benchmark": "judgebayes.simulate.ranking",
    "simulate_judged_pairs": "judgebayes.simulate.ranking",
    "simulate_favouring_judge": "judgebayes.simulate.ranking",
    # validator panels
    "ValidatorPanel": "judgebayes.studies.panel",
    "PanelFit": "judgebayes.studies.panel",
    "PanelData": "judgebayes.data.panel",
    "simulate_panel": "judgebayes.simulate.panel",
    "simulate_items": "judgebayes.simulate.items",
    "simulate_paired": "judgebayes.simulate.items",
    "simulate_repeats": "judgebayes.simulate.items",
    # real data, reports
    "variance_split": "judgebayes.workflows.repeats",
    "RepeatsStudy": "judgebayes.studies.repeats",
    "ScoreStudy": "judgebayes.studies.scores",
    "ScoreFit": "judgebayes.studies.score_fit",
    "scores_from_frame": "judgebayes.data.scores",
    "plan_repeats": "judgebayes.workflows.repeats",
    "split_protocol": "judgebayes.workflows.split_protocol",
    "SplitProtocolResult": "judgebayes.workflows.split_protocol",
    "Report": "judgebayes.report",
    "set_progress": "judgebayes.inference.progress",
    "accuracy_report": "judgebayes.report",
}

_SUBMODULES = (
    "errors",
    "data",
    "io",
    "models",
    "results",
    "inference",
    "studies",
    "simulate",
    "workflows",
    "datasets",
    "report",
    "cli",
)

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # cache: later look-ups skip __getattr__
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"judgebayes.{name}")
    raise AttributeError(f"module 'judgebayes' has no attribute {name!r}")


def __dir__() -> list[str]:
    # the public names and the module's dunders: not the helpers it imports for itself
    own = {n for n in globals() if n.startswith("__") or n in _EXPORTS or n in _SUBMODULES}
    return sorted(own | set(__all__) | set(_SUBMODULES))
