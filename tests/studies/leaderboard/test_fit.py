"""The leaderboard's one table, ``fit.leaderboard``: from known draws, from the closed
form's means and covariance (kept in the fit, so a saved fit gives the same table) and from
the item bootstrap; its header, its claims, and bad arguments."""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from judgebayes.results.trees import tree
from judgebayes.studies.leaderboard import BoardFit
from tests.simulators import irt_board, judged_board, small_board


def _known(draws, names):
    idata = tree(
        {"posterior": {"theta": draws.reshape(4, -1, len(names))}},
        coords={"system": list(names)},
        dims={"theta": ["system"]},
    )
    return BoardFit("nuts", idata, info={"estimand": "items", "table": "posterior"})


def test_the_table_from_known_draws():
    """Three clear tiers of two systems each: the simultaneous rank intervals hold every
    rank at once in 95% of the draws; the tiers' boundaries are the certain ones."""
    rng = np.random.default_rng(0)
    mu = np.array([0.9, 0.89, 0.6, 0.59, 0.3, 0.29])
    draws = mu + rng.normal(0, 0.01, (4000, 6))
    table = _known(draws, "abcdef").leaderboard(0.05, top_k=2)
    assert table.header.startswith("Leaderboard of 6 systems: these items")
    assert "Leaderboard of 6 systems" in repr(table) and "<b>Leaderboard" in table._repr_html_()
    t = table.set_index("system")
    assert list(t["tier"]) == [1, 1, 2, 2, 3, 3]
    assert list(t["rank_lower"]) == [1, 1, 3, 3, 5, 5]
    assert list(t["rank_upper"]) == [2, 2, 4, 4, 6, 6]
    assert t.loc[["a", "b"], "p_top_k"].sum() == pytest.approx(2)
    ranks = (-draws).argsort(1).argsort(1) + 1
    inside = (ranks >= t["rank_lower"].to_numpy()) & (ranks <= t["rank_upper"].to_numpy())
    assert inside.all(axis=1).mean() >= 0.95
    assert t.loc["a", "difference"] == 0 and np.isnan(t.loc["a", "p_below"])
    assert t.loc["f", "p_below"] == 1.0
    with pytest.raises(InputError, match="joint posterior"):
        _known(draws, "abcdef").leaderboard(control="holm")


def test_a_bayesian_fits_tiers_agree_with_its_rank_intervals():
    # a and b are hard to tell apart, c is far below both: one boundary, above c, and no
    # tier claims what the rank intervals do not (a tier above another holds only systems
    # whose rank intervals lie above the other's)
    rng = np.random.default_rng(1)
    draws = np.array([0.6, 0.58, 0.2, 0.19]) + rng.normal(0, 0.012, (4000, 4))
    t = _known(draws, "abcd").leaderboard().set_index("system")
    assert t["tier"].tolist() == [1, 1, 2, 2]
    for s in "ab":
        assert t.loc[s, "rank_upper"] < t.loc[list("cd"), "rank_lower"].min()


def test_the_closed_forms_table_and_the_same_table_from_its_saved_fit(tmp_path):
    frame, _ = small_board()
    fit = jb.LeaderboardStudy.from_items(frame).fit("closed_form", random_seed=3)
    table = fit.leaderboard(0.05, top_k=2)
    assert table.attrs["estimand"] == "process" and "item population" in table.header
    assert table["p_top_k"].sum() == pytest.approx(2)
    wide = frame.pivot(index="system", columns="item", values="score")
    t = table.set_index("system")
    np.testing.assert_allclose(t["estimate"], wide.mean(axis=1).loc[t.index])
    np.testing.assert_allclose(t["se"], (wide.std(axis=1, ddof=1) / np.sqrt(80)).loc[t.index])
    assert (t["lower"] >= 0).all() and (t["upper"] <= 1).all()
    fit.save(tmp_path / "board.nc")
    again = jb.load_fit(tmp_path / "board.nc").leaderboard(0.05, top_k=2)
    pd.testing.assert_frame_equal(pd.DataFrame(table), pd.DataFrame(again))
    # these items: a 0/1 board's scores are the answer, so the ranks are the observed order
    items = fit.leaderboard(estimand="items").set_index("system")
    assert (items["lower"] == items["estimate"]).all()
    assert (items["rank_lower"] == items["rank"]).all()
    holm = fit.leaderboard(control="holm")
    assert (holm["rank_upper"] - holm["rank_lower"]).sum() >= (
        table["rank_upper"] - table["rank_lower"]
    ).sum() - 2  # Holm is rarely shorter than the step-down


