"""Real data end to end: loaders, the split protocol, invariance, judge bias, rankings, reports."""

import base64
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from scipy.special import log_expit

import judgebayes as jb
from judgebayes import datasets
from judgebayes.data.accuracy import calibration_mask
from judgebayes.errors import InputError
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.studies.accuracy import AccuracyStudy
from judgebayes.workflows.split_protocol import split_masks, split_protocol
from tests.helpers import cli, run


# ----------------------------------------------------------------------------- loaders
def test_pandalm_loader():
    d = datasets.load_pandalm_pairs()
    assert len(d) == 999 and d["idx"].is_unique
    assert set(d["model_1"]) | set(d["model_2"]) == set(datasets.PANDALM_GENERATORS)
    # response 1 is always the alphabetically earlier generator (the documented confound)
    assert (d["model_1"] < d["model_2"]).all()
    assert int(d["gpt35_verdict"].isna().sum()) == 25
    # the majority is a majority of the three annotators (or a tie)
    votes = d[["annot1", "annot2", "annot3"]].to_numpy()
    for v, m in zip(votes[:200], d["human_majority"][:200], strict=True):
        assert (v == m).sum() >= 2 or m == 0


def test_pandalm_comparisons_contract():
    c = datasets.pandalm_comparisons("gpt-3.5-turbo")
    assert c.attrs["n_missing"] == 25 and len(c) == 999 - 25
    raw = datasets.load_pandalm_pairs().set_index("idx")
    one = c[c["winner"] != ""].head(50)
    for r in one.itertuples():
        v = raw.loc[r.idx, "gpt35_verdict"]
        assert r.winner == (raw.loc[r.idx, "model_1"] if v == 1 else raw.loc[r.idx, "model_2"])
    full = datasets.pandalm_comparisons("gpt-3.5-turbo", drop_missing=False)
    assert len(full) == 999 and int(full["winner"].isna().sum()) == 25
    assert int((datasets.pandalm_comparisons("human")["winner"] == "").sum()) == 105
    with pytest.raises(InputError, match="source"):
        datasets.pandalm_comparisons("gpt-5")


def test_llmbar_both_orders_matches_the_judgments():
    b = datasets.llmbar_both_orders("Falcon")
    raw = datasets.load_llmbar_judgments()
    raw = raw[(raw["evaluator"] == "Falcon")]
    raw = raw[raw["strategy"] == raw["subset"].map(datasets.llmbar._default_strategy)]
    assert len(b) == 2 * len(raw)
    orig = b[b["order"] == "original"].set_index(["subset", "idx"])["pick"]
    swap = b[b["order"] == "swapped"].set_index(["subset", "idx"])["pick"]
    r = raw.set_index(["subset", "idx"])
    np.testing.assert_array_equal(orig.loc[r.index].to_numpy(), r["winner_orig_order"])
    np.testing.assert_array_equal(swap.loc[r.index].to_numpy(), r["winner_swapped_order"])
    assert set(b.loc[b["order"] == "swapped", "shown_first"]) == {2}


# ------------------------------------------------------------------------ split protocol
@pytest.fixture(scope="session")
def natural():
    it = datasets.llmbar_accuracy_items("ChatGPT")
    return it[it["subset"] == "LLMBar_Natural"].reset_index(drop=True)


def test_split_masks_bookkeeping(natural):
    h = natural["human"].to_numpy()
    m = split_masks(h, 20, 0.3, seed=7)
    assert m.shape == (20, len(h)) and m.dtype == bool
    # every split is reproducible alone, and again with the same seed
    np.testing.assert_array_equal(m, split_masks(h, 20, 0.3, seed=7))
    np.testing.assert_array_equal(m[13], calibration_mask(h, 0.3, np.random.default_rng([7, 13])))
    assert not np.array_equal(m, split_masks(h, 20, 0.3, seed=8))
    # stratified sizes: round(0.3 * class size) of each class
    for cls in (0, 1):
        size = int((h == cls).sum())
        assert (m[:, h == cls].sum(1) == int(np.floor(0.3 * size + 0.5))).all()
    assert len({tuple(np.flatnonzero(r)) for r in m}) == 20  # the splits differ


