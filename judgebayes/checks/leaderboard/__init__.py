"""The leaderboard family's checks, one module each: :mod:`~.local_independence` (the
Bayesian models' items independent given the abilities), :mod:`~.floor` (no guessing
floor under the weakest cells' success), :mod:`~.clustering` (items
grouped by a column not declared as ``cluster=``) and :mod:`~.labelling` (a judged
board's labels a random choice of each system's rows).
"""

from judgebayes.checks.leaderboard import (  # noqa: F401  (each module registers its check)
    clustering,
    floor,
    labelling,
    local_independence,
)