def test_every_method_gives_the_table_of_a_judged_board():
    frame, truth = judged_board(np.random.default_rng(2), np.linspace(1, -1, 5), n_items=200)
    study = jb.LeaderboardStudy.from_items(frame, judge="score", human="human")
    for method in ("closed_form", "bootstrap"):
        table = study.fit(method, random_seed=1).leaderboard(alpha=0.05)
        assert "item population" in table.header
        t = table.set_index("system").loc[truth.index]
        assert ((t["lower"] <= truth) & (truth <= t["upper"])).sum() >= 4, (method, t)
    one = jb.leaderboard(frame, judge="score", human="human", random_seed=1)
    table = study.fit("closed_form", random_seed=1).leaderboard()
    pd.testing.assert_frame_equal(
        pd.DataFrame(one).drop(columns=[]), pd.DataFrame(table), check_exact=False
    )
    assert any("judge-corrected" in n for n in one.attrs["notes"])


def test_bad_arguments_are_named():
    fit = jb.LeaderboardStudy.from_items(small_board()[0]).fit("closed_form")
    for kw, field in (
        ({"top_k": 0}, "top_k"),
        ({"top_k": 7}, "top_k"),
        ({"top_k": True}, "top_k"),
        ({"baseline": "nobody"}, "baseline"),
        ({"estimand": "all"}, "estimand"),
        ({"control": "bonferroni"}, "control"),
        ({"draws": 10}, "draws"),  # a critical value from 10 draws
        ({"alpha": 1.5}, "alpha"),
        ({"alpha": 1e-9}, "alpha"),  # 20 / alpha null draws: refused, not out of memory
    ):
        with pytest.raises(InputError) as err:
            fit.leaderboard(**kw)
        assert err.value.field == field, kw
    boot = jb.LeaderboardStudy.from_items(small_board()[0]).fit("bootstrap", reps=200)
    with pytest.raises(InputError, match="reps of at least 400"):
        boot.leaderboard(0.05)
    with pytest.raises(InputError, match="item population"):
        boot.leaderboard(0.5, estimand="items")


def test_ties_share_the_top_and_a_perfect_system_is_not_certain():
    rng = np.random.default_rng(4)
    same = rng.integers(0, 2, 30)
    frame = pd.DataFrame(
        {
            "system": np.repeat(list("abcde"), 30),
            "item": np.tile(np.arange(30), 5),
            "score": np.r_[np.tile(same, 4), np.ones(30)],  # four identical, one perfect
        }
    )
    fit = jb.LeaderboardStudy.from_items(frame).fit("closed_form")
    t = fit.leaderboard(top_k=2).set_index("system")
    # e solved all 30: above the others, its interval Wilson's, not [1, 1]
    assert t.loc["e", "upper"] == 1 and t.loc["e", "lower"] < 0.95
    assert t.loc["e", "p_top_k"] == pytest.approx(1.0, abs=0.01)
    # the four identical systems share the place left equally (not 1 for the first name)
    four = t.loc[list("abcd"), "p_top_k"]
    assert four.nunique() == 1 and four.sum() == pytest.approx(2 - t.loc["e", "p_top_k"])
    assert t.loc[list("abcd"), "rank_lower"].nunique() == 1
    assert not hasattr(fit, "table")  # one table method


def test_a_posteriors_equal_systems_share_a_rank_and_its_notes_reach_the_table():
    # draws of four identical systems: their means differ by the draws' noise alone (a
    # difference's Monte Carlo standard error is 0.014 / sqrt(4000) = 0.0002), so one rank
    # for all; a fifth system 0.01 below (45 of those standard errors) is ranked 5
    rng = np.random.default_rng(2)
    common = rng.normal(0.5, 0.02, (4000, 1))
    x = np.c_[
        common + rng.normal(0, 0.01, (4000, 4)), common - 0.01 + rng.normal(0, 0.01, (4000, 1))
    ]
    fit = _known(x, "abcde")
    t = fit.leaderboard().set_index("system")
    assert t["rank"].tolist() == [1, 1, 1, 1, 5]
    assert t["rank_lower"].tolist()[:4] == [1] * 4
    # clearly ordered systems keep their order
    y = np.array([0.5, 0.4, 0.3]) + rng.normal(0, 0.01, (4000, 3))
    assert _known(y, "abc").leaderboard()["rank"].tolist() == [1, 2, 3]
    # the fit's notes travel with its table (a failed gate among them)
    noted = BoardFit(
        "nuts", fit.idata, info=fit.info, notes=("NUTS did not pass the convergence gate",)
    )
    assert noted.leaderboard().attrs["notes"] == ["NUTS did not pass the convergence gate"]


def test_few_clusters_widen_the_claims_rather_than_narrow_them():
    frame, _ = irt_board(np.random.default_rng(5), np.linspace(1.2, -1.2, 8), n_items=300,
                         cluster_size=100)  # fmt: skip
    none = jb.leaderboard(frame.drop(columns="cluster"))
    with pytest.warns(jb.errors.FewClustersWarning):
        three = jb.leaderboard(frame, cluster="cluster")
    length = {k: (t["rank_upper"] - t["rank_lower"]).mean() for k, t in (("0", none), ("3", three))}
    assert length["3"] > length["0"], length
    assert ((three["upper"] - three["lower"]) > (none["upper"] - none["lower"])).all()
    assert three.attrs["df"] == 2


