"""Readers of evaluation tools' files: ``judgebayes.io.inspect_items(log, labels)`` and kin.

The public home of :mod:`judgebayes.data.logs` (see there for the formats): each reader
returns the frame a study reads, an items frame for
:meth:`~judgebayes.AccuracyStudy.from_items` or a comparisons frame for
:meth:`~judgebayes.PairwiseRanking.from_frames`.
"""

from judgebayes.data.logs import (
    arena_pairs,
    attach_labels,
    inspect_items,
    lm_eval_items,
    mt_bench_pairs,
    promptfoo_items,
)

__all__ = [
    "arena_pairs",
    "attach_labels",
    "inspect_items",
    "lm_eval_items",
    "mt_bench_pairs",
    "promptfoo_items",
]