def test_split_protocol_counts_and_closed_form_reference(natural):
    frac, seed = 0.3, 3
    items = natural.copy()
    items.loc[[0, 5], "judge"] = np.nan  # two missing verdicts: counted, in no split
    res = split_protocol(
        items, n_splits=6, calibration_fraction=frac, seed=seed, methods=("closed_form",)
    )
    assert int(res.groups["n_missing"].iloc[0]) == 2
    judged = items[items["judge"].notna()].reset_index(drop=True)
    masks = split_masks(judged["human"].to_numpy(), 6, frac, seed)
    cf_rows = res.splits[res.splits["method"] == "closed_form"].reset_index(drop=True)
    for s in range(6):
        cal, test = judged[masks[s]], judged[~masks[s]]
        assert len(set(cal.index) & set(test.index)) == 0  # no item in both parts
        row = cf_rows.iloc[s]
        assert row["n"] + row["m0"] + row["m1"] == len(judged) == 98
        assert row["truth"] == pytest.approx(test["human"].mean())
        # the same split through the public study API (an independent path to the numbers)
        study = AccuracyStudy.from_frames(test, cal)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cf.NotBetterThanChanceWarning)
            warnings.simplefilter("ignore", jb.errors.MirrorWarning)  # reported in fit.notes
            iv = study.fit("closed_form").interval().iloc[0]
        np.testing.assert_allclose(
            [row["estimate"], row["lower"], row["upper"]],
            [iv["estimate"], iv["lower"], iv["upper"]],
            atol=1e-12,
        )
    s = res.summary().set_index("method")
    naive = res.splits[res.splits["method"] == "naive"]
    assert s.loc["naive", "bias"] == pytest.approx((naive["estimate"] - naive["truth"]).mean())


def test_split_protocol_bayes_matches_per_split_exact_posterior(natural):
    # all splits in one NUTS run = each split's own posterior; the exact engine is the
    # reference.  Tolerance: a 2.5% quantile from ~2000 effective draws of a posterior with
    # sd <= 0.2 has Monte-Carlo sd <= ~0.012, and the 64-node quadrature is good to 1e-3,
    # so 0.05 is 4 sd.
    res = split_protocol(
        natural,
        n_splits=4,
        calibration_fraction=0.3,
        seed=1,
        sampler={"draws": 1000, "tune": 1000, "chains": 4},
        laplace={"draws": 4000},
    )
    g = res.groups.iloc[0]
    assert g["nuts_passed"] and g["nuts_divergences"] == 0
    lap_rows = res.splits[res.splits["method"] == "laplace"]
    # a split whose posterior the Laplace Gaussian does not fit (importance k-hat > 0.7)
    # is refused: NaN, counted as failed, never pooled
    refused = lap_rows["lower"].isna().to_numpy()
    assert g["laplace_failed"] == refused.sum() == lap_rows["failed"].sum() < 4
    h = natural["human"].to_numpy()
    masks = split_masks(h, 4, 0.3, 1)
    for s in range(4):
        cal, test = natural[masks[s]], natural[~masks[s]]
        study = AccuracyStudy.from_frames(test, cal)
        ex = study.fit("exact", draws=4000, random_seed=0).interval().iloc[0]
        rows = res.splits[res.splits["split"] == s].set_index("method")
        np.testing.assert_allclose(
            rows.loc["nuts", ["lower", "upper"]].to_numpy(float),
            [ex["lower"], ex["upper"]],
            atol=0.05,
        )
        if not refused[s]:
            # blockwise Laplace of the batched model, corrected by importance weights
            # (effective sample size >= 1000 of 4000): the exact posterior's bounds, up to
            # Monte-Carlo error (sd ~0.012 as above)
            np.testing.assert_allclose(
                rows.loc["laplace", ["lower", "upper"]].to_numpy(float),
                [ex["lower"], ex["upper"]],
                atol=0.04,
            )
    t = res.table()
    assert {"naive_bias", "nuts_coverage", "laplace_width", "closed_form_undefined"} <= set(t)
    # failed fits are counted and summarised apart, beside the numbers over all fits
    assert {"nuts_failed", "nuts_coverage_passed", "laplace_failed"} <= set(t)
    nuts_rows = res.splits[res.splits["method"] == "nuts"]
    assert t.loc[0, "nuts_failed"] == 0 and nuts_rows["passed"].all()


