"""The ranking family's checks, one module each: :mod:`~.pairs` (a Bradley-Terry fit's
verdicts independent given the qualities: pairs, cycles, the two presentation orders) and
:mod:`~.channel` (the judge-error fit's channel reproduces each judge's agreement with the
human).
"""

from judgebayes.checks.ranking import (  # noqa: F401  (each module registers its check)
    channel,
    pairs,
)
