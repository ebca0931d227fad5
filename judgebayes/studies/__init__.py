"""Studies: validated data and priors in, a complete ``Fit`` out; no fit state kept.

:mod:`~.base` (the one ``fit`` / ``compare`` / ``check`` contract, the method tables that
inherit along the variants, :data:`STUDIES`), one package per family with one module per
variant (:mod:`~.accuracy`, :mod:`~.items`, :mod:`~.panel`, :mod:`~.ranking`),
:mod:`~.repeats`, :mod:`~.scores` and :mod:`~.archive` (a saved fit read back).
Importing this package registers every study class and fit class.
"""

from judgebayes.studies import (  # noqa: F401
    accuracy,
    items,
    leaderboard,
    panel,
    ranking,
    repeats,
    scores,
)
from judgebayes.studies.base import STUDIES

__all__ = ["STUDIES"]