def test_split_protocol_bad_input(natural):
    with pytest.raises(InputError, match="calibration_fraction"):
        split_protocol(natural, calibration_fraction=1.5, methods=("closed_form",))
    with pytest.raises(InputError, match="'verdict'"):
        split_protocol(natural, judge="verdict", methods=("closed_form",))
    bad = natural.assign(judge=natural["judge"].replace({1.0: 3.0}))
    with pytest.raises(InputError, match="0/1"):
        split_protocol(bad, methods=("closed_form",))
    with pytest.raises(InputError, match="method"):
        split_protocol(natural, methods=("bootstrap",))
    for bad_size in (0, 2.5, True):
        with pytest.raises(InputError, match="splits_per_fit") as e:
            split_protocol(natural, methods=("closed_form",), splits_per_fit=bad_size)
        assert e.value.field == "splits_per_fit"


# ------------------------------------------------------------------------- invariance
@pytest.fixture(scope="session")
def chatgpt_llmbar():
    it = datasets.llmbar_accuracy_items("ChatGPT")
    it = it[it["subset"].str.startswith("LLMBar")].copy()
    it["kind"] = np.where(it["subset"] == "LLMBar_Natural", "Natural", "Adversarial")
    return it


def test_invariance_fails_between_natural_and_adversarial(chatgpt_llmbar):
    from judgebayes.workflows.invariance import judge_rates_by_stratum, transfer_table

    rates = judge_rates_by_stratum(chatgpt_llmbar, "kind").set_index(["stratum", "rate"])
    adv = chatgpt_llmbar[chatgpt_llmbar["kind"] == "Adversarial"]
    tn = int(((adv["human"] == 0) & (adv["judge"] == 0)).sum())
    m0 = int((adv["human"] == 0).sum())
    r = rates.loc[("Adversarial", "q0")]
    assert (r["right"], r["total"]) == (tn, m0)
    assert r["upper"] == pytest.approx(stats.beta(1 + tn, 1 + m0 - tn).ppf(0.975))
    # the judge's specificity collapses on adversarial pairs
    assert r["p_below_first"] > 0.999
    tt = transfer_table(chatgpt_llmbar, "kind").set_index(["calibrated_on", "corrected"])
    # calibrating on the whole stratum itself recovers its gold rate exactly (algebra of RG)
    assert tt.loc[("Natural", "Natural"), "error"] == pytest.approx(0.0, abs=1e-12)
    # calibrating on Natural mis-corrects Adversarial by more than 0.1
    assert tt.loc[("Natural", "Adversarial"), "error"] > 0.1


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_stratified_model_handles_the_shift(chatgpt_llmbar):
    from judgebayes.workflows.invariance import stratum_shift_study, summarise_shift

    s = stratum_shift_study(
        chatgpt_llmbar,
        "kind",
        {"Natural": 0.5, "Adversarial": 0.2},
        n_splits=40,
        n_bayes=2,
        sampler={"target_accept": 0.99},
    )
    t = summarise_shift(s).set_index("method")
    # one pooled calibration set (natural-heavy) is biased by ~0.2; the strata model is not.
    # sd of a 40-split mean bias here is ~0.01, so 0.1 separates them by > 5 sd
    assert t.loc["pooled", "bias"] > 0.1
    nuts = s[s["method"] == "strata_nuts"]
    assert (nuts["r_hat"] <= 1.01).all() and (nuts["divergences"] == 0).all()
    assert ((nuts["lower"] <= nuts["truth"]) & (nuts["truth"] <= nuts["upper"])).all()