def test_the_new_users_edges_of_the_table():
    frame, _ = small_board()
    study = jb.LeaderboardStudy.from_items(frame)
    boot = study.fit("bootstrap", reps=500)
    with pytest.raises(InputError, match="resamples"):  # draws= is the closed form's
        boot.leaderboard(draws=5000)
    closed = study.fit("closed_form")
    with pytest.raises(InputError, match="difficulties"):  # a closed form has no items
        closed.new_system({"0": 1})
    lap = study.fit("laplace", random_seed=0)
    with pytest.raises(InputError, match="random_seed"):
        lap.new_system({"0": 1}, random_seed="x")
    with pytest.raises(InputError, match="more than the board's 80 items"):
        lap.plan_items(81)
    # a system that scored the same on every item: the scale's worst case, said
    flat = frame.astype({"score": float})
    flat.loc[flat["system"] == "m00", "score"] = 0.5
    fit = jb.LeaderboardStudy.from_items(flat).fit("closed_form")
    row = fit.leaderboard().set_index("system").loc["m00"]
    assert row["lower"] < 0.45 and row["upper"] > 0.55
    assert any("scored the same on every item" in n for n in fit.notes)
    # the same board's study refuses a fit of another board in check()
    with pytest.raises(InputError, match="fit of this study"):
        jb.LeaderboardStudy.from_items(frame[frame["system"] != "m05"]).check(lap)


def test_two_clusters_are_too_few_to_resample():
    frame, _ = irt_board(np.random.default_rng(6), [1.0, 0.0, -1.0], n_items=60, cluster_size=30)
    with pytest.warns(jb.errors.FewClustersWarning):
        study = jb.LeaderboardStudy.from_items(frame, cluster="cluster")
    with pytest.raises(jb.errors.MethodRefused, match="resamples 2 clusters"):
        study.fit("bootstrap")
    assert study.fit("closed_form").info["df"] == [1.0] * 3


def test_the_second_trials_edges():
    # a fractional score the same on every item: the worst case, not float dust
    flat = pd.DataFrame(
        {
            "system": np.repeat(list("ABC"), 40),
            "item": np.tile(np.arange(40), 3),
            "score": np.r_[np.full(40, 0.3), np.linspace(0, 1, 40), np.linspace(1, 0, 40) ** 2],
        }
    )
    t = jb.leaderboard(flat).set_index("system")
    assert t.loc["A", "se"] == 0 and t.loc["A", "upper"] - t.loc["A", "lower"] > 0.2
    # a system whose every score is blank is named, not dropped silently
    gone = flat.assign(score=flat["score"].where(flat["system"] != "C"))
    assert any("'C'" in n and "not on the board" in n for n in jb.leaderboard(gone).attrs["notes"])
    # a cell of one trial is not its rate: these items' interval keeps a binomial variance
    counts = flat.assign(score=(flat["score"] > 0.5).astype(int), n=1)
    items = jb.leaderboard(counts, trials="n", estimand="items").set_index("system")
    assert (items["upper"] - items["lower"] > 0.05).all()
    # the Laplace fit's own draws pass through jb.leaderboard; a method is named
    frame, _ = small_board()
    assert jb.leaderboard(frame, method="laplace", draws=500).attrs["method"] == "laplace"
    with pytest.raises(InputError, match="method"):
        jb.leaderboard(frame, method=None)
    # a posterior's joint claims need enough draws
    lap = jb.LeaderboardStudy.from_items(frame).fit("laplace", draws=100)
    with pytest.raises(InputError, match="posterior draws"):
        lap.leaderboard(alpha=0.05)


def test_the_bayesian_fits_say_when_a_system_has_few_labels():
    frame, _ = judged_board(np.random.default_rng(9), np.linspace(1, -1, 4), n_items=150)
    few = frame.assign(
        human=frame["human"].where((frame["system"] != "m01") | (frame.index % 50 == 0))
    )
    study = jb.LeaderboardStudy.from_items(few, human="human")
    with pytest.warns(jb.errors.LabellingWarning, match="learnt mostly from the other systems"):
        fit = study.fit("laplace", random_seed=0, budget=120)  # a loaded machine's CPU
    assert any("'m01': 0" in n for n in fit.notes)  # none of its rows labelled
    with pytest.raises(jb.errors.MethodRefused, match="'m01' has 0 labelled row"):
        study.fit("bootstrap")  # the closed forms correct each system by its own labels
    five = frame.assign(
        human=frame["human"].where((frame["system"] != "m01") | (frame.index < 170))
    )
    with pytest.raises(jb.errors.MethodRefused, match="bootstrap of so few labels"):
        jb.LeaderboardStudy.from_items(five, human="human").fit("bootstrap")
