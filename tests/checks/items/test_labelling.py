"""The labelling-design check: labelled against unlabelled items within the design's cells.

The simulations here are written with numpy alone (no package simulator or model): a judge
lenient on long answers with the short ones labelled more often, a judge that drifts over
a log with labels from its first half, and the two designs every estimator allows (random
labels, labels stratified by the verdict).  Coverage tolerances are 2.5 Monte-Carlo sd of
a 0.95 coverage over the sets run (stated at each assertion).
"""

import types
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes.checks.items import labelling
from judgebayes.errors import MethodRefused
from tests.helpers import cli

SETS = 300
#: 2.5 Monte-Carlo sd of a 0.95 coverage over SETS sets
NOMINAL = 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / SETS)


def _frame(seed: int, design: str, n: int = 1000) -> pd.DataFrame:
    """One judged log: rate 0.6; the judge lenient on long answers (its specificity 0.9 on
    short ones, 0.5 on long) or drifting (specificity 0.9 in the first half of the log,
    0.5 in the second); labels at random, by verdict, by length or from the first half.
    """
    rng = np.random.default_rng(seed)
    length = rng.lognormal(5, 0.8, n)
    long = length > np.exp(5)
    time = np.sort(rng.uniform(0, 30, n))  # days
    late = np.arange(n) >= n // 2
    h = (rng.random(n) < 0.6).astype(float)
    worse = late if design == "drift" else long
    spec = np.where(worse, 0.5, 0.9)
    v = np.where(h == 1, rng.random(n) < 0.9, rng.random(n) > spec).astype(float)
    p_lab = {
        "random": np.full(n, 0.12),
        "verdict": np.where(v == 1, 0.2, 0.06),
        "length": np.where(long, 0.04, 0.2),
        "drift": np.where(late, 0.0, 0.24),
    }[design]
    lab = rng.random(n) < p_lab
    return pd.DataFrame(
        {
            "judge": v,
            "human": np.where(lab, h, np.nan),
            "length": length,
            "time": time,
            "truth": h,
        }
    )


def _run(design: str, sets: int = SETS, **kw) -> tuple[float, float]:
    """(share of sets the check flags, coverage of the closed form's N-item interval)."""
    flagged = covered = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.errors.LabellingWarning)
        for seed in range(sets):
            df = _frame(seed, design)
            study = jb.AccuracyStudy.from_items(df, design_columns=["length"], **kw)
            flagged += bool(study.check().failures)
            iv = study.fit("closed_form").interval().iloc[0]
            covered += iv["lower"] <= df["truth"].mean() <= iv["upper"]
    return flagged / sets, covered / sets


def test_labels_that_follow_length_are_flagged_and_strata_by_length_cover():
    flag, cover = _run("length")
    assert flag >= 0.8  # the acceptance bar; measured 1.00
    assert cover < 0.85  # what the check protects against (measured about 0.6)
    _, cover_by = _run("length", labelled_by=["length"])
    assert cover_by >= NOMINAL


@pytest.mark.parametrize("design", ["random", "verdict"])
def test_random_and_verdict_labelling_are_not_flagged_and_cover(design):
    flag, cover = _run(design)
    # Holm at 0.01 over two rows: at most 0.01 of sets in expectation; 0.03 is 2.5 MC sd
    # above it at 300 sets
    assert flag <= 0.03
    assert cover >= NOMINAL


def test_labels_from_the_first_weeks_of_a_drifting_log_are_flagged():
    flag, cover = _run("drift")
    assert flag >= 0.8 and cover < 0.85
    # the row order is not a column: the note says how to make it one
    with pytest.warns(jb.errors.LabellingWarning, match="row order") as caught:
        jb.AccuracyStudy.from_items(_frame(0, "drift")).fit("closed_form")
    assert "labelled_by=['position']" in str(caught[0].message)
    # strata by time: the unlabelled weeks are partially identified, and the interval says so
    _, cover_t = _run("drift", sets=100, labelled_by=["time"])
    assert cover_t >= 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / 100)