# -------------------------------------------------------------------------- judge bias
@pytest.fixture(scope="session")
def chatgpt_orders():
    from judgebayes.workflows.judge_bias import LLMBAR_BIAS_SUBSETS

    v = datasets.llmbar_both_orders("ChatGPT")
    return v[v["subset"].isin(LLMBAR_BIAS_SUBSETS)].reset_index(drop=True)


def test_bias_comparisons_bookkeeping():
    from judgebayes.workflows.judge_bias import bias_comparisons

    v = datasets.llmbar_both_orders("PaLM2")
    c = bias_comparisons(v, by_subset=False)
    assert c.attrs["n_missing"] == int(v["pick"].isna().sum()) > 0
    assert len(c) + c.attrs["n_missing"] == len(v)
    ok = v[v["pick"].notna()].reset_index(drop=True)
    np.testing.assert_array_equal(c["winner"] == "gold", ok["pick"] == ok["label"])
    np.testing.assert_array_equal(c["first"] == "gold", ok["shown_first"] == ok["label"])


def test_judge_bias_map_matches_direct_logistic_fit(chatgpt_orders):
    # the two-role Bradley-Terry MAP is a penalised logistic regression; fit that directly
    from judgebayes.workflows.judge_bias import bias_comparisons, fit_judge_bias, judge_bias_table

    fit = fit_judge_bias(
        chatgpt_orders, "laplace", by_subset=False, priors=jb.RankingPriors(lam_b=0.1)
    )
    c = bias_comparisons(chatgpt_orders, by_subset=False)
    x = np.concatenate([c["length_first"], c["length_second"]])
    dx = (c["length_first"] - c["length_second"]).to_numpy() / x.std()
    s = np.where(c["first"] == "gold", 1.0, -1.0)
    y = (c["winner"] == c["first"]).to_numpy(float)

    def negpost(w):  # theta_gold, theta_other ~ N(0, 1); c, kappa ~ N(0, 10)
        eta = s * (w[0] - w[1]) + w[2] * dx + w[3]
        ll = np.sum(y * log_expit(eta) + (1 - y) * log_expit(-eta))
        return -ll + 0.5 * (w[0] ** 2 + w[1] ** 2) + 0.5 * 0.1 * (w[2] ** 2 + w[3] ** 2)

    w = optimize.minimize(negpost, np.zeros(4), method="BFGS", options={"gtol": 1e-9}).x
    t = judge_bias_table({"ChatGPT": fit}).set_index("coefficient")
    assert t.loc["discrimination", "estimate"] == pytest.approx(w[0] - w[1], abs=1e-2)
    np.testing.assert_allclose(fit.map_result.bias, w[2:], atol=1e-4)
    # ChatGPT favours the first-shown and the longer output (README of the data: 66%)
    assert t.loc["position", "lower"] > 0 and t.loc["length", "lower"] > 0


