"""The stopping rule (judgebayes/inference/stopping.py): exact references (every sample
labelled, none labelled, the corrected sum written out), coverage of the stopped interval
over simulated runs with a biased judge, the stateful rule equal to the batch one, the
thinning of labels given with unequal probabilities, and every bad setting refused by name.
"""

from __future__ import annotations

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from judgebayes.inference.sequences import betting_sequence
from judgebayes.inference.stopping import HUMAN, JUDGE


def _run(rng, N=200, rate=0.6, sens=0.9, spec=0.8, pi=0.3):
    """One run in random order: true labels, a biased judge's verdicts, labels on a
    Bernoulli(pi) subset (NaN elsewhere)."""
    y = (rng.random(N) < rate).astype(float)
    f = np.where(y == 1, rng.random(N) < sens, rng.random(N) > spec).astype(float)
    lab = np.where(rng.random(N) < pi, y, np.nan)
    return y, f, lab


def test_every_sample_labelled_is_the_betting_sequence_on_the_labels():
    y, f, _ = _run(np.random.default_rng(0), N=300)
    d = jb.plan.early_stop(f, y, population=300, label_prob=1.0, width=0.1, alpha=0.1)
    lo, hi = betting_sequence(y, 300, 0.1)
    assert d.reason == "width" and d.n == np.argmax(hi - lo <= 0.1) + 1
    np.testing.assert_array_equal(d.looks["lower"], lo[: d.n])
    np.testing.assert_array_equal(d.looks["upper"], hi[: d.n])
    assert d.target == HUMAN and d.note == ""


def test_no_labels_is_the_betting_sequence_on_the_verdicts_and_says_so():
    _, f, _ = _run(np.random.default_rng(1), N=300)
    d = jb.plan.early_stop(f, population=300, width=0.15)
    lo, hi = betting_sequence(f[: d.n], 300, 0.05)
    np.testing.assert_array_equal(d.looks["lower"], lo)
    np.testing.assert_array_equal(d.looks["upper"], hi)
    assert d.target == JUDGE and "judge's pass rate, not the true" in str(d)
    assert d.as_dict()["note"] == d.note


def test_corrected_interval_is_the_labels_and_the_judge_plus_its_error_written_out():
    # the module docstring's intersection: the labels' sequence at alpha/2, and the verdicts'
    # sequence at alpha/4 plus the labelled (y - f + 1) / 2 sequence at alpha/4 on the
    # k / 2N lattice, mapped back to the rate
    N, alpha = 150, 0.05
    y, f, lab = _run(np.random.default_rng(2), N=N, pi=0.4)
    d = jb.plan.early_stop(f, lab, population=N, label_prob=0.4, claim=0.99, min_samples=N)
    has = ~np.isnan(lab)
    lo_f, hi_f = betting_sequence(f, N, alpha / 4)
    lo_d, hi_d = betting_sequence((y[has] - f[has] + 1) / 2, N, alpha / 4, resolution=2)
    lo_y, hi_y = betting_sequence(y[has], N, alpha / 2)
    m = np.cumsum(has) - 1
    lo = np.where(m >= 0, np.maximum(lo_f + 2 * lo_d[m] - 1, lo_y[m]), lo_f - 1)
    hi = np.where(m >= 0, np.minimum(hi_f + 2 * hi_d[m] - 1, hi_y[m]), hi_f + 1)
    lo = np.maximum(lo, np.cumsum(np.where(has, y, 0)) / N)
    hi = np.minimum(hi, 1 - np.cumsum(np.where(has, 1 - y, 0)) / N)
    lo = np.maximum.accumulate(np.clip(lo, 0, 1))
    hi = np.minimum.accumulate(np.clip(hi, 0, 1))
    np.testing.assert_allclose(d.looks["lower"], lo, atol=1e-12)
    np.testing.assert_allclose(d.looks["upper"], hi, atol=1e-12)
    # each part is narrower somewhere: the judge's early (every sample judged), the labels'
    # later (this judge disagrees with the humans on about one sample in seven)
    judge_part = (hi_f + 2 * hi_d[np.maximum(m, 0)]) - (lo_f + 2 * lo_d[np.maximum(m, 0)])
    label_part = hi_y[np.maximum(m, 0)] - lo_y[np.maximum(m, 0)]
    assert (judge_part < label_part).any() and (judge_part > label_part).any()
    # the estimate: the verdicts' mean plus the labelled error's mean
    k = np.cumsum(has)
    bias = np.cumsum(np.where(has, y - f, 0)) / np.maximum(k, 1)
    est = np.clip(np.cumsum(f) / np.arange(1, N + 1) + bias, lo, hi)
    np.testing.assert_allclose(d.looks["estimate"], est, atol=1e-12)
    assert d.n_labelled == int(has.sum()) and d.saved == 0


