"""Leaderboards: the closed form against sums written out, the rank intervals' simultaneous
coverage and the contrasts' family-wise error on boards simulated here by an
item-response model (tests/simulators.py, no code of the package), and real boards."""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.simulators import irt_board


def test_a_board_separates_what_differs_and_ties_what_does_not():
    rng = np.random.default_rng(1)
    frame, _ = irt_board(rng, [2.0, 1.95, 0.0, -2.0], n_items=800)
    t = jb.leaderboard(frame, top_k=1).set_index("system")
    assert list(t.index) == ["m00", "m01", "m02", "m03"] or set(t.index[:2]) == {"m00", "m01"}
    # the two near-equal leaders share a tier and their rank intervals overlap; the
    # others are alone
    assert t.loc["m00", "tier"] == t.loc["m01", "tier"] == 1
    assert t.loc["m02", "rank_lower"] == t.loc["m02", "rank_upper"] == 3
    assert t.loc["m03", "tier"] == 3
    assert t.loc[["m00", "m01"], "p_top_k"].sum() == pytest.approx(1.0)
    assert t.attrs["control"] == "step-down over all pairs" and t.attrs["n_items"] == 800


def test_items_not_scored_for_every_system_are_counted_and_bad_input_named():
    frame, _ = irt_board(np.random.default_rng(2), [1.0, 0.0, -1.0], n_items=50)
    gaps = frame.drop(index=[0, 1]).assign(score=lambda f: f["score"].where(f.index != 60))
    t = jb.leaderboard(gaps)
    assert t.attrs["n_items"] == 47
    assert "3 item(s) not answered by every system" in " ".join(t.attrs["notes"])
    assert "1 row(s) without a score" in " ".join(t.attrs["notes"])
    for kwargs, fields in (
        ({"top_k": 0}, {"top_k"}),
        ({"baseline": "nobody"}, {"baseline"}),
        ({"score": "nope"}, {"score"}),
        ({"score": "system"}, {"score", "system"}),  # one column in two roles
    ):
        with pytest.raises(InputError) as err:
            jb.leaderboard(frame, **kwargs)
        assert err.value.field in fields, kwargs
    # a second row of a system on an item is a second sample: averaged, and said
    t = jb.leaderboard(pd.concat([frame, frame.head(1)]))
    assert "1 (system, item) cell(s) hold several rows" in " ".join(t.attrs["notes"])
    with pytest.raises(InputError, match="bootstrap= is gone"):
        jb.leaderboard(frame, bootstrap=0)
    # the table's and the method's keywords reach them; an unknown one is named
    t = jb.leaderboard(frame, method="bootstrap", reps=500, estimand="process")
    assert t.attrs["method"] == "bootstrap"
    assert jb.leaderboard(frame, control="holm", draws=2000).attrs["control"].startswith("Holm")
    with pytest.raises(InputError, match="takes no keyword 'sytem'; it takes: adjust, cluster"):
        jb.leaderboard(frame, sytem="system")  # the roles listed, not only the method's own


def test_alpaca_eval_and_livecodebench_boards():
    from judgebayes.datasets import alpaca_eval_judgments, livecodebench_generation

    ae2 = alpaca_eval_judgments("weighted_alpaca_eval_gpt4_turbo")
    t = jb.leaderboard(ae2, system="model", item="item_id", score="win", top_k=3)
    assert len(t) == 58 and t.attrs["n_items"] == 797  # 8 items some models lack
    # the adversarial constant answer tops the judge's board, surely first of all 58 at
    # once (1,653 pairs compared), and the next model is surely not the best
    assert t.iloc[0]["system"] == "NullModel" and t.iloc[0]["rank_upper"] == 1
    assert t.iloc[1]["separated"] and t.iloc[1]["tier"] == 2
    assert (t["rank_lower"] <= t["rank"]).all() and (t["rank"] <= t["rank_upper"]).all()
    assert t["p_top_k"].sum() == pytest.approx(3.0)
    lcb = livecodebench_generation()
    # its platforms and contest dates group the problems, undeclared: said
    with pytest.warns(jb.errors.ClusteringWarning, match="'platform'"):
        t = jb.leaderboard(lcb, system="model", item="question_id", score="solved")
    assert len(t) == 45 and t.attrs["n_items"] == 400
    assert t.iloc[0]["estimate"] == pytest.approx(lcb.groupby("model")["solved"].mean().max())


