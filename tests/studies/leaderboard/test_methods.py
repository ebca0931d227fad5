"""The leaderboard's methods on boards simulated here with numpy (abilities and
difficulties this file chooses, so each system's mean over the board's items is known):
NUTS and the Laplace fit of the item-response models, a judge learnt from a few labels
(and the closed form's refusals where labels cannot correct it), cells of several
samples, a new system from a few items.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import ConvergenceWarning, InputError, LabellingWarning, MethodRefused
from tests.contract import SMALL, ContractTests
from tests.simulators import judged_board


class TestContract(ContractTests):
    keys = (
        "leaderboard.rasch",
        "leaderboard.2pl",
        "leaderboard.exchangeable",
        "leaderboard.guessing",
    )


ABILITY = np.linspace(-1.0, 1.5, 6)


def _rasch(rng, ability=ABILITY, n_items=80, discrimination=None):
    """One 0/1 outcome per system and item: sigmoid(a_i (ability - b_i)), b ~ N(0, 1.3);
    returns the frame and each system's mean success probability over these items."""
    b = rng.normal(0, 1.3, n_items)
    a = np.ones(n_items) if discrimination is None else discrimination
    p = 1 / (1 + np.exp(-a[None, :] * (ability[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(float)
    names = [f"m{k}" for k in range(ability.size)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, n_items),
            "item": np.tile([f"q{i:03d}" for i in range(n_items)], ability.size),
            "score": y.ravel(),
        }
    )
    return frame, pd.Series(p.mean(1), index=names), b


@pytest.fixture(scope="module")
def rasch_fit():
    frame, truth, b = _rasch(np.random.default_rng(11))
    study = jb.LeaderboardStudy.from_items(frame)
    return study, study.fit("nuts", random_seed=3), truth, b


def test_the_one_parameter_fit_covers_the_items_rates(rasch_fit):
    study, fit, truth, _ = rasch_fit
    assert fit.diagnostics.passed and fit.quantity == "theta"
    iv = fit.interval(0.05)
    inside = (iv["lower"] <= truth) & (truth <= iv["upper"])
    # one data set: 6 intervals at 95% miss more than one with probability 0.03
    assert inside.sum() >= 5, iv.assign(truth=truth)
    # the process estimand is wider: it adds the items' sampling
    ip = fit.interval(0.05, var="theta_process")
    assert ((ip["upper"] - ip["lower"]) > (iv["upper"] - iv["lower"])).all()
    assert not study.check(fit).failures


def test_laplace_is_the_posterior_of_nuts_on_the_same_board(rasch_fit):
    # 6 systems x 80 items, the smallest board the method is measured on: there its sds
    # were 0.95-1.01 of NUTS's and its means within 0.4 NUTS sds (a Laplace error that
    # shrinks with the systems per item: 0.96-1.05 and 0.22 at 40 x 300); NUTS's own
    # Monte-Carlo error on an sd is about 1.5% at 8,000 draws
    study, nuts, _, _ = rasch_fit
    lap = study.fit("laplace", random_seed=0)
    assert lap.method == "laplace" and lap.quantity == "theta" and lap.diagnostics is None
    a, b = (f.draws().values.reshape(-1, 6) for f in (lap, nuts))
    np.testing.assert_array_less(np.abs(a.std(0) / b.std(0) - 1), 0.12)
    np.testing.assert_array_less(np.abs(a.mean(0) - b.mean(0)) / b.std(0), 0.5)
    s_lap, s_nuts = (f.draws("sigma_item").values for f in (lap, nuts))
    assert abs(s_lap.mean() - s_nuts.mean()) < 0.5 * s_nuts.std()
    assert "16 points" in lap.notes[-1] and lap.info["psi_mode"]["sigma_item"] > 0
    table = lap.leaderboard(0.1)
    assert list(table.columns) == list(nuts.leaderboard(0.1).columns) and len(table) == 6


def test_laplace_covers_when_the_items_discriminate_unequally():
    # the one-parameter model's assumption broken: log discriminations N(0, 0.7^2), as a
    # two-parameter board; 40 boards x 6 systems at 90% covered 0.917 (MC sd of the boards'
    # shares 0.016); 0.85 is 3 MC sds below nominal
    shares = []
    for r in range(40):
        rng = np.random.default_rng([31, r])
        disc = np.exp(np.random.default_rng([32, r]).normal(0, 0.7, 80))
        frame, truth, _ = _rasch(rng, discrimination=disc)
        iv = jb.LeaderboardStudy.from_items(frame).fit("laplace", random_seed=r).interval(0.1)
        shares.append(float(((iv["lower"] <= truth) & (truth <= iv["upper"])).mean()))
    assert np.mean(shares) >= 0.85, np.mean(shares)


def test_a_new_system_from_a_few_planned_items(rasch_fit):
    _, fit, _, b = rasch_fit
    rng = np.random.default_rng(5)
    planned = fit.plan_items(30)
    assert len(set(planned)) == 30
    codes = [int(i[1:]) for i in planned]
    truth = float(np.mean(1 / (1 + np.exp(-(0.4 - b)))))
    outcome = {
        i: float(rng.random() < 1 / (1 + np.exp(-(0.4 - b[c]))))
        for i, c in zip(planned, codes, strict=True)
    }
    few = fit.new_system(outcome)
    assert few["lower"] <= truth <= few["upper"] and few["items"] == 30
    every = {f"q{c:03d}": float(rng.random() < 1 / (1 + np.exp(-(0.4 - b[c])))) for c in range(80)}
    full = fit.new_system(every)
    assert full["upper"] - full["lower"] < few["upper"] - few["lower"]
    with pytest.raises(InputError, match="not on the board"):
        fit.new_system({"nope": 1.0})


def test_a_judge_kinder_to_one_system_is_corrected_by_its_labels():
    # specificity 0.4 on m01's answers (0.75 elsewhere), a fifth of the rows labelled
    frame, truth = judged_board(np.random.default_rng(4), ABILITY, n_items=150, labelled=0.2)
    study = jb.LeaderboardStudy.from_items(frame, human="human")
    assert study.data.judged and study.data.confusion.sum() == frame["human"].notna().sum()
    fit = study.fit("nuts", random_seed=1)
    assert fit.diagnostics.passed
    iv = fit.interval(0.05, var="theta_process")
    raw = pd.Series(study.data.observed_rate(), index=study.systems)
    assert raw["m01"] - truth["m01"] > 0.2  # the raw rate is far off
    assert iv.loc["m01", "lower"] <= truth["m01"] <= iv.loc["m01", "upper"]
    assert ((iv["lower"] <= truth) & (truth <= iv["upper"])).sum() >= 5
    se = fit.interval(0.05, var="sensitivity")
    assert (se["lower"] < 0.85).all() and (se["upper"] > 0.85).all()
    # the closed form corrects each system by its own labels: m01 covered too
    iv = study.fit("closed_form").interval(0.05)
    assert iv.loc["m01", "lower"] <= truth["m01"] <= iv.loc["m01", "upper"]
    # the Laplace fit, its items integrated one by one, is NUTS's posterior: with ~1,000
    # effective NUTS draws and 2,000 of Laplace a mean's Monte-Carlo error is ~0.04 NUTS
    # sds and an sd ratio's ~0.03; the approximation's own gap here is up to 0.11 sds
    lap = study.fit("laplace", random_seed=0)
    for f in (fit, lap):  # the one table, for the judged board too
        table = f.leaderboard(alpha=0.05)
        assert table.attrs["estimand"] == "items" and len(table) == ABILITY.size
    for var in ("theta_process", "sensitivity", "specificity"):
        a, b = (f.draws(var).values.reshape(-1, ABILITY.size) for f in (lap, fit))
        assert np.abs(a.mean(0) - b.mean(0)).max() < 0.3 * b.std(0).min(), var
        assert np.all(np.abs(a.std(0) / b.std(0) - 1) < 0.15), var


def test_the_closed_form_refuses_labels_that_cannot_correct_the_judge():
    frame, _ = judged_board(np.random.default_rng(6), ABILITY, n_items=150, labelled=0.2)
    study = jb.LeaderboardStudy.from_items(frame, human="human")
    # labels only where the judge said 1: nothing learnt where it said 0
    only_ones = frame.assign(human=frame["human"].where(frame["score"] == 1))
    for method in ("closed_form", "laplace", "nuts"):  # every method, before any work
        with pytest.raises(MethodRefused, match="score 0"):
            jb.LeaderboardStudy.from_items(only_ones, human="human").fit(method)
    # a system with one label cannot be corrected by its own; NUTS pools the judge
    one = frame.assign(
        human=frame["human"].where((frame["system"] != "m02") | (frame.index % 150 == 3))
    )
    with pytest.raises(MethodRefused, match="'m02' has 0 labelled row"):
        jb.LeaderboardStudy.from_items(one, human="human").fit("bootstrap")
    # labels drawn where the judge said 1 far more often: warned, and corrected per value
    rng = np.random.default_rng(7)
    keep = rng.random(len(frame)) < np.where(frame["score"] == 1, 1.0, 0.05)
    skewed = frame.assign(human=frame["human"].where(keep))
    with pytest.warns(LabellingWarning, match="not a random choice"):
        fit = jb.LeaderboardStudy.from_items(skewed, human="human").fit("closed_form")
    assert any("not a random choice" in n for n in fit.notes)
    assert study.fit("closed_form").notes[0].startswith("judge-corrected by")
    twice = pd.concat([frame, frame.head(3)])
    with pytest.raises(MethodRefused, match="several rows"):
        jb.LeaderboardStudy.from_items(twice, human="human").fit("closed_form")


def test_the_judged_laplace_fit_is_refused_within_its_budget():
    frame, _ = judged_board(np.random.default_rng(8), np.linspace(-1, 1, 12), n_items=200)
    study = jb.LeaderboardStudy.from_items(frame, human="human")
    with pytest.raises(MethodRefused, match=r"budget of 0\.5"):
        study.fit("laplace", budget=0.5)
    with pytest.raises(InputError, match="budget"):
        study.fit("laplace", budget=-1)


def _overdispersed(rng, ability, b, phi=3.0, trials=10):
    """Cells of ``trials`` samples whose rate r ~ Beta(p phi, (1 - p) phi) varies around
    the one-parameter model's p (a model solves some hard items, misses some easy ones)."""
    p = 1 / (1 + np.exp(-(ability[:, None] - b[None, :])))
    r = rng.beta(p * phi, (1 - p) * phi)
    k = rng.binomial(trials, r)
    return r, k


def test_cells_of_several_samples_whose_rates_vary_are_covered():
    rng = np.random.default_rng(21)
    b = rng.normal(0, 1.3, 80)
    r, k = _overdispersed(rng, ABILITY, b)
    names = [f"m{j}" for j in range(ABILITY.size)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, 80),
            "item": np.tile([f"q{i:03d}" for i in range(80)], ABILITY.size),
            "score": k.ravel(),
            "trials": 10,
        }
    )
    study = jb.LeaderboardStudy.from_items(frame, trials="trials")
    assert study.overdispersed
    fit = study.fit("nuts", random_seed=2)
    assert fit.diagnostics.passed
    truth = pd.Series(r.mean(1), index=names)  # each system's rate over these items
    iv = fit.interval(0.05)
    assert ((iv["lower"] <= truth) & (truth <= iv["upper"])).sum() >= 5, iv.assign(t=truth)
    phi = fit.interval(0.05, var="concentration").iloc[0]
    assert phi["lower"] <= 3.0 <= phi["upper"]
    lap = study.fit("laplace", random_seed=2)  # the beta-binomial cells by Laplace
    iv = lap.interval(0.05)
    assert ((iv["lower"] <= truth) & (truth <= iv["upper"])).sum() >= 5, iv.assign(t=truth)
    phi = lap.interval(0.05, var="concentration").iloc[0]
    assert phi["lower"] <= 3.0 <= phi["upper"]
    # a new system (ability 0.3) from 30 planned items: its rate over all 80 covered
    r_new, k_new = _overdispersed(rng, np.array([0.3]), b)
    planned = fit.plan_items(30)
    codes = [int(i[1:]) for i in planned]
    out = fit.new_system(
        pd.Series(k_new[0, codes], index=planned), trials=pd.Series(10, index=planned)
    )
    assert out["lower"] <= r_new.mean() <= out["upper"], (out, r_new.mean())


@pytest.mark.slow
def test_coverage_of_the_one_parameter_model():
    """40 boards of 6 systems x 80 items: the 90% intervals of the items rates.  240
    intervals, correlated within a board; the binomial sd at 0.9 is 0.019, so below 0.85
    is a failure of the model, not Monte-Carlo noise."""
    hit = total = 0
    for seed in range(40):
        frame, truth, _ = _rasch(np.random.default_rng(100 + seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = jb.LeaderboardStudy.from_items(frame).fit(
                "nuts", random_seed=seed, sampler=dict(SMALL, chains=2, draws=500)
            )
        iv = fit.interval(0.1)
        hit += int(((iv["lower"] <= truth) & (truth <= iv["upper"])).sum())
        total += len(truth)
    assert hit / total >= 0.85, hit / total
