r"""Readers of the files evaluation tools write, returning the frame contracts.

Each reader turns one tool's output into the frame a study reads, and nothing more:

========================  ==========================================  ===========================
reader                    reads                                       returns
========================  ==========================================  ===========================
:func:`inspect_items`     Inspect AI eval logs (``.eval`` / ``.json``) items frame (accuracy)
:func:`lm_eval_items`     lm-evaluation-harness ``samples_*.jsonl``   items frame (accuracy)
:func:`promptfoo_items`   promptfoo ``--output results.json``         items frame (accuracy)
:func:`mlflow_items`      MLflow GenAI evaluation runs                leaderboard frame
:func:`alpaca_eval_items` AlpacaEval ``annotations.json`` files       leaderboard frame
:func:`mt_bench_pairs`    MT-Bench pairwise judgment JSONL            comparisons frame (ranking)
:func:`arena_pairs`       Chatbot Arena battles (JSON / JSONL)        comparisons frame (ranking)
========================  ==========================================  ===========================

The items frame has the columns of :meth:`judgebayes.AccuracyStudy.from_items`:
``sample_id``, ``system`` (the model evaluated), ``judge`` (the automated verdict as
1.0 / 0.0, NaN where the tool recorded none: an errored sample, an unparseable grade)
and ``human`` (from ``labels``: NaN = unlabelled); Inspect's and lm-eval's add ``task``
(Inspect's also ``epoch``), and name a sample ``<task>/<id>`` when the logs hold several
tasks (each task numbers its own samples).  Human labels come from a frame or a CSV file
with ``sample_id`` and ``human`` columns (plus ``system`` when the log holds several
systems, and ``epoch`` when Inspect ran several epochs): a label is a verdict on one
output, so it must say whose output.  A label that matches no output, or two labels for
one output, is an error: nothing is dropped or overwritten silently.

The comparisons frame has the columns of :meth:`judgebayes.PairwiseRanking.from_frames`:
``first`` and ``second`` (the items in presentation order), ``winner`` (blank for a
tie) and ``judge``.  Verdicts the tool could not parse (MT-Bench's ``"error"``) are not
comparisons: they are left out, counted in ``frame.attrs["n_missing"]`` and announced
with a :class:`~judgebayes.errors.JudgeBayesWarning`.

Formats follow the tools' own writers: Inspect AI through ``inspect_ai.log``
(optional extra ``judgebayes[inspect]``); lm-evaluation-harness v0.4's
``evaluator.py`` sample records (``doc_id``, ``filter``, one key per metric);
promptfoo's ``EvaluateSummary`` JSON (``results.results[*]`` with ``provider``,
``testIdx``, ``gradingResult``); FastChat's ``llm_judge/common.py``
``play_a_match_pair`` records (``model_1``, ``model_2``, ``g1_winner``, ``g2_winner``)
and the MT-Bench human-judgment records (``model_a``, ``model_b``, ``winner``); and
FastChat's Chatbot Arena ``clean_battle`` records (``model_a``, ``model_b``,
``winner`` in ``model_a`` / ``model_b`` / ``tie`` / ``tie (bothbad)``).
"""

from judgebayes.data.logs.alpaca_eval import alpaca_eval_items as alpaca_eval_items
from judgebayes.data.logs.files import ITEM_COLUMNS as ITEM_COLUMNS
from judgebayes.data.logs.harness import lm_eval_items as lm_eval_items
from judgebayes.data.logs.harness import promptfoo_items as promptfoo_items
from judgebayes.data.logs.inspect_log import inspect_items as inspect_items
from judgebayes.data.logs.labels import attach_labels as attach_labels
from judgebayes.data.logs.mlflow_runs import mlflow_items as mlflow_items
from judgebayes.data.logs.pairs import arena_pairs as arena_pairs
from judgebayes.data.logs.pairs import mt_bench_pairs as mt_bench_pairs

__all__ = [
    "alpaca_eval_items",
    "arena_pairs",
    "attach_labels",
    "inspect_items",
    "lm_eval_items",
    "mlflow_items",
    "mt_bench_pairs",
    "promptfoo_items",
]
