"""The leaderboard's models compared: leave-one-out prefers item effects on a board that has
them (the contract's NUTS fits of the models on one board); the guessing board reads a
floor."""

import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.studies.leaderboard import GuessingBoard
from tests.simulators import multiple_choice_board


def test_loo_prefers_item_effects_on_a_board_that_has_them(all_fits):
    fits = {
        "exchangeable": all_fits[("leaderboard.exchangeable", "nuts")],
        "rasch": all_fits[("leaderboard.rasch", "nuts")],
        "2pl": all_fits[("leaderboard.2pl", "nuts")],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # arviz's Pareto-k note on a few items
        table = jb.compare_loo(fits, var_name="y")
    assert table.index[-1] == "exchangeable"
    row = table.loc["exchangeable"]
    # the items' spread is 1.5 logits on this board: the difference is many of its se
    assert abs(row["elpd_diff"]) > 4 * row["dse"], table  # the table counts it below 0
    # fits of one method on several models are named by their class, none dropped
    same = jb.compare_loo(list(fits.values()), var_name="y")
    assert len(same) == 3


@pytest.mark.slow
def test_the_guessing_board_reads_a_floor_and_its_rates():
    # four-option items (a floor of 0.25), nine systems from -3 to 2, 300 items: the
    # floor's interval covers 0.25 and the systems' 90% intervals cover their rates on
    # these items (nine intervals: at least seven, the 0.05 lower tail of Bin(9, 0.9))
    frame, truth = multiple_choice_board(
        np.random.default_rng(200), np.linspace(-3, 2, 9), n_items=300
    )
    study = GuessingBoard.from_items(frame, system="system", item="item", score="score")
    fit = study.fit("nuts", random_seed=0)
    lo, hi = np.quantile(fit.draws("floor").values, [0.025, 0.975])
    assert lo <= 0.25 <= hi, (lo, hi)
    iv = fit.interval(0.1)
    assert ((iv["lower"] <= truth) & (truth <= iv["upper"])).sum() >= 7, iv
    assert study.check(fit)["guessing_floor"].passed
