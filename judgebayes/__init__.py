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
    "rogan_gladen": "judgebayes.inference.closed_form",
    "lang_reiczigel_interval": "judgebayes.inference.closed_form",
    "delta_method_variance": "judgebayes.inference.closed_form",
    "rogan_gladen_bias": "judgebayes.inference.closed_form",
    "naive_bias": "judgebayes.inference.closed_form",
    "naive_rate": "judgebayes.inference.closed_form",
    "wald_interval": "judgebayes.inference.closed_form",
    "wilson_interval": "judgebayes.inference.closed_form",
    "clopper_pearson_interval": "judgebayes.inference.closed_form",
    "binomial_interval": "judgebayes.inference.closed_form",
    "judge_rates": "judgebayes.inference.closed_form",
    "calibration_only_estimate": "judgebayes.inference.closed_form",
    "difference_estimate": "judgebayes.inference.closed_form",
    "ppi_plus_plus": "judgebayes.inference.closed_form",
    "conditional_calibration_estimate": "judgebayes.inference.closed_form",
    "misclassification_adjusted_estimate": "judgebayes.inference.closed_form",
    "point_estimators": "judgebayes.inference.closed_form",
    "Interval": "judgebayes.inference.closed_form",
    "NotBetterThanChanceWarning": "judgebayes.inference.closed_form",
    # calibration design
    "allocate_calibration": "judgebayes.inference.calibration_design",
    "optimal_calibration_ratio": "judgebayes.inference.calibration_design",
    "plan_calibration": "judgebayes.inference.calibration_design",
    "interval_width": "judgebayes.inference.calibration_design",
    "llm_advantage_region": "judgebayes.inference.calibration_design",
    "CalibrationPlan": "judgebayes.inference.calibration_design",
    # data contract
    "normalize_labels": "judgebayes.schema",
    "TestCounts": "judgebayes.schema",
    "CalibrationCounts": "judgebayes.schema",
    "counts_from_test_frame": "judgebayes.schema",
    "counts_from_calibration_frame": "judgebayes.schema",
    "JudgeBayesError": "judgebayes.schema",
    "JudgeBayesWarning": "judgebayes.schema",
    "InputError": "judgebayes.schema",
    "LabelError": "judgebayes.schema",
    "CountError": "judgebayes.schema",
    "EmptyClassError": "judgebayes.schema",
    "LengthMismatchError": "judgebayes.schema",
    "JudgeNoBetterThanChanceError": "judgebayes.schema",
    # simulation
    "simulate_accuracy": "judgebayes.simulate",
    "accuracy_frames": "judgebayes.simulate",
    "monte_carlo_study": "judgebayes.simulate",
    "bayesian_coverage_study": "judgebayes.simulate",
    "sbc_ranks": "judgebayes.simulate",
    # accuracy summaries
    "accuracy_table": "judgebayes.accuracy",
    "AccuracyStudy": "judgebayes.accuracy",
    "calibration_split": "judgebayes.accuracy",
    "confusion_inversion": "judgebayes.inference.closed_form",
    "MulticlassCounts": "judgebayes.schema",
    "AccuracyFit": "judgebayes.compare",
    "comparison_table": "judgebayes.compare",
    "plot_forest": "judgebayes.compare",
    "plot_intervals": "judgebayes.compare",
    "ConvergenceWarning": "judgebayes.inference.sampling",
    "Diagnostics": "judgebayes.inference.sampling",
    "exact_posterior": "judgebayes.inference.exact",
    # pairwise ranking
    "PairwiseRanking": "judgebayes.ranking",
    "RankingFit": "judgebayes.ranking",
    "compare_loo": "judgebayes.ranking",
    "compare_posteriors": "judgebayes.ranking",
    "PairwiseData": "judgebayes.pairwise",
    "IdentifiabilityWarning": "judgebayes.pairwise",
    "identifiability_report": "judgebayes.pairwise",
    "run_active": "judgebayes.inference.active",
    "MatrixOracle": "judgebayes.inference.active",
    "CallableOracle": "judgebayes.inference.active",
    "simulate_bt_judge": "judgebayes.simulate",
    "controlled_benchmark": "judgebayes.simulate",
    # validator panels
    "ValidatorPanel": "judgebayes.panel",
    "PanelFit": "judgebayes.panel",
    "PanelData": "judgebayes.panel_data",
    "simulate_panel": "judgebayes.simulate",
    # real data, reports
    "split_protocol": "judgebayes.split_protocol",
    "SplitProtocolResult": "judgebayes.split_protocol",
    "Report": "judgebayes.report",
    "accuracy_report": "judgebayes.report",
}

_SUBMODULES = (
    "datasets",
    "inference",
    "models",
    "schema",
    "simulate",
    "accuracy",
    "compare",
    "pairwise",
    "ranking",
    "panel",
    "panel_data",
    "split_protocol",
    "invariance",
    "judge_bias",
    "source_rankings",
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
    return sorted(set(globals()) | set(__all__) | set(_SUBMODULES))