def test_the_rank_test_is_van_elteren_written_independently():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 15, 600).astype(float)  # ties
    lab = rng.random(600) < 0.3
    cell = rng.integers(0, 4, 600)
    num = den = 0.0
    for c in range(4):
        xc, lc = x[cell == c], lab[cell == c]
        n, m = xc.size, lc.sum()
        r = stats.rankdata(xc)
        _, t = np.unique(xc, return_counts=True)
        var = m * (n - m) / 12 * ((n + 1) - (t**3 - t).sum() / (n * (n - 1)))
        num += (r[lc].sum() - m * (n + 1) / 2) / (n + 1)
        den += var / (n + 1) ** 2
    p = 2 * stats.norm.sf(abs(num) / np.sqrt(den))
    got = labelling._numeric(x, lab, cell)
    assert got["p_raw"] == pytest.approx(p, rel=1e-12)
    # one cell: the Mann-Whitney test
    mw = stats.mannwhitneyu(x[lab], x[~lab], method="asymptotic", use_continuity=False)
    assert labelling._numeric(x, lab, np.zeros(600, int))["p_raw"] == pytest.approx(mw.pvalue)


def test_a_fit_says_which_estimators_remain_valid_and_the_gate_fails_on_it():
    df = _frame(0, "length")
    study = jb.AccuracyStudy.from_items(df, design_columns=["length"])
    with pytest.warns(jb.errors.LabellingWarning, match="labelled_by=\\['length'\\]"):
        fit = study.fit("closed_form")
    assert any("length" in n and "covariates=['length']" in n for n in fit.notes)
    report = study.check(fit)
    assert [r.check for r in report.failures] == ["labelling"]
    # declared: strata by length; the check no longer tests it and the fit carries no note
    by = jb.AccuracyStudy.from_items(df, design_columns=["length"], labelled_by="length")
    assert by.check().table.query("check == 'labelling'")["unit"].tolist() == ["row order"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", jb.errors.LabellingWarning)
        assert not any("labelling" in n for n in by.fit("closed_form").notes)


def test_covariates_flag_every_fit_but_the_covariate_model():
    df = _frame(1, "length")
    study = jb.AccuracyStudy.from_items(df, covariates=["length"])
    table = study.check().table
    assert table.set_index("check").loc["labelling_covariates", "flagged"]
    flags = study.labelling_flags
    assert labelling.relevant_flags(study, flags, "closed_form")[0][0] == "length"
    assert labelling.relevant_flags(study, flags, "nuts") == []  # it conditions on length
    fit = types.SimpleNamespace(method="nuts", is_point=False)
    assert not labelling.CHECK_COVARIATES.relevant(study, fit)


def test_a_categorical_design_column_and_an_order_column():
    df = _frame(2, "random")
    df["annotator_pool"] = np.where(df["length"] > df["length"].median(), "b", "a")
    df = df.sample(frac=1, random_state=0)  # rows out of time order
    study = jb.AccuracyStudy.from_items(df, design_columns=["annotator_pool"], order="time")
    t = study.check().table.set_index("unit")
    assert set(t.index) == {"time", "annotator_pool"}
    assert t.loc["annotator_pool", "test"] == "chi-square, summed over cells"
    assert not t["flagged"].any()
    with pytest.raises(jb.InputError, match="order"):
        jb.AccuracyStudy.from_items(df, order="nope")
    with pytest.raises(jb.InputError, match="labelled_by"):
        jb.AccuracyStudy.from_items(df, labelled_by=["nope"])


def test_cli_gate_names_the_labelling_check_and_labelled_by_repairs_it(tmp_path):
    df = _frame(0, "length").drop(columns="truth")
    path = tmp_path / "items.csv"
    df.to_csv(path, index=False)
    base = ["gate", str(path), "--claim", "all > 0.3"]
    out = cli(*base, "--design-column", "length")
    assert out.returncode == 1 and "labelling" in out.stderr
    ok = cli(*base, "--design-column", "length", "--labelled-by", "length")
    assert ok.returncode == 0, ok.stderr
    cal = tmp_path / "cal.csv"
    df.dropna().to_csv(cal, index=False)
    bad = cli(*base, "--calibration", str(cal), "--labelled-by", "length")
    assert bad.returncode == 2 and "--labelled-by" in bad.stderr


def test_prompts_labelled_together_on_paired_systems_are_not_flagged():
    # two systems answering the same 500 prompts, 30% of prompts labelled on both at once;
    # a length column and a category.  Row statistics are correlated across the systems;
    # with the variance over items the checks stay at their level: a true 1% rate gives 6
    # or more of 200 with probability 0.02 (without it the order flagged 4.5% on LLMBar)
    flagged = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        n = 500
        length = rng.lognormal(5, 0.8, n)
        pool = rng.choice(["a", "b", "c"], n)
        lab = rng.random(n) < 0.3
        rows = []
        for s, rate in (("A", 0.7), ("B", 0.6)):
            h = rng.random(n) < rate
            v = np.where(h, rng.random(n) < 0.85, rng.random(n) < 0.25)
            rows.append(
                pd.DataFrame(
                    {
                        "system": s,
                        "item": np.arange(n),
                        "judge": v * 1.0,
                        "human": np.where(lab, h, np.nan),
                        "length": length,
                        "pool": pool,
                    }
                )
            )
        study = jb.AccuracyStudy.from_items(
            pd.concat(rows), system="system", item="item", design_columns=["length", "pool"]
        )
        flagged += bool(labelling.flags(study)["labelling"])
    assert flagged <= 5


def test_comparators_that_assume_random_labels_refuse_verdict_dependent_labels():
    # labels drawn for 20% of the judge's positives and 6% of its negatives: PPI++ and the
    # labels' mean are biased there; compare() shows them as refused rows that say why,
    # and random labels (or the verdict given as a stratum) keep them
    by_verdict = _frame(0, "verdict")
    methods = ("closed_form", "ppi_plus_plus", "labels_only")
    table = jb.AccuracyStudy.from_items(by_verdict).compare(methods=methods).set_index("method")
    for name in ("ppi_plus_plus", "labels_only"):
        assert np.isnan(table.loc[name, "estimate"])
        assert "depend on the judge's verdict" in table.loc[name, "note"]
    assert np.isfinite(table.loc["closed_form", "estimate"])
    with pytest.raises(MethodRefused) as e:
        jb.AccuracyStudy.from_items(by_verdict).fit("ppi")
    assert e.value.field == "human"
    stratified = jb.AccuracyStudy.from_items(by_verdict.assign(v=by_verdict["judge"]), stratum="v")
    assert np.isfinite(stratified.fit("ppi_plus_plus").interval()["estimate"].iloc[0])
    rand = jb.AccuracyStudy.from_items(_frame(0, "random"))
    assert np.isfinite(rand.fit("ppi_plus_plus").interval()["estimate"].iloc[0])


def test_labels_that_follow_the_verdict_a_little_warn_instead_of_refusing():
    # 20,000 items labelled at 12.5% when the judge says 1 and 10% when it says 0: Fisher's
    # test finds it (p = 5e-5), as it finds 1 in 1,000 random labellings by chance (3 of
    # 1,600 random labellings of LLMBar were refused on it alone); below 1e-6 of p a
    # refusal, above it a warning that states the estimated bias and the remedy
    rng = np.random.default_rng(4)
    n = 20_000
    h = (rng.random(n) < 0.6).astype(float)
    v = np.where(h == 1, rng.random(n) < 0.9, rng.random(n) > 0.8).astype(float)
    lab = rng.random(n) < np.where(v == 1, 0.125, 0.10)
    study = jb.AccuracyStudy.from_items(
        pd.DataFrame({"judge": v, "human": np.where(lab, h, np.nan)})
    )
    for name in ("labels_only", "ppi_plus_plus"):
        with pytest.warns(jb.errors.LabellingWarning, match=r"biases it by about [+-]0\.0"):
            fit = study.fit(name)
        assert any("depend on the judge's verdict" in note for note in fit.notes)
        assert np.isfinite(fit.interval()["estimate"].iloc[0])
