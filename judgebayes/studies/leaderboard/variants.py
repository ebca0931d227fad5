"""The leaderboard's Bayesian models, one class each: the door picks the one-parameter
model; the others are asked for by their class (``TwoPLBoard.from_items(...)``).
"""

from __future__ import annotations

from judgebayes.data.leaderboard import BoardData
from judgebayes.inference.registry import SamplerConfig
from judgebayes.studies.leaderboard.base import LeaderboardStudy

__all__ = ["ExchangeableBoard", "GuessingBoard", "RaschBoard", "TwoPLBoard"]


class RaschBoard(LeaderboardStudy):
    """The one-parameter model (:math:`a_i = 1`): the board's default."""

    key = "leaderboard.rasch"
    model_name = "rasch"
    priority = 100

    @classmethod
    def matches(cls, data: BoardData) -> bool:
        """Every board: the model the door picks."""
        return True


class TwoPLBoard(LeaderboardStudy):
    """The two-parameter model: each item's discrimination :math:`a_i` as well."""

    key = "leaderboard.2pl"
    model_name = "2pl"
    discrimination = True
    #: the discriminations' spread is learnt from few systems per item: R-hat of
    #: ``sigma_disc`` reached 1.011 at 4 x 1000 after 1000 tuning on 8 systems x 150 items
    sampler = SamplerConfig(draws=2000, tune=1500, target_accept=0.95)


class ExchangeableBoard(LeaderboardStudy):
    """No item effect: a rate per system, the items exchangeable (the nested model the
    item-response models are compared against).
    """

    key = "leaderboard.exchangeable"
    model_name = "exchangeable"
    item_effects = False


class GuessingBoard(LeaderboardStudy):
    """The one-parameter model above a guessing floor :math:`c` (multiple-choice items,
    where a system with no ability still succeeds by chance; ``BoardPriors.floor``).  The
    ``guessing_floor`` check flags a floorless board whose weakest cells succeed more
    often than it says.
    """

    key = "leaderboard.guessing"
    model_name = "guessing"
    guessing = True