def test_instance_effect_explains_the_order_swap_agreement(chatgpt_orders):
    """ChatGPT's two presentation orders pick the same output more often than a model with
    independent orders predicts; with the instance effect (NUTS) the order-swap check
    passes and the bias intervals widen (measured: p 0.028 -> 0.856; widths 1.6x and 1.5x).
    """
    from judgebayes.checks.ranking import pairs as pair_check
    from judgebayes.workflows.judge_bias import bias_comparisons, fit_judge_bias, instance_ids

    ids = instance_ids(bias_comparisons(chatgpt_orders))
    plain = fit_judge_bias(chatgpt_orders, "laplace", draws=4000)
    fit = fit_judge_bias(chatgpt_orders, "nuts", "normal", instance_effect=True, random_seed=0)
    assert fit.diagnostics.passed, fit.diagnostics.message()
    assert fit.instance is not None and any("instance effect" in n for n in fit.notes)
    sd = fit.idata.posterior["instance_sd"].values
    assert 0.8 < np.median(sd) < 3  # measured 1.6
    inst = np.unique(ids, return_inverse=True)[1]
    before = pair_check.table(plain, inst).loc["order_swap"]
    after = pair_check.table(fit, inst).loc["order_swap"]
    assert before["p_value"] < 0.05 < 0.2 < after["p_value"]
    assert before["observed"] == after["observed"]

    def widths(f):
        t = f.bias_table().query("judge == 'all'").set_index("coefficient")
        return (t["upper"] - t["lower"]).to_numpy()

    assert (widths(fit) > 1.3 * widths(plain)).all()
    with pytest.raises(InputError, match="takes no keyword 'instance'"):
        fit_judge_bias(chatgpt_orders, "laplace", instance_effect=True)


def test_cross_validated_agreement_before_matches_raw_counts(chatgpt_orders):
    from judgebayes.workflows.judge_bias import cross_validated_agreement

    a = cross_validated_agreement(chatgpt_orders, folds=5, seed=0).set_index("subset")
    v = chatgpt_orders
    assert a.loc["all", "verdict_agreement"] == pytest.approx((v["pick"] == v["label"]).mean())
    assert a.loc["all", "instances"] == 419
    # with both orders usable the order-averaged credit is the mean of the two verdicts
    assert a.loc["all", "order_averaged"] == pytest.approx(a.loc["all", "verdict_agreement"])
    # the length-biased judge is corrected on the adversarial subsets (cross-validated)
    neighbor = a.loc["LLMBar_Adversarial_Neighbor"]
    assert neighbor["bias_aware"] > neighbor["order_averaged"] + 0.2
    assert a.loc["all", "gold_longer"] < 0.3 < a.loc["all", "prefers_longer"]
    # with the length-aware gold prior the posterior decision beats the paper's logistic
    # correction for this judge (measured 0.802 vs 0.711); with a constant prior it lost
    # (0.671), all of it on the pairs whose two verdicts disagree
    assert a.loc["all", "bias_aware"] > a.loc["all", "logistic"] + 0.05
    c = cross_validated_agreement(chatgpt_orders, folds=5, seed=0, gold_prior="constant")
    assert c.set_index("subset").loc["all", "bias_aware"] < a.loc["all", "bias_aware"] - 0.05
    with pytest.raises(InputError, match="gold_prior"):
        cross_validated_agreement(chatgpt_orders, gold_prior="flat")
    assert np.array_equal(
        a.loc["all"][["verdict_agreement", "bias_aware", "logistic"]].to_numpy(float),
        cross_validated_agreement(chatgpt_orders, folds=5, seed=0)
        .set_index("subset")
        .loc["all"][["verdict_agreement", "bias_aware", "logistic"]]
        .to_numpy(float),
    )


# ---------------------------------------------------------------------------- rankings
def test_pandalm_rankings_and_agreement():
    from judgebayes.data.ranking import identifiability_report, pairwise_from_frames
    from judgebayes.workflows.source_rankings import (
        fit_sources,
        rank_interval_table,
        ranking_agreement,
    )

    src = {s: datasets.pandalm_comparisons(s) for s in datasets.PANDALM_SOURCES}
    fits = fit_sources(src)
    agree = ranking_agreement(fits, "human").set_index("source")
    assert agree.loc["human", "top1_match"]
    assert agree.loc["human", "spearman"] == pytest.approx(1.0)
    # the BT leader is the generator with the highest human win share (independent count)
    h = src["human"]
    h = h[h["winner"] != ""]
    share = pd.concat([h["first"], h["second"]]).value_counts().rdiv(h["winner"].value_counts())
    assert agree.loc["human", "ranking"].split(" > ")[0] == share.idxmax() == "llama-7b"
    ri = rank_interval_table(fits)
    assert len(ri) == 15 and (ri["rank_lower"] <= ri["rank"]).all()
    assert (ri["rank"] <= ri["rank_upper"]).all()
    # the documented confound: response 1 is always the alphabetically earlier model
    rep = identifiability_report(pairwise_from_frames(src["human"]))
    assert rep.position_confounding > 0.5 and rep.both_orders_pairs == 0
    with pytest.raises(InputError, match="reference"):
        ranking_agreement(fits, "gpt-5")
    lf = fit_sources(src, length=True)
    assert lf["human"].bias_names == ["length"]