def test_a_judged_board_is_corrected_by_a_few_human_labels():
    # a judge with sensitivity 0.85 and specificity 0.75 (0.4 on system m01's answers),
    # 15% of rows labelled: over 30 boards the corrected intervals cover each system's
    # true mean about 95% of the time (0.88 is 3 Monte-Carlo sd of 300 system-boards below,
    # with the systems of a board correlated), where the judge's own means miss m01 always
    from tests.simulators import judged_board

    abilities = np.array([1.0, 0.6, 0.3, 0.0, -0.3, -0.6, -1.0, -1.4, -1.8, -2.2])
    hits, naive_m01 = [], []
    for r in range(30):
        frame, truth = judged_board(np.random.default_rng([11, r]), abilities)
        t = jb.leaderboard(frame, human="human").set_index("system")
        t = t.loc[truth.index]
        hits += list((t["lower"] <= truth) & (truth <= t["upper"]))
        naive = jb.leaderboard(frame).set_index("system").loc["m01"]
        naive_m01.append(naive["lower"] <= truth["m01"] <= naive["upper"])
    assert np.mean(hits) >= 0.88, np.mean(hits)
    assert np.mean(naive_m01) <= 0.1
    assert "judge-corrected by" in " ".join(t.attrs["notes"])
    with pytest.raises(jb.errors.MethodRefused, match="'m03' has 0 labelled"):
        few = frame.assign(human=frame["human"].where(frame["system"] != "m03"))
        jb.leaderboard(few, human="human")


def test_the_rank_plot_draws_each_systems_interval_and_tier():
    import matplotlib

    matplotlib.use("Agg")
    frame, truth = irt_board(np.random.default_rng(8), np.linspace(-1, 1.5, 7), n_items=150)
    table = jb.leaderboard(frame)
    true_rank = dict(zip(truth.index, (-truth).rank(method="min"), strict=True))
    ax = jb.plot_ranks(table, truth=true_rank)
    segments = ax.collections[0].get_segments()  # the bars, best first, top down
    order = table.sort_values(["rank", "system"], kind="stable")
    for seg, (_, r) in zip(segments, order.iterrows(), strict=True):
        assert seg[0][0] == pytest.approx(r["rank_lower"] - 0.3)
        assert seg[1][0] == pytest.approx(r["rank_upper"] + 0.3)
    dots = ax.collections[1].get_offsets()
    assert dots[:, 0].tolist() == order["rank"].tolist()
    crosses = ax.collections[2].get_offsets()
    assert crosses[:, 0].tolist() == [true_rank[s] for s in order["system"]]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    pairs = zip(order["system"], order["tier"], strict=True)
    assert labels == [f"{s} (tier {t})" for s, t in pairs]
    with pytest.raises(InputError, match="lacks the column"):
        jb.plot_ranks(table.drop(columns="tier"))
    with pytest.raises(InputError, match="a dict or a Series"):
        jb.plot_ranks(table, truth=[1, 2, 3])
    with pytest.raises(InputError, match="not a system"):
        jb.plot_ranks(table, truth={"zz": 1})
    from judgebayes.report import Report

    with pytest.raises(InputError, match="leaderboard table"):
        Report("x").leaderboard(table.drop(columns="rank"))
    report = Report("x")
    report.leaderboard(table)
    with pytest.raises(InputError, match=r"\.html or \.md"):
        report.write("board.txt")
