"""Several human raters with a latent truth: the items design's latent-class model of judges
and raters (simulated here with numpy: raters who flip labels independently), beside the
raters' majority taken as the truth, which is what evaluations do today.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError, MethodRefused
from tests import helpers
from tests.contract import ContractTests
from tests.simulators import RATERS, simulate_raters


def fits(df, estimand="process"):
    latent = jb.AccuracyStudy.from_items(
        df, judge="judge", human=RATERS, system="system", estimand=estimand
    )
    with warnings.catch_warnings():  # the labelling check's own false alarms
        warnings.simplefilter("ignore", jb.errors.LabellingWarning)
        majority = jb.AccuracyStudy.from_items(
            df, judge="judge", human=RATERS, system="system", truth="majority", estimand=estimand
        ).fit("closed_form")
    return latent, majority


def test_latent_truth_recovers_what_the_majority_misses():
    # raters of accuracy 0.75-0.8: their majority is right ~85% of the time, so on truly
    # positive items at 0.75 the majority's rate is about 0.75 * 0.85 + 0.25 * 0.15 = 0.68
    df, shares = simulate_raters(
        np.random.default_rng(3), theta=(0.75, 0.75), n=1500, accuracy=(0.75, 0.8, 0.78)
    )
    latent, majority = fits(df, estimand="items")
    assert type(latent).__name__ == "SeveralRatersItems"
    fit = latent.fit("nuts", random_seed=1)
    t, m = fit.interval(), majority.interval()
    for s, true in shares.items():
        assert t.loc[s, "lower"] < true < t.loc[s, "upper"]
        assert m.loc[s, "upper"] < true
    q1 = fit.draws("rater_q1").mean("sample").values
    assert np.all(np.abs(q1 - np.array([0.75, 0.8, 0.78])) < 0.08)
    assert any("latent true label" in n for n in fit.notes)
    # what the model says about the raters: their rates, and the agreement they imply,
    # against the raters' observed pairwise Cohen kappas (computed by jb.agreement)
    rates = fit.rater_rates()
    assert list(rates.index) == ["judge", *RATERS]
    assert rates.loc["h1", "sensitivity_lower"] < 0.8 < rates.loc["h1", "sensitivity_upper"]
    implied = fit.rater_agreement().set_index(["a", "b"])
    for i, a in enumerate(RATERS):
        for b in RATERS[i + 1 :]:
            seen = jb.agreement(df, raters=[a, b], coefficients=["cohen"], bootstrap=0)
            # the observed kappa has its own sampling error (se about 0.05 on the ~450
            # items both rated), added to the interval for the model's population kappa
            k, se = seen.loc[0, "estimate"], seen.loc[0, "se"]
            assert implied.loc[(a, b), "lower"] - 2 * se < k < implied.loc[(a, b), "upper"] + 2 * se
    # against the truth: a rater right 80% of the time at prevalence 0.75 says 1 with
    # probability 0.75 * 0.8 + 0.25 * 0.2 = 0.65, agrees by chance with 0.75 * 0.65 + 0.25 *
    # 0.35 = 0.575, so its kappa is (0.8 - 0.575) / (1 - 0.575) = 0.53
    truth_row = implied.loc[("h1", "truth")]
    assert truth_row["lower"] < 0.53 < truth_row["upper"]
    # the three readings of "the human label" from the one model, against what the one-label
    # closed form gives on the majority and on each rater alone (their mean: the expected
    # single rater); both are items rates, the model's process rates, so a small slack
    readings = fit.estimands()
    ones = [
        jb.AccuracyStudy.from_items(df, judge="judge", human=r, system="system")
        .fit("closed_form")
        .interval()
        for r in RATERS
    ]
    for s in ("A", "B"):
        single = readings.loc[(s, "expected single rater")]
        mean_one = np.mean([o.loc[s, "estimate"] for o in ones])
        assert single["lower"] - 0.02 < mean_one < single["upper"] + 0.02
        maj = readings.loc[(s, "majority of the raters")]
        assert maj["lower"] - 0.02 < m.loc[s, "estimate"] < maj["upper"] + 0.02
        assert maj["upper"] < readings.loc[(s, "latent truth"), "estimate"]


def test_one_label_methods_refuse_and_say_what_to_do():
    df, _ = simulate_raters(np.random.default_rng(4), n=200)
    latent, _ = fits(df)
    for name in ("closed_form", "exact", "ppi_plus_plus", "labels_only"):
        with pytest.raises(MethodRefused, match="truth='majority'"):
            latent.fit(name)
    with pytest.raises(InputError, match="truth must be"):
        jb.AccuracyStudy.from_items(df, judge="judge", human=RATERS, truth="mean")
    with pytest.raises(InputError, match="'judge' is given as both judge= and human="):
        jb.AccuracyStudy.from_items(df, judge="judge", human=["judge", "h0"])
    with pytest.raises(InputError, match="no cluster"):
        jb.AccuracyStudy.from_items(
            df.assign(c=df.index // 10), judge="judge", human=RATERS, cluster="c"
        )


def test_majority_ties_are_counted():
    df, _ = simulate_raters(np.random.default_rng(5), n=300)
    study = jb.AccuracyStudy.from_items(
        df, judge="judge", human=["h0", "h1"], system="system", truth="majority"
    )
    assert study.data.n_ties > 0
    assert study.data.n_ties == int(((df["h0"] + df["h1"]) == 1).sum())
    fit = study.fit("closed_form")
    assert any(f"{study.data.n_ties} item(s) whose raters tied" in n for n in fit.notes)


def _thin(rng, overlap, err, n=600, labelled=200):
    """Three raters wrong on a share ``err`` of items; ``overlap`` of the labelled items
    rated by all three, the others by one rater (numpy, not the package's simulators)."""
    t = (rng.random(n) < 0.6).astype(int)
    judge = np.where(t == 1, rng.random(n) < 0.85, rng.random(n) < 0.2).astype(int)
    rated = np.full((n, 3), np.nan)
    for i in rng.choice(n, labelled, replace=False):
        for r in range(3) if rng.random() < overlap else [int(rng.integers(3))]:
            rated[i, r] = t[i] if rng.random() >= err else 1 - t[i]
    return pd.DataFrame(rated, columns=["r0", "r1", "r2"]).assign(judge=judge)


def test_a_majority_of_one_rater_is_said_and_the_latent_truth_named():
    # 5% of labelled items rated by all three: the "majority" is mostly one rater's label,
    # whose errors the closed forms take as truth (benchmarks/majority_overlap.py: 0.73
    # coverage at nominal 0.95 in this design)
    thin = _thin(np.random.default_rng(0), 0.05, 0.15)
    study = jb.AccuracyStudy.from_items(
        thin, judge="judge", human=["r0", "r1", "r2"], truth="majority"
    )
    with pytest.warns(jb.errors.LabellingWarning, match="have one rater.*truth='latent'") as w:
        fit = study.fit("closed_form")
    assert str(w[0].message) in fit.notes
    # every item rated by three accurate raters: no warning; a few accurate overlaps bound
    # the raters' error (upper 95% bound under 5%) and keep it quiet too
    for overlap, n in ((1.0, 600), (0.5, 2000)):
        full = _thin(np.random.default_rng(1), overlap, 0.0, n=n, labelled=400)
        study = jb.AccuracyStudy.from_items(
            full, judge="judge", human=["r0", "r1", "r2"], truth="majority"
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error", jb.errors.LabellingWarning)
            study.fit("closed_form")


def coverage(n_sets, seed, estimand="process"):
    rng = np.random.default_rng(seed)
    hit_latent = hit_majority = 0
    for _ in range(n_sets):
        df, shares = simulate_raters(rng)
        latent, majority = fits(df, estimand)
        with warnings.catch_warnings():  # the labelling check's own false alarms
            warnings.simplefilter("ignore", jb.errors.LabellingWarning)
            t = latent.fit("nuts", random_seed=int(rng.integers(1 << 31))).interval()
        m = majority.interval()
        for s, true in (("A", 0.6), ("B", 0.45)) if estimand == "process" else shares.items():
            hit_latent += t.loc[s, "lower"] <= true <= t.loc[s, "upper"]
            hit_majority += m.loc[s, "lower"] <= true <= m.loc[s, "upper"]
    return hit_latent / (2 * n_sets), hit_majority / (2 * n_sets)


@pytest.mark.slow
@pytest.mark.parametrize("estimand", ["process", "items"])
def test_latent_truth_covers_at_nominal(estimand):
    # 200 sets x 2 systems = 400 intervals: Monte-Carlo sd of a 95% coverage 0.0109; the
    # majority of three such raters is right 96% of the time, so its own coverage (shown in
    # BENCHMARKS) is near nominal here too: what the latent model adds is that it covers
    # without depending on that
    latent, _ = coverage(200, 31, estimand)
    assert abs(latent - 0.95) <= 2.5 * 0.0109


@pytest.mark.parametrize(("accuracy", "status"), [(0.97, 0), (0.62, 1)])
def test_gate_refuses_claims_on_labels_the_raters_do_not_agree_on(tmp_path, accuracy, status):
    # (seed 6 gave a false alarm of the labelling check on row order, p = 0.008, which the
    # gate also fails on: a 1%-level check that is not the one tested here)
    df, _ = simulate_raters(
        np.random.default_rng(7), theta=(0.7, 0.4), n=800, accuracy=(accuracy,) * 3
    )
    path = tmp_path / "items.csv"
    df.to_csv(path, index=False)
    res = helpers.cli(
        "gate",
        path,
        "--human",
        "h0,h1,h2",
        "--truth",
        "majority",
        "--system",
        "system",
        "--method",
        "closed-form",
        "--claim",
        "A > B",
    )
    assert res.returncode == status, res.stderr
    verdict = res.stderr.strip().splitlines()[0]
    if status:
        # alpha of three 62% raters is about (2 * 0.62 - 1)^2 = 0.06: the claim is refused
        # with the reason, though A > B holds
        assert "FAIL" in verdict and "label_agreement" in verdict
    else:
        assert "PASS" in verdict


def test_majority_probability_by_enumeration():
    from itertools import product

    from judgebayes.studies.items.raters import _majority_positive

    rng = np.random.default_rng(8)
    for R in (2, 3, 4, 5):
        q = rng.uniform(0.5, 0.95, (3, R))
        for row in range(3):
            yes = tie = 0.0
            for said in product((0, 1), repeat=R):
                p = np.prod([q[row, r] if s else 1 - q[row, r] for r, s in enumerate(said)])
                yes += p * (sum(said) > R / 2)
                tie += p * (sum(said) == R / 2)
            assert _majority_positive(q)[row] == pytest.approx(yes / (1 - tie), abs=1e-12)


def simulate_shared_hard_items(rng, n=600, theta=(0.6, 0.45), hard=0.2):
    """Data that break the latent-truth model's independence: on a ``hard`` share of the
    items the judge and every rater are each wrong half the time (elsewhere the raters 5%,
    the judge 10% / 20% on positives / negatives), so their errors come together.
    """
    rows = []
    for s, t in zip("AB", theta, strict=True):
        truth = rng.random(n) < t
        is_hard = rng.random(n) < hard
        easy_wrong = np.where(truth, rng.random(n) < 0.1, rng.random(n) < 0.2)
        judge_wrong = np.where(is_hard, rng.random(n) < 0.5, easy_wrong)
        d = {"system": s, "judge": np.where(judge_wrong, ~truth, truth).astype(int)}
        lab = rng.random(n) < 0.3
        for r in RATERS:
            wrong = np.where(is_hard, rng.random(n) < 0.5, rng.random(n) < 0.05)
            d[r] = np.where(lab, np.where(wrong, ~truth, truth), np.nan)
        rows.append(pd.DataFrame(d))
    return pd.concat(rows, ignore_index=True)


@pytest.mark.slow
def test_latent_truth_covers_when_judge_and_raters_are_fooled_together():
    # 100 sets x 2 systems: Monte-Carlo sd of a 95% coverage 0.0154 (measured 0.925, the
    # majority as the truth 0.915; the model's independence is broken on a fifth of the items)
    rng = np.random.default_rng(5)
    hits = 0
    for i in range(100):
        df = simulate_shared_hard_items(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jb.errors.LabellingWarning)
            t = (
                jb.AccuracyStudy.from_items(df, human=RATERS, system="system", estimand="process")
                .fit("nuts", random_seed=i)
                .interval()
            )
        for unit, true in (("A", 0.6), ("B", 0.45)):
            hits += int(t.loc[unit, "lower"] <= true <= t.loc[unit, "upper"])
    assert hits / 200 >= 0.95 - 2.5 * 0.0154


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("items.raters",)
