"""The leaderboard family's studies: :class:`~.base.LeaderboardStudy` (the door), its
models (:mod:`~.variants`), its methods beside NUTS (:mod:`~.methods`) and its fit
(:class:`~.fit.BoardFit`, whose :meth:`~.fit.BoardFit.leaderboard` is the table).
"""

from judgebayes.studies.leaderboard import methods  # noqa: F401  (registers the methods)
from judgebayes.studies.leaderboard.base import LeaderboardStudy
from judgebayes.studies.leaderboard.fit import BoardFit
from judgebayes.studies.leaderboard.variants import (
    ExchangeableBoard,
    GuessingBoard,
    RaschBoard,
    TwoPLBoard,
)

__all__ = [
    "BoardFit",
    "ExchangeableBoard",
    "GuessingBoard",
    "LeaderboardStudy",
    "RaschBoard",
    "TwoPLBoard",
]