def test_stopped_interval_covers_the_true_rate_of_the_set():
    # 300 runs of 200 samples, a judge that overstates a 0.6 rate (0.62) and understates a
    # 0.8 one (0.76); the interval at the stop (width 0.3 or the claim 0.7 decided) must
    # cover the set's true rate in at least 95% of runs: the Monte-Carlo sd of a 0.95 rate
    # over 300 runs is 0.0126, so the bar is 0.95 - 3 sd = 0.912.  The judge's own interval
    # (no labels) on the same runs is the contrast: it covers the judge's rate, not the truth.
    rng = np.random.default_rng(3)
    hit, hit_judge, saved = [], [], []
    for r in range(300):
        rate = (0.6, 0.8)[r % 2]
        y, f, lab = _run(rng, N=200, rate=rate, pi=0.3)
        kw = {"width": 0.3} if r % 4 < 2 else {"claim": 0.7}
        d = jb.plan.early_stop(f, lab, population=200, label_prob=0.3, **kw)
        hit.append(d.lower <= y.mean() <= d.upper)
        saved.append(d.saved)
        j = jb.plan.early_stop(f, population=200, **kw)
        hit_judge.append(j.lower <= f.mean() <= j.upper)
    assert np.mean(hit) >= 0.912
    assert np.mean(hit_judge) >= 0.912
    assert np.mean(saved) > 0  # the rule does stop early on these runs


def test_the_stateful_rule_is_the_batch_rule_one_sample_at_a_time():
    _, f, lab = _run(np.random.default_rng(4), N=120, rate=0.85, pi=0.5)
    batch = jb.plan.early_stop(f, lab, population=120, label_prob=0.5, claim=0.6, seed=7)
    rule = jb.plan.StoppingRule(120, label_prob=0.5, claim=0.6, seed=7)
    for i in range(120):
        d = rule.update(f[i], None if np.isnan(lab[i]) else lab[i])
        if rule.stopped:
            break
    assert d == batch  # looks are not compared
    assert rule.decision.reason == "above claim" and d.n < 120
    assert rule.update(0.0, 0.0) == d  # the first stop stands


