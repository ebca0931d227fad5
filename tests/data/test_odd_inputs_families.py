"""Bad and odd inputs to the score, monitoring, labelling, agreement and ranking entry
points, as a new user gives them: one typed error naming its field, or a result that says
what it is; no numpy or pandas warning reaches the user.

The cases of a second user audit: one column given two roles (a judge read as its own
human label, a verdict column taken as the periods), ``freq=`` on period numbers, a
threshold outside the human scale, labels that all agree, a rater design with nothing to
compare, a constant judge, an item that wins every comparison.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.data.panel import panel_from_frames, panel_from_items
from judgebayes.errors import InputError
from tests.helpers import typed_error

RNG = np.random.default_rng(0)
N = 400
_TRUTH = RNG.random(N) < 0.6
LOG = pd.DataFrame(
    {
        "week": RNG.integers(0, 6, N),
        "system": RNG.choice(["A", "B"], N),
        "score": RNG.integers(1, 11, N).astype(float),
        "judge": np.where(_TRUTH, RNG.random(N) < 0.9, RNG.random(N) < 0.2).astype(int),
        "human": np.where(RNG.random(N) < 0.25, _TRUTH.astype(float), np.nan),
        "item": np.arange(N),
    }
)
_LEVEL = RNG.integers(1, 6, 120)
WIDE = pd.DataFrame(
    {
        "item": np.arange(120),
        "r1": np.clip(_LEVEL + RNG.integers(-1, 2, 120), 1, 5),
        "r2": np.clip(_LEVEL + RNG.integers(-1, 2, 120), 1, 5),
        "j1": np.clip(_LEVEL + RNG.integers(-2, 3, 120), 1, 5).astype(float),
        "c": np.arange(120) // 10,
    }
)
LONG = WIDE.melt(id_vars="item", value_vars=["r1", "r2"], var_name="rater", value_name="value")
_A = RNG.integers(0, 5, 300)
_B = (_A + RNG.integers(1, 5, 300)) % 5
PAIRS = pd.DataFrame(
    {
        "first": [f"s{i}" for i in _A],
        "second": [f"s{i}" for i in _B],
        "winner": [f"s{a}" if RNG.random() < 0.5 + 0.08 * (b - a) else f"s{b}"
                   for a, b in zip(_A, _B, strict=True)],
    }
)  # fmt: skip


PANEL = jb.simulate.simulate_panel(seed=3, n_outputs=60)


def _cells_panel():
    """The simulated panel as counts per cell only (no output's own verdicts)."""
    d = PANEL.panel()
    cells = pd.DataFrame(
        [
            {"generator": g, "validator": v, "n_judged": d.n_judged[i, j],
             "n_valid": d.n_valid[i, j]}
            for i, g in enumerate(d.generators)
            for j, v in enumerate(d.validators)
        ]
    )  # fmt: skip
    return jb.ValidatorPanel(panel_from_frames(cells))


def _scores(frame=LOG, **kw):
    return jb.ScoreStudy.from_items(frame, system="system", **kw)


def _one_sided_ratings():
    w = WIDE[["r1", "r2"]].astype(float)
    w.loc[::2, "r1"] = np.nan
    w.loc[1::2, "r2"] = np.nan
    return w


#: (case, call, the field the typed error names)
ERRORS = [
    ("scores: the score column as the human label", lambda: _scores(human="score"), "human"),
    ("scores: a threshold above every 0/1 label", lambda: _scores(threshold=7), "threshold"),
    ("scores: freq= on period numbers", lambda: _scores(time="week", freq="W"), "freq"),
    ("monitor: the judge as its human", lambda: jb.monitor(LOG, "judge", "judge", "week"), "human"),
    (
        "monitor: the verdicts as periods",
        lambda: jb.monitor(LOG, "judge", "human", "judge"),
        "time",
    ),
    (
        "monitor: freq= on period numbers",
        lambda: jb.monitor(LOG, "judge", "human", "week", freq="W"),
        "freq",
    ),
    (
        "label_next: a negative target width",
        lambda: jb.plan.label_next(LOG, "judge", "human", 10, width=-0.1),
        "width",
    ),
    (
        "label_next: the verdicts as the uncertainty",
        lambda: jb.plan.label_next(LOG, "judge", "human", 10, uncertainty="judge"),
        "uncertainty",
    ),
    (
        "active_estimate: the verdicts as a round's probabilities",
        lambda: jb.active_estimate(LOG.assign(r=1.0), "judge", "human", round="r", probs=["judge"]),
        "probs",
    ),
    (
        "active_estimate: half a cross-fitting fold",
        lambda: jb.active_estimate(
            LOG.assign(r=1.0, p=0.5), "judge", "human", round="r", probs=["p"], folds=2.5
        ),
        "folds",
    ),
    (
        "without_replacement: the labels as the judge",
        lambda: jb.estimators.without_replacement(LOG, "human", judge="human"),
        "judge",
    ),
    (
        "agreement: the ratings as the item",
        lambda: jb.agreement(LONG, "value", "rater", "value"),
        "item",
    ),
    (
        "agreement: the item column among the raters",
        lambda: jb.agreement(WIDE, item="item", raters=["item", "r1"]),
        "item",
    ),
    (
        "agreement: no item rated twice",
        lambda: jb.agreement(_one_sided_ratings(), raters=["r1", "r2"]),
        "raters",
    ),
    (
        "agreement: a population smaller than the items",
        lambda: jb.agreement(WIDE, raters=["r1", "r2"], population=10),
        "population",
    ),
    (
        "agreement: one cluster",
        lambda: jb.agreement(WIDE.assign(c=0), raters=["r1", "r2"], cluster="c"),
        "cluster",
    ),
    (
        "judge_agreement: a judge among the humans",
        lambda: jb.estimators.judge_agreement(WIDE, ["r1"], ["r1", "r2"]),
        "humans",
    ),
    (
        "effective_judges: a judge among the humans",
        lambda: jb.estimators.effective_judges(WIDE, ["j1", "r1"], humans=["j1", "r2"]),
        "humans",
    ),
    (
        "effective_judges: a constant judge",
        lambda: jb.estimators.effective_judges(WIDE.assign(j3=3.0), ["j1", "j3"]),
        "judges",
    ),
    (
        "ranking: the first-shown column as the winner",
        lambda: jb.PairwiseRanking.from_frames(PAIRS, winner="first"),
        "winner",
    ),
    (
        "ranking: the judge's winner as the human's",
        lambda: jb.PairwiseRanking.from_frames(PAIRS, human="winner"),
        "human",
    ),
    ("compare: a study, not fits", lambda: jb.compare(_scores()), "fits"),
    (
        "panel: the generators as the validators",
        lambda: panel_from_items(PANEL.items, validator="generator"),
        "validator",
    ),
    ("panel: a vote on a panel of cells", lambda: _cells_panel().fit("veto"), "items"),
]


@pytest.mark.parametrize("case,call,field", ERRORS, ids=[c[0] for c in ERRORS])
def test_a_bad_input_is_one_typed_error_naming_its_field(case, call, field):
    err = typed_error(call)
    assert err.field == field, (case, err)


def test_labels_that_all_agree_are_said_and_the_closed_form_keeps_a_width():
    same = LOG.assign(human=LOG["human"].where(LOG["human"].isna(), 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        study = _scores(same)
        fit = study.fit("closed_form")
        iv = fit.interval()
        # the floor: with l labels all 1, (l + 1) / (l + 2) smoothed, so the rate's lower
        # end stays below 1 by about 2 standard errors of a Bernoulli at that mean
        n_lab = same.groupby("system")["human"].count()
        sm = (n_lab + 1) / (n_lab + 2)
        floor_se = np.sqrt(sm * (1 - sm) / n_lab * (1 - n_lab / same.groupby("system").size()))
        assert ((1 - iv["lower"]) > 1.5 * floor_se.reindex(iv.index)).all(), iv
        assert sum("same label" in n for n in fit.notes) == 2
        for name in ("ppi_plus_plus", "labels_only"):
            peer = study.fit(name)
            assert (peer.interval()["upper"] == peer.interval()["lower"]).all()
            assert sum("variance estimate is 0" in n for n in peer.notes) == 2
    # a continuous label that varies keeps its own residual variance: no floor, no note
    assert not any("same label" in n for n in _scores().fit("closed_form").notes)


def test_monitor_says_when_the_drift_alarm_has_nothing_after_its_reference():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' time-zone warning included
        t = jb.monitor(LOG, "judge", "human", "week", reference=6)
        assert any("drift alarm's reference" in n for n in t.attrs["notes"])
        assert t["drift_evidence"].isna().all() and not t["alarm"].any()
        notes = jb.monitor(LOG, "judge", "human", "week").attrs["notes"]
        assert all("labels, which the all-channel drift alarm needs" in n for n in notes)
        # time-zone-aware timestamps bucketed by week: the local calendar's weeks
        stamps = pd.Timestamp("2024-01-01", tz="UTC") + pd.to_timedelta(LOG["week"] * 7, "D")
        by_stamp = jb.monitor(LOG.assign(ts=stamps.astype(str)), "judge", "human", "ts", freq="W")
        plain = jb.monitor(LOG, "judge", "human", "week")
        assert np.allclose(by_stamp["estimate"], plain["estimate"])


def test_time_and_item_with_no_shared_prompt_pair_nothing_and_say_so():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        s = jb.AccuracyStudy.from_items(LOG, system="system", time="week", item="item")
        fit = s.fit("closed_form")
    assert "independent" in fit.contrasts()["estimand"].iloc[0]
    assert any("no prompt answered by both" in n or "independent" in n for n in fit.notes)


def test_agreement_of_one_category_is_undefined_not_an_error():
    one = pd.DataFrame({"a": [3] * 20, "b": [3] * 20})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        t = jb.agreement(one, raters=["a", "b"]).set_index("coefficient")
    chance = t.drop(index="percent")
    # every chance-corrected coefficient is 0/0: NaN through to the interval's ends
    assert chance[["estimate", "se", "lower", "upper", "boot_upper"]].isna().all().all()
    assert t.loc["percent", "estimate"] == 1.0
    assert any("one category" in n for n in t.attrs["notes"])
    assert any("percent agreement: its standard error is 0" in n for n in t.attrs["notes"])


def test_an_unbeaten_item_is_named_as_bounded_by_the_prior():
    wins = PAIRS.assign(
        winner=np.where((PAIRS["first"] == "s0") | (PAIRS["second"] == "s0"), "s0", PAIRS["winner"])
    )
    fit = jb.PairwiseRanking.from_frames(wins).fit("naive")
    assert any("won every comparison" in n and "'s0'" in n for n in fit.notes)
    assert not any("every comparison" in n for n in jb.PairwiseRanking.from_frames(PAIRS)
                   .fit("naive").notes)  # fmt: skip


def test_a_panel_of_cells_shows_its_vote_methods_as_refused_rows():
    table = _cells_panel().compare(methods=("validator_mean", "majority", "veto", "nuts_items"))
    notes = table.groupby("method")["note"].first()
    for name in ("majority", "veto", "nuts_items"):
        assert notes[name].startswith("refused") and "panel_from_items" in notes[name]
    assert not notes["validator_mean"]


def test_repeats_of_one_verdict_say_there_is_nothing_to_split():
    runs = jb.simulate.simulate_repeats(30, generations=3, runs=2, seed=0)[0]
    split = jb.variance_split(runs.assign(judge=1))
    assert any("every judge run gave 1" in n for n in split.attrs["notes"])
    assert not any("every judge run" in n for n in jb.variance_split(runs).attrs["notes"])


def test_an_infinite_number_is_named_wherever_a_column_is_read():
    # -inf in a human score gave NaN and a false note ("fewer than 2 labelled rows"); inf in
    # a rating made every agreement coefficient NaN without a note
    from judgebayes.datasets import hanna_scores

    stories = hanna_scores("RE", "Beluga-13B").head(200).copy()
    stories["human"] = stories["human_mean"].where(np.arange(200) % 3 == 0)
    stories.loc[3, "human"] = -np.inf
    with pytest.raises(InputError, match="not a finite number") as err:
        jb.ScoreStudy.from_items(stories, score="Beluga-13B", human="human", system="system")
    assert err.value.field == "human" and err.value.value == -np.inf
    ratings = stories[["human_1", "human_2", "human_3"]].astype(float)
    ratings.loc[7, "human_2"] = np.inf
    with pytest.raises(InputError, match="not a finite number") as err:
        jb.agreement(ratings, raters=["human_1", "human_2", "human_3"], level="ordinal")
    assert err.value.field == "human_2"