# ----------------------------------------------------------------------------- reports
def _pipe_tables(md: str) -> list[list[list[str]]]:
    tables, cur = [], []
    for line in md.splitlines():
        if line.startswith("|"):
            cur.append([c.strip() for c in line.strip("|").split("|")])
        elif cur:
            tables.append(cur)
            cur = []
    if cur:
        tables.append(cur)
    return tables


@pytest.fixture(scope="session")
def report_study():
    return AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)


def test_accuracy_report_markdown_and_html(report_study, tmp_path, mock_nuts):
    # the report's tables and figures: NUTS's trace is prior draws
    import matplotlib.image as mpimg

    from judgebayes.report import accuracy_report

    fits = [
        report_study.fit(m, random_seed=0, **({"sampler": {"draws": 1000}} if m == "nuts" else {}))
        for m in ("closed_form", "laplace", "nuts")
    ]
    files = accuracy_report(report_study, tmp_path / "r.md", fits=fits)
    assert files.path.exists() and len(files.figures) == 3
    md = files.path.read_text()
    tables = _pipe_tables(md)
    for t in tables:
        assert len({len(r) for r in t}) == 1 and set(t[1]) == {"---"}  # well-formed
    comp = next(t for t in tables if t[0][:3] == ["method", "system", "estimate"])
    est = {r[0]: float(r[2]) for r in comp[2:]}
    assert set(est) == {"closed_form", "laplace", "nuts"}
    assert est["closed_form"] == pytest.approx(0.533, abs=1e-3)  # Rogan-Gladen by hand
    for name in re.findall(r"\]\((r_figures/[^)]+\.png)\)", md):
        img = mpimg.imread(tmp_path / name)
        assert img.ndim == 3 and img.shape[0] > 50
    diag = files.tables["diagnostics"]
    assert (diag["r_hat"] < 1.01).all()
    html = accuracy_report(report_study, tmp_path / "r.html", fits=fits).path.read_text()
    blobs = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(blobs) == 3 and all(base64.b64decode(b)[:8] == b"\x89PNG\r\n\x1a\n" for b in blobs)
    assert html.count("<table") == len(files.tables)


def test_report_cli(tmp_path):
    test = pd.DataFrame({"judge": [1] * 60 + [0] * 40 + [None] * 3})
    cal = pd.DataFrame(
        {"human": [1] * 30 + [0] * 30, "judge": [1] * 27 + [0] * 3 + [0] * 22 + [1] * 8}
    )
    test.to_csv(tmp_path / "t.csv", index=False)
    cal.to_csv(tmp_path / "c.csv", index=False)
    r = run(
        "report", tmp_path / "t.csv", "--calibration", tmp_path / "c.csv",
        "--out", tmp_path / "out" / "rep.html", "--method", "closed_form", "--format", "json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["report_format"] == "html" and (tmp_path / "out" / "rep.html").exists()
    assert out["tables"]["data"][0]["missing_verdicts"] == 3
    row = out["tables"]["comparison"][0]
    expected = cf.rogan_gladen(60 / 100, 22 / 30, 27 / 30)
    assert row["method"] == "closed_form" and row["estimate"] == pytest.approx(expected)
    bad = cli("report", tmp_path / "t.csv", "--calibration", tmp_path / "nope.csv", "--out", "x.md")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "nope.csv" in bad.stderr
