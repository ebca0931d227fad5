"""Data in: readers of evaluation tools' files, and the validated containers a study reads.

Readers of eval logs return the frame a study reads (see :mod:`judgebayes.data.logs` for
the formats): :func:`inspect_items`, :func:`lm_eval_items`, :func:`promptfoo_items` give an
items frame for :meth:`~judgebayes.AccuracyStudy.from_items`, :func:`arena_pairs` and
:func:`mt_bench_pairs` a comparisons frame for
:meth:`~judgebayes.PairwiseRanking.from_frames`; :func:`mlflow_items` a leaderboard frame of
MLflow evaluation runs and :func:`alpaca_eval_items` one of AlpacaEval's annotation files,
for :func:`~judgebayes.leaderboard`; :func:`attach_labels` joins
human labels.  Logs too large for pandas: :func:`reduce_items`, :func:`reduce_panel` and
:func:`reduce_pairs` reduce Parquet or CSV files to counts with one DuckDB query (the
``logs`` extra).

Running evals: :class:`InspectStopping` is an Inspect AI early-stopping manager that stops
an eval once the judge-corrected interval for its true pass rate is narrow enough or decides
a claim (the rule is :func:`judgebayes.plan.early_stop`'s).

Containers and their frame readers, for data already in counts or arrays:
:class:`TestCounts`, :class:`CalibrationCounts`, :class:`MulticlassCounts`,
:class:`PairwiseData`, :class:`PanelData`, :func:`items_from_frame` (the items design's
container, which the items closed forms of :mod:`judgebayes.estimators` read),
:func:`scores_from_frame` and :func:`calibration_split` (a labelled frame split into test
and calibration parts).
"""

from judgebayes._lazy import lazy_namespace

_LOGS = "judgebayes.data.logs"
_ACC = "judgebayes.data.accuracy"
_EXPORTS = {
    **dict.fromkeys(
        (
            "alpaca_eval_items",
            "arena_pairs",
            "attach_labels",
            "inspect_items",
            "lm_eval_items",
            "mlflow_items",
            "mt_bench_pairs",
            "promptfoo_items",
        ),
        _LOGS,
    ),
    **dict.fromkeys(
        (
            "TestCounts",
            "CalibrationCounts",
            "MulticlassCounts",
            "counts_from_test_frame",
            "counts_from_calibration_frame",
            "normalize_labels",
            "calibration_split",
        ),
        _ACC,
    ),
    "scores_from_frame": "judgebayes.data.scores",
    "items_from_frame": "judgebayes.data.items",
    **dict.fromkeys(("reduce_items", "reduce_panel", "reduce_pairs"), "judgebayes.data.large"),
    "PairwiseData": "judgebayes.data.ranking",
    "identifiability_report": "judgebayes.data.ranking",
    "PanelData": "judgebayes.data.panel",
    "InspectStopping": "judgebayes.workflows.inspect_stopping",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_namespace(__name__, _EXPORTS)
