"""Generators with known truth for each family, and the coverage and SBC studies.

Submodules: :mod:`~judgebayes.simulate.accuracy` (counts, frames, Monte-Carlo
coverage of the closed forms), :mod:`~judgebayes.simulate.exact_studies` (the exact engine's
Bayesian coverage and SBC), :mod:`~judgebayes.simulate.sbc` (SBC of
every NUTS model, as a sweep), :mod:`~judgebayes.simulate.ranking` (pairwise judges)
and :mod:`~judgebayes.simulate.panel` (generator x validator panels).
"""

from judgebayes.simulate.accuracy import (
    SimulatedAccuracy,
    accuracy_frames,
    monte_carlo_study,
    simulate_accuracy,
)
from judgebayes.simulate.exact_studies import bayesian_coverage_study, sbc_ranks
from judgebayes.simulate.items import (
    SimulatedItems,
    simulate_items,
    simulate_paired,
    simulate_repeats,
)
from judgebayes.simulate.panel import SimulatedPanel, simulate_panel
from judgebayes.simulate.ranking import (
    SimulatedJudgedPairs,
    SimulatedPairwise,
    controlled_benchmark,
    simulate_bt_judge,
    simulate_favouring_judge,
    simulate_judged_pairs,
)
from judgebayes.simulate.sbc import SBCResult, sbc_study

__all__ = [
    "SBCResult",
    "SimulatedAccuracy",
    "SimulatedItems",
    "SimulatedJudgedPairs",
    "SimulatedPairwise",
    "SimulatedPanel",
    "accuracy_frames",
    "bayesian_coverage_study",
    "controlled_benchmark",
    "monte_carlo_study",
    "sbc_ranks",
    "sbc_study",
    "simulate_accuracy",
    "simulate_bt_judge",
    "simulate_favouring_judge",
    "simulate_items",
    "simulate_judged_pairs",
    "simulate_paired",
    "simulate_panel",
    "simulate_repeats",
]
