"""Contrasts of systems answering the same prompts (judgebayes/inference/items/contrasts.py):
the paired closed form's coverage and width, the labels one system of a prompt has, and the
references written from the definitions.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.inference import items as ie


def test_paired_contrasts_cover_and_are_narrower_than_the_independent_analysis():
    # 300 sets; MC sd of a 0.95 coverage 0.0126 (0.918 is 2.5 sd below).  Measured: paired
    # coverage 0.96 at 0.57x the independent width (process) and 0.953 for the 400 prompts'
    # realised difference, where PPI++ on the per-item differences is 0.111 wide
    hits = {"process": [], "items": []}
    width = {"paired": [], "independent": []}
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)  # labels at random by construction
    for r in range(300):
        frame, truth, realised = jb.simulate.simulate_paired(400, seed=r)
        for estimand, target in (("process", truth), ("items", realised)):
            study = jb.AccuracyStudy.from_items(
                frame, system="system", item="prompt", estimand=estimand
            )
            c = study.fit("closed_form").contrasts().set_index(["a", "b"]).loc[("A", "B")]
            hits[estimand].append(c["lower"] <= target <= c["upper"])
            if estimand == "process":
                assert c["estimand"] == "process, paired on 400 items"
                width["paired"].append(c["upper"] - c["lower"])
        ind = jb.AccuracyStudy.from_items(frame, system="system", estimand="process")
        c = ind.fit("closed_form").contrasts().set_index(["a", "b"]).loc[("A", "B")]
        width["independent"].append(c["upper"] - c["lower"])
    assert min(np.mean(h) for h in hits.values()) >= 0.918, {k: np.mean(v) for k, v in hits.items()}
    assert np.mean(width["paired"]) <= 0.6 * np.mean(width["independent"])


def _one_sided_labels(seed, n=400, both=0.10, one=0.20):
    """Two systems on the same prompts (agreement 0.9, rates 0.75 / 0.70), judge 0.9 / 0.8;
    ``both`` of the prompts labelled on both systems and ``one`` more on each system alone
    (independently): written here, apart from the package's simulators."""
    rng = np.random.default_rng(seed)
    p10, p01 = (0.1 + 0.05) / 2, (0.1 - 0.05) / 2
    cell = rng.choice(4, size=n, p=[0.75 - p10, p10, p01, 1 - 0.75 - p01])
    truth = {"A": np.isin(cell, (0, 1)), "B": np.isin(cell, (0, 2))}
    u = rng.random(n)
    parts = []
    for s in ("A", "B"):
        lab = (u < both) | (rng.random(n) < one / (1 - both)) & (u >= both)
        v = np.where(truth[s], rng.random(n) < 0.9, rng.random(n) > 0.8)
        h = np.where(lab, truth[s] * 1.0, np.nan)
        parts.append(
            pd.DataFrame({"prompt": np.arange(n), "system": s, "judge": v * 1.0, "human": h})
        )
    return pd.concat(parts, ignore_index=True), truth["A"].mean() - truth["B"].mean()


def test_paired_closed_form_uses_labels_only_one_system_of_a_prompt_has():
    # 300 sets, 10% of prompts labelled on both systems and 20% more on each alone; MC sd of
    # a 0.95 coverage 0.0126 (0.918 is 2.5 sd below).  Measured: coverage of the prompts'
    # realised difference 0.953 at width 0.116, against 0.160 with the one-sided labels
    # dropped and 0.143 for the independent analysis (process: 0.960, 0.146 / 0.174 / 0.191)
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)  # labels at random by construction
    hits, width = [], {"all labels": [], "labels on both": [], "independent": []}
    for r in range(300):
        frame, realised = _one_sided_labels(r)
        wide = frame.pivot(index="prompt", columns="system", values="human")
        joint = wide.index[wide.notna().all(1)]
        dropped = frame.assign(human=frame["human"].where(frame["prompt"].isin(joint)))
        for name, f, item in (
            ("all labels", frame, "prompt"),
            ("labels on both", dropped, "prompt"),
            ("independent", frame, None),
        ):
            study = jb.AccuracyStudy.from_items(f, system="system", item=item)
            c = study.fit("closed_form").contrasts().iloc[0]
            width[name].append(c["upper"] - c["lower"])
            if name == "all labels":
                hits.append(c["lower"] <= realised <= c["upper"])
    assert np.mean(hits) >= 0.918
    w = {k: np.mean(v) for k, v in width.items()}
    assert w["all labels"] <= 0.85 * min(w["labels on both"], w["independent"]), w  # 0.81


def test_paired_process_difference_is_the_joint_category_means_of_each_systems_labels():
    # reference written from the definition: per joint verdict category, each system's mean
    # label over its labelled rows there, weighted by the category's share of the prompts
    frame, _ = _one_sided_labels(7)
    wide = frame.pivot(index="prompt", columns="system", values=["judge", "human"])
    cat = wide[("judge", "A")] * 2 + wide[("judge", "B")]
    ref = sum(
        (cat == c).mean()
        * (wide.loc[cat == c, ("human", "A")].mean() - wide.loc[cat == c, ("human", "B")].mean())
        for c in range(4)
    )
    study = jb.AccuracyStudy.from_items(frame, system="system", item="prompt", estimand="process")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.errors.LabellingWarning)
        c = study.fit("closed_form").contrasts().iloc[0]
    assert c["difference"] == pytest.approx(ref, abs=1e-12)
    data = study.data
    r = ie.paired_difference(data, 0, 1, "process")
    assert (r["n_labelled"], r["n_one_sided"]) == (
        int(wide["human"].notna().all(1).sum()),
        int((wide["human"].notna().sum(1) == 1).sum()),
    )


def test_labels_only_paired_contrast_is_agresti_min_on_the_pairs_labelled_on_both():
    frame, *_ = jb.simulate.simulate_paired(400, seed=4)
    fit = jb.AccuracyStudy.from_items(frame, system="system", item="prompt").fit("labels_only")
    c = fit.contrasts().set_index(["a", "b"]).loc[("A", "B")]
    # reference: the 2 x 2 table of the two labels on the prompts labelled for both
    wide = frame.pivot(index="prompt", columns="system", values="human").dropna()
    n10 = ((wide["A"] == 1) & (wide["B"] == 0)).sum() + 0.5
    n01 = ((wide["A"] == 0) & (wide["B"] == 1)).sum() + 0.5
    n = len(wide) + 2
    d = (n10 - n01) / n
    se = np.sqrt(((n10 + n01) / n - d**2) / n)
    assert c["difference"] == pytest.approx(d, abs=1e-12)
    assert c["upper"] - c["lower"] == pytest.approx(2 * 1.959963984540054 * se, rel=1e-9)
    assert c["estimand"] == f"process, paired on {len(wide)} items"
