"""The leaderboard's models compared: leave-one-out prefers item effects on a board that has
them (the contract's NUTS fits of the three models on one board)."""

import warnings

import judgebayes as jb


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
