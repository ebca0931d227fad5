"""The ``guessing_floor`` check (judgebayes/checks/leaderboard/floor.py): its statistic by
hand, and on boards with and without a floor (multiple-choice items simulated in numpy by
tests/simulators.py, not by the package)."""

import numpy as np
import pytest

from judgebayes.checks.leaderboard.floor import floor_interaction
from judgebayes.studies.leaderboard import RaschBoard
from tests.simulators import irt_board, multiple_choice_board


def test_the_interaction_by_hand():
    # three systems x three items of 10 trials: system 0 the weakest (rate 9/30), 2 the
    # strongest (22/30); item 0 the hardest (8/30), 2 the easiest (22/30)
    k = np.array([[3, 2, 4], [1, 5, 9], [4, 8, 10]])
    n = np.full((3, 3), 10)

    def logit(kk, nn):
        return np.log((kk + 0.5) / (nn - kk + 0.5))

    expected = logit(3, 10) - logit(4, 10) - logit(4, 10) + logit(10, 10)
    assert floor_interaction(k, n) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("simulate", "flagged"), [(multiple_choice_board, True), (irt_board, False)]
)
def test_a_floor_is_seen_and_a_board_without_one_passes(simulate, flagged):
    # nine systems from -3 to 2 on 300 items of four options (a floor of 0.25), or the same
    # board without a floor; the one-parameter model by Laplace, whose draws the check reads
    # (benchmarks/guessing_floor.py has the rates over many boards)
    frame, _ = simulate(np.random.default_rng(200), np.linspace(-3, 2, 9), n_items=300)
    study = RaschBoard.from_items(frame, system="system", item="item", score="score")
    result = study.check(study.fit("laplace", random_seed=0))["guessing_floor"]
    assert result.relevant and bool(result.table["flagged"].iloc[0]) is flagged, result.table
    if flagged:
        assert "GuessingBoard" in result.assumption
