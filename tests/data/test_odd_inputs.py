"""Bad and odd inputs as a new user gives them: each is one typed error naming its field,
or a correct result that says what it is; and no numpy warning reaches the user.

The cases of a user audit (a paired claim on exact, no prompt labelled on both systems,
``positive=`` beside a 0/1 human column, blank repeat ids, mixed id types, damaged fit
files, the planners' arguments, list cells, float class labels) and others of their kinds.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.workflows.gate import check_claims
from tests.helpers import typed_error

BASE = jb.simulate.simulate_items(300, n_labelled=60, seed=0).frame
TWO = pd.concat(
    [
        BASE.assign(system="A"),
        jb.simulate.simulate_items(300, n_labelled=60, seed=1).frame.assign(system="B"),
    ],
    ignore_index=True,
)
PAIRED = jb.simulate.simulate_paired(200, seed=0)[0]
RUNS = jb.simulate.simulate_repeats(30, generations=3, runs=2, seed=0)[0]
PLAN = dict(rate_a=0.75, rate_b=0.7, agreement=0.9, sensitivity=0.9, specificity=0.8)


def _items(frame=BASE, **kw):
    return jb.AccuracyStudy.from_items(frame, **kw)


def _one_sided():
    p = PAIRED.copy()
    both = p["human"].notna()
    p.loc[both & (p["system"] == "B"), "human"] = np.nan  # B's labels on other prompts
    p.loc[~both & (p["system"] == "B") & (p["prompt"] % 3 == 0), "human"] = 1
    return p


def _mixed_systems():
    f = TWO.copy()
    f["system"] = pd.Series([1 if s == "A" else "1" for s in f["system"]], dtype=object)
    return f


def _classes(values):
    t = pd.DataFrame({"judge": [0.0, 1.0, 2.0] * 10})
    c = pd.DataFrame({"judge": [0.0, 1.0, 2.0] * 10, "human": values * 5})
    return jb.AccuracyStudy.from_multiclass_frames(t, c).fit("closed_form").interval()


#: (case, call, the field a typed error names: None when the call must succeed)
ERRORS = [
    (
        "blank prompt id",
        lambda: jb.variance_split(RUNS.assign(prompt=RUNS["prompt"].where(RUNS.index != 3))),
        "prompt",
    ),
    ("int 1 and str '1' systems", lambda: _items(_mixed_systems(), system="system"), "system"),
    (
        "all-blank ratings",
        lambda: jb.agreement(
            pd.DataFrame({"a": [np.nan] * 5, "b": [np.nan] * 5}), raters=["a", "b"]
        ),
        "a",
    ),
    (
        "plan_calibration width as text",
        lambda: jb.plan.plan_calibration(0.6, 0.7, 0.9, width="0.1"),
        "width",
    ),
    (
        "sequential_decision on a table without bounds",
        lambda: jb.sequential_decision(
            pd.DataFrame({"period": [1], "estimate": [0.5]}), "rate > 0.5"
        ),
        "table",
    ),
    ("plan_paired power 1", lambda: jb.plan.plan_paired(400, 0.25, **PLAN, power=1.0), "power"),
    ("plan_paired alpha 2", lambda: jb.plan.plan_paired(400, 0.25, **PLAN, alpha=2), "alpha"),
    (
        "plan_paired text difference",
        lambda: jb.plan.plan_paired(400, 0.25, **PLAN, differences="x"),
        "differences",
    ),
    (
        "plan_repeats on another table",
        lambda: jb.plan.plan_repeats(pd.DataFrame({"a": [1]}), budget=100),
        "split",
    ),
    (
        "plan_repeats budget 0",
        lambda: jb.plan.plan_repeats(jb.variance_split(RUNS), budget=0),
        "budget",
    ),
    (
        "a list in a label cell",
        lambda: _items(
            pd.DataFrame({"judge": [[1], [0], [1]], "human": [1, None, 0]}, dtype=object)
        ),
        "judge",
    ),
    ("next_to_label beyond the unlabelled", lambda: _items().next_to_label(10_000), "k"),
    (
        "paired exact on ten systems",
        lambda: _items(
            pd.concat([PAIRED.assign(system=PAIRED["system"] + str(i)) for i in range(5)]),
            system="system",
            item="prompt",
        ).fit("exact"),
        "system",
    ),
    (
        "covariate that is text",
        lambda: _items(BASE.assign(length="x"), covariates="length"),
        "length",
    ),
    ("design weight 0", lambda: _items(BASE.assign(w=0.0), weights="w"), "w"),
    ("count 1.5", lambda: _items(BASE.assign(n=1.5), count="n"), "n"),
    ("estimand typo", lambda: _items(estimand="item"), "estimand"),
    ("judge_rates typo", lambda: _items(judge_rates="shard"), "judge_rates"),
    ("alpha as text", lambda: _items().fit("closed_form").interval(alpha="0.05"), "alpha"),
    ("draws 10", lambda: _items().fit("exact", draws=10), "draws"),
    ("a seed of -1", lambda: _items().fit("exact", random_seed=-1), "random_seed"),
    ("sampler setting typo", lambda: _items().fit("nuts", sampler={"draw": 5}), "sampler"),
    ("claim rate 2", lambda: check_claims(_items().fit("closed_form"), ["all > 2"]), "claim"),
    (
        "claim on an unknown system",
        lambda: check_claims(_items().fit("closed_form"), ["zz > 0.5"]),
        "claim",
    ),
    (
        "difference claim without a joint",
        lambda: check_claims(_items(TWO, system="system").fit("naive"), ["A > B"]),
        "method",
    ),
    ("k > n", lambda: jb.AccuracyStudy.from_counts(k=11, n=10, tn=5, m0=10, tp=5, m1=10), "k"),
    ("k NaN", lambda: jb.AccuracyStudy.from_counts(k=np.nan, n=10, tn=5, m0=10, tp=5, m1=10), "k"),
    (
        "a ranking reference typo",
        lambda: jb.PairwiseRanking.from_frames(
            pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"], "winner": ["a", "a"]})
        ).fit("naive", reference="c"),
        "reference",
    ),
    ("accuracy_table of the items design", lambda: jb.estimators.accuracy_table(_items()), "kind"),
    (
        "one repeat prompt",
        lambda: jb.variance_split(RUNS[RUNS["prompt"] == RUNS["prompt"].iloc[0]]),
        "prompt",
    ),
]


@pytest.mark.parametrize("case,call,field", ERRORS, ids=[c[0] for c in ERRORS])
def test_a_bad_input_is_one_typed_error_naming_its_field(case, call, field):
    err = typed_error(call)
    assert err.field == field, (case, err)


def test_odd_but_valid_inputs_give_labelled_results():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        # exact pairs the systems of one item column: its contrast says so
        c = _items(PAIRED, system="system", item="prompt").fit("exact", random_seed=0)
        assert "paired on 200 items" in c.contrasts()["estimand"].iloc[0]
        # no prompt labelled on both: the contrast is the independent one, and says why
        fit = _items(_one_sided(), system="system", item="prompt").fit("closed_form")
        est = fit.contrasts()["estimand"].iloc[0]
        assert "independent: no prompt is labelled on both systems" in est
        assert any("independent one" in n for n in fit.notes)
        # positive= names the judge's scale; the 0/1 human column keeps its labels
        f = BASE.assign(judge=np.where(BASE["judge"] == 1, 10, 3))
        assert _items(f, positive=10).fit("closed_form").estimate()[0] == pytest.approx(
            _items().fit("closed_form").estimate()[0]
        )
        # float class labels are the classes they read as, in both columns
        iv = _classes([0.0, 1.0, 2.0, 1.0, 1.0, 2.0])
        assert list(iv.index.get_level_values("true_class").unique()) == ["0", "1", "2"]
        # a repeat design that cannot see the judge runs: NaN there, said, no warning
        split = jb.variance_split(RUNS.drop_duplicates(["prompt", "generation"]))
        assert np.isnan(split.set_index("component").loc["judge run", "lower"])
        # one cluster: no cluster-robust variance, and the fit says so
        with pytest.warns(jb.errors.FewClustersWarning, match="1 clusters"):
            one = _items(BASE.assign(c=0), cluster="c")
        assert any("1 cluster" in n for n in one.fit("closed_form").notes)
        # labels all alike: PPI's point interval is said, the closed form's is not a point
        same = BASE.copy()
        same.loc[same["human"].notna(), "human"] = 1
        ppi = _items(same).fit("ppi_plus_plus")
        assert any("variance estimate is 0" in n for n in ppi.notes)
        iv = _items(same).fit("closed_form").interval().iloc[0]
        assert iv["upper"] - iv["lower"] > 0
