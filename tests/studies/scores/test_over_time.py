"""Scores over time: each period calibrated apart and pooled by rows, against per-period
studies fitted on their own; the errors and refusals; and (slow) coverage when the judge
turns kinder while the labelling rate falls (simulator written here)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import InputError, MethodRefused


def stream(rng, n=150, weeks=4, kinder=2.0, early=0.4, late=0.08):
    """Two systems' outputs a week: latent quality q, a 0/1 human label, a 1-10 judge score
    that turns ``kinder`` points higher from week 2, labels at rate ``early`` in weeks 0-1
    and ``late`` after."""
    rows = []
    for w in range(weeks):
        for system, shift in (("A", 0.0), ("B", 0.3)):
            q = rng.normal(shift, 1, n)
            h = (q + rng.normal(0, 0.7, n) > 0).astype(float)
            score = np.round(5.5 + 2 * q + (kinder if w >= 2 else 0) + rng.normal(0, 1, n))
            lab = rng.random(n) < (early if w < 2 else late)
            rows.append(
                pd.DataFrame(
                    {
                        "week": w,
                        "system": system,
                        "score": np.clip(score, 1, 10),
                        "truth": h,
                        "human": np.where(lab, h, np.nan),
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def _study(frame, **kw):
    return jb.ScoreStudy.from_items(frame, score="score", human="human", system="system", **kw)


def test_periods_are_calibrated_apart_and_pooled_by_rows():
    frame = stream(np.random.default_rng(0))
    frame = frame.drop(frame.index[(frame["week"] == 3) & (frame["system"] == "A")][:50])
    fit = _study(frame, time="week").fit(random_seed=3)
    pooled = fit.info["contrasts"]
    est, var, table = np.zeros(2), np.zeros(2), fit.periods()
    n = frame.groupby("system").size().to_numpy(float)
    for w in range(4):
        part = frame[frame["week"] == w]
        # each period on its own, its folds from seed 3 + period
        c = _study(part).fit(random_seed=3 + w).info["contrasts"]
        share = part.groupby("system").size().to_numpy(float) / n
        est += share * np.array(c["estimate"])
        var += share**2 * np.array(c["se"]) ** 2
        got = table[table["period"] == str(w)].set_index("system")["estimate"]
        assert np.allclose(got.loc[["A", "B"]], c["estimate"], rtol=1e-12)
    assert np.allclose(pooled["estimate"], est, rtol=1e-12)
    assert np.allclose(np.array(pooled["se"]) ** 2, var, rtol=1e-12)
    assert set(table.columns) >= {"n_items", "n_labelled", "lower", "upper"}
    assert table.loc[table["period"] == "3", "n_items"].tolist() == [100, 150]


def test_time_errors_name_the_field():
    frame = stream(np.random.default_rng(1))
    frame["item"] = np.arange(len(frame))
    cases = [
        ({"freq": "W"}, "freq"),
        ({"time": "week", "item": "item"}, "time"),
        ({"time": "nope"}, "time"),
    ]
    for kw, field in cases:
        with pytest.raises(InputError) as err:
            _study(frame, **kw)
        assert err.value.field == field
    few = frame.copy()
    few.loc[(few["week"] == 3) & (few["system"] == "B"), "human"] = np.nan
    with pytest.raises(InputError, match="system 'B' has 0 labelled") as err:
        _study(few, time="week")
    assert err.value.field == "week" and err.value.value == "3"
    blank = frame.astype({"week": float})
    blank.loc[5, "week"] = np.nan
    with pytest.raises(InputError, match="no period") as err:
        _study(blank, time="week")
    assert err.value.field == "week"


@pytest.mark.parametrize("method", ["ppi_plus_plus", "labels_only", "naive", "nuts"])
def test_methods_with_one_calibration_are_refused_over_time(method):
    study = _study(stream(np.random.default_rng(2)), time="week")
    with pytest.raises(MethodRefused) as err:
        study.fit(method=method)
    assert err.value.field == "time"
    with pytest.raises(MethodRefused, match="time="):
        _study(stream(np.random.default_rng(2))).fit().periods()


@pytest.mark.slow
def test_calibrating_within_periods_covers_when_the_judge_drifts():
    # 300 streams; the judge 2 points kinder from week 2 while labels fall from 40% to 8%:
    # within periods the 95% intervals of both systems' means covered 0.967 (measured),
    # one calibration for all weeks 0.337.  Monte-Carlo sd of a 95% coverage over 600
    # intervals: 0.009
    rng = np.random.default_rng(1)
    hits = {"time": [], "pooled": []}
    for _ in range(300):
        frame = stream(rng)
        truth = frame.groupby("system")["truth"].mean()
        for kind, kw in (("time", {"time": "week"}), ("pooled", {})):
            iv = _study(frame, **kw).fit().interval(0.05)
            hits[kind] += [iv.loc[s, "lower"] <= truth[s] <= iv.loc[s, "upper"] for s in iv.index]
    assert np.mean(hits["time"]) >= 0.93
    assert np.mean(hits["pooled"]) < 0.6  # the scenario is one where pooling fails


def test_the_command_line_takes_time(tmp_path, capsys):
    from judgebayes.cli import main

    frame = stream(np.random.default_rng(4))
    path = tmp_path / "log.csv"
    frame.drop(columns="truth").to_csv(path, index=False)
    argv = ["scores", str(path), "--system", "system", "--time", "week", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    ref = _study(frame, time="week").fit(random_seed=0)
    for r in out["systems"]:
        assert r["estimate"] == pytest.approx(ref.interval().loc[r["unit"], "estimate"])
    assert len(out["periods"]) == 8 and {r["period"] for r in out["periods"]} == set("0123")
    assert main([*argv[:-2], "--format", "table"]) == 0
    assert "n_labelled" in capsys.readouterr().out
    # a method refused on valid data says so (exit 1); --freq without --time is bad input
    assert main([*argv, "--method", "ppi_plus_plus"]) == 1
    assert "refused" in capsys.readouterr().err
    assert main(["scores", str(path), "--freq", "W"]) == 2
    err = capsys.readouterr().err
    assert "freq" in err and "Traceback" not in err


def test_labels_that_follow_the_score_within_periods_still_cover():
    # labelling random within a period is what the items design assumes; a score judge's
    # calibration conditions on the score, so labels drawn more often on high scores
    # (5% at score 1 to 50% at 10) leave it valid.  300 streams, 600 intervals: measured
    # 0.968; MC sd of a 95% coverage over 600 intervals is 0.009 (fast: 300 fits in 6 s)
    hits = []
    for rep in range(300):
        rng = np.random.default_rng([rep, 77])
        frame = stream(rng, early=1.0, late=1.0)
        chance = 0.05 + 0.45 * (frame["score"] - 1) / 9
        frame["human"] = np.where(rng.random(len(frame)) < chance, frame["truth"], np.nan)
        truth = frame.groupby("system")["truth"].mean()
        iv = _study(frame, time="week").fit(random_seed=1).interval(0.05)
        hits += [iv.loc[s, "lower"] <= truth[s] <= iv.loc[s, "upper"] for s in iv.index]
    assert np.mean(hits) >= 0.93