def test_looking_every_k_samples_stops_at_a_look_and_the_rule_agrees():
    _, f, lab = _run(np.random.default_rng(8), N=150, rate=0.9, pi=0.5)
    kw = {"population": 150, "label_prob": 0.5, "claim": 0.6}
    every = jb.plan.early_stop(f, lab, every=7, **kw)
    each = jb.plan.early_stop(f, lab, **kw)
    assert every.n % 7 == 0 and each.n <= every.n < each.n + 7
    assert (every.lower, every.upper) == tuple(every.looks[["lower", "upper"]].iloc[-1])
    rule = jb.plan.StoppingRule(150, label_prob=0.5, claim=0.6, every=7)
    for i in range(every.n):
        d = rule.update(f[i], None if np.isnan(lab[i]) else lab[i])
        if (i + 1) % 7:  # between looks: the last look's interval, the samples so far
            assert not d.stop and d.n == i + 1
            if i >= 7:
                assert d.lower == every.looks["lower"].iloc[(i + 1) // 7 * 7 - 1]
    assert d == every


def test_labels_with_unequal_probabilities_are_thinned_to_the_floor():
    rng = np.random.default_rng(5)
    N = 400
    y, f, _ = _run(rng, N=N)
    probs = np.where(rng.random(N) < 0.5, 0.2, 0.8)
    lab = np.where(rng.random(N) < probs, y, np.nan)
    kw = {"population": N, "label_prob": 0.2, "width": 0.01, "min_samples": N}
    d = jb.plan.early_stop(f, lab, label_probs=probs, **kw)
    # kept: every label where pi = 0.2, a quarter of those where pi = 0.8 (binomial sd)
    expected = np.sum(~np.isnan(lab) & (probs == 0.2)) + 0.25 * np.sum(
        ~np.isnan(lab) & (probs == 0.8)
    )
    assert abs(d.n_labelled - expected) < 4 * np.sqrt(0.25 * 0.75 * np.sum(probs == 0.8))
    rule = jb.plan.StoppingRule(N, label_prob=0.2, width=0.01, min_samples=N)
    for i in range(N):
        rule.update(f[i], None if np.isnan(lab[i]) else lab[i], label_prob=probs[i])
    assert rule.decision == d


def test_min_samples_is_a_floor_and_the_end_is_a_stop():
    f = np.ones(50)
    d = jb.plan.early_stop(f, population=50, claim=0.2, min_samples=30)
    assert d.n == 30 and d.reason == "above claim"
    assert (d.looks["reason"].iloc[:-1] == "").all()
    half = np.tile([1.0, 0.0], 20)  # a rate of exactly 0.5: the claim 0.5 is never decided
    d = jb.plan.early_stop(half, population=40, claim=0.5)
    assert (d.reason, d.n, d.saved) == ("all samples", 40, 0)
    partial = jb.plan.early_stop(f[:5], population=50, width=0.01)
    assert not partial.stop and partial.reason == "" and partial.n == 5


def test_scores_get_a_widened_grid_that_still_holds():
    rng = np.random.default_rng(6)
    y = rng.beta(3, 2, 80)
    f = np.clip(y + rng.normal(0, 0.1, 80), 0, 1)
    d = jb.plan.early_stop(f, y, population=80, label_prob=1.0, width=0.01)
    lo, hi = betting_sequence(y, 80, 0.05, resolution=13)
    assert d.lower <= lo[-1] and d.upper >= hi[-1]
    assert d.lower <= y.mean() <= d.upper


def _raises(field, **kw):
    base = {"population": 10, "width": 0.2}
    args = kw.pop("args", ([1.0, 0.0],))
    with pytest.raises(InputError) as err:
        jb.plan.early_stop(*args, **{**base, **kw})
    assert err.value.field == field, (field, err.value)


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"population": 0}, "population"),
        ({"population": 2.5}, "population"),
        ({"alpha": 0}, "alpha"),
        ({"alpha": "5%"}, "alpha"),
        ({"label_prob": 1.5}, "label_prob"),
        ({"label_prob": "all"}, "label_prob"),
        ({"width": 0}, "width"),
        ({"width": None}, "width"),  # neither width nor claim
        ({"claim": 1.0}, "claim"),
        ({"claim": True}, "claim"),
        ({"min_samples": 0}, "min_samples"),
        ({"every": 0}, "every"),
        ({"args": ([2.0, 0.0],)}, "verdicts"),
        ({"args": ([np.nan],)}, "verdicts"),
        ({"args": (np.ones(11),)}, "verdicts"),
        ({"args": ([1.0, 0.0], [1.0]), "label_prob": 0.5}, "labels"),
        ({"args": ([1.0, 0.0], [1.0, -1.0]), "label_prob": 0.5}, "labels"),
        ({"args": ([1.0, 0.0], [1.0, np.nan]), "label_prob": 1.0}, "labels"),
        ({"args": ([1.0, 0.0], [1.0, np.nan])}, "label_prob"),
        ({"label_prob": 0.5, "label_probs": [0.6]}, "label_probs"),
        ({"label_prob": 0.5, "label_probs": [0.6, 0.4]}, "label_probs"),
    ],
)
def test_each_bad_setting_is_one_input_error_naming_it(kw, field):
    _raises(field, **kw)


def test_the_stateful_rule_refuses_by_name_too():
    rule = jb.plan.StoppingRule(2, label_prob=0.5, width=0.5, min_samples=2)
    with pytest.raises(InputError) as err:
        rule.decision  # noqa: B018
    assert err.value.field == "decision"
    for kwargs, field in [
        ({"verdict": 1.5}, "verdict"),
        ({"verdict": 1.0, "label": 3.0}, "label"),
        ({"verdict": 1.0, "label_prob": 0.1}, "label_prob"),
    ]:
        with pytest.raises(InputError) as err:
            rule.update(**kwargs)
        assert err.value.field == field
    rule.update(1.0)
    last = rule.update(0.0)
    assert last.reason == "all samples" and rule.update(1.0) == last


def test_no_label_where_several_were_due_is_said():
    f = (np.random.default_rng(1).random(1000) < 0.7).astype(float)
    d = jb.plan.early_stop(f, np.full(1000, np.nan), population=1000, label_prob=0.3, claim=0.7)
    assert d.n_labelled == 0 and "no label among the 1000 samples" in d.note
    assert "no label" in str(d)


def test_odd_inputs_are_named_shortly():
    with pytest.raises(InputError) as e:
        jb.plan.early_stop(np.array(["C", "I"] * 500), population=1000, claim=0.5)
    assert e.value.field == "verdicts" and len(str(e.value)) < 200
    with pytest.raises(InputError, match="more than the population") as e:
        jb.plan.early_stop(np.ones(10), population=100, claim=0.5, min_samples=500)
    assert e.value.field == "min_samples"
