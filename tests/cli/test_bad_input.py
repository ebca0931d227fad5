"""Bad input a new user tries: one typed error naming the field (CLI: one line, exit 2).

Run through the CLI's entry point in this process (`main` is what the installed command
calls; tests/cli/test_cli.py runs the command itself).
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import InputError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    test, cal = jb.simulate.accuracy_frames(0.4, 0.8, 0.9, 200, m0=40, m1=40, random_seed=1)
    test.to_csv(d / "t.csv", index=False)
    cal.to_csv(d / "c.csv", index=False)
    return d


def _one_line(capsys, args, *words):
    capsys.readouterr()
    assert main([str(a) for a in args]) == 2, args
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, (w, err)


def test_cli_paths_that_are_directories_or_the_wrong_kind(files, capsys):
    t, c = files / "t.csv", files / "c.csv"
    _one_line(capsys, ["accuracy", files], "is a directory")
    _one_line(capsys, ["accuracy", t, "--calibration", files], "calibration", "directory")
    report = ["report", t, "--calibration", c, "--out"]
    _one_line(capsys, [*report, files / "x.pdf"], "--out", "'.pdf'")
    _one_line(capsys, [*report, files], "--out", "is a directory")
    assert not (files / "x.pdf").exists() and not (files / "x_figures").exists()


def test_cli_plan_test_size_must_be_a_whole_number(capsys):
    base = ["plan", "--p", "0.6", "--q0", "0.7", "--q1", "0.9", "--width", "0.2"]
    _one_line(capsys, [*base, "--n", "100.5"], "--n", "100.5")
    _one_line(capsys, [*base, "--n", "0"], "--n")
    capsys.readouterr()
    assert main([*base, "--n", "5000"]) == 0


def test_booleans_are_not_counts_and_frames_must_be_frames():
    for kw in ({"k": True}, {"n": np.array([True])}, {"tp": False}):
        args = dict(k=51, n=100, tp=90, m1=100, tn=70, m0=100) | kw
        with pytest.raises(InputError, match="boolean") as e:
            jb.AccuracyStudy.from_counts(**args)
        assert e.value.field == next(iter(kw))
    test, cal = jb.simulate.accuracy_frames(0.4, 0.8, 0.9, 50, m0=20, m1=20, random_seed=0)
    for a, b, field in ((None, cal, "test_df"), (test, [1, 2], "calibration_df")):
        with pytest.raises(InputError, match="must be a DataFrame") as e:
            jb.AccuracyStudy.from_frames(a, b)
        assert e.value.field == field


def test_cli_seeds_and_counts_are_checked_when_parsed(files, capsys):
    # before: --seed -1 / 10**23 failed after a 12 s compile, --draws 0 after 32 s
    t, c = files / "t.csv", files / "c.csv"
    acc = ["accuracy", t, "--calibration", c, "--method", "nuts"]
    _one_line(capsys, [*acc, "--seed", "-1"], "--seed", "-1")
    _one_line(capsys, [*acc, "--seed", str(10**23)], "--seed", "2**63")
    _one_line(capsys, [*acc, "--seed", "1.5"], "--seed", "1.5")
    _one_line(capsys, ["rank", t, "--draws", "0"], "--draws", "at least 1")
    _one_line(capsys, ["panel", t, "--draws", "-5"], "--draws")
    _one_line(capsys, ["demo", "--labels", "0"], "--labels")
    log = ["accuracy", "--inspect", files, "--labels", c]
    _one_line(capsys, [*log, "--calibration", c], "give one source")
    _one_line(capsys, ["accuracy", "--labels", c], "--labels goes with a log")
    _one_line(capsys, ["accuracy"], "no items")


def test_cli_method_spellings_and_sampler_flags(files, capsys):
    t, c = files / "t.csv", files / "c.csv"
    acc = ["accuracy", t, "--calibration", c]
    # before: accuracy and gate took closed-form, report closed_form, panel plug-in only
    for spelling in ("closed-form", "closed_form", "Closed_Form"):
        assert main([str(a) for a in [*acc, "--method", spelling, "--format", "json"]]) == 0
    outs = capsys.readouterr().out.split("\n}\n")
    assert outs[0] == outs[1] == outs[2]
    # a sampler flag that none of the chosen methods uses is refused, not ignored
    _one_line(capsys, [*acc, "--method", "closed-form", "--tune", "100"], "--tune 100", "NUTS")
    _one_line(capsys, [*acc, "--method", "closed-form", "--draws", "9"], "--draws 9")
    _one_line(capsys, [*acc, "--method", "closed-form", "--chains", "3"], "--chains 3")
    _one_line(capsys, [*acc, "--target-accept", "1.5"], "--target-accept", "(0, 1)")
    _one_line(capsys, [*acc, "--tune", "-1"], "--tune", "at least 0")
    _one_line(capsys, [*acc, "--method", "bogus"], "--method", "bogus")


def test_frames_with_silent_surprises_are_refused():
    import pandas as pd

    cells = pd.DataFrame({"generator": ["g1", "g1", "g2", "g2"], "validator": ["v1", "v2"] * 2,
                          "n_judged": [10] * 4, "n_valid": [5, 6, 7, 8]})  # fmt: skip
    blank = cells.assign(validator=["v1", None, "v1", "v2"])
    with pytest.raises(InputError, match=r"validator.*no value"):  # was a validator "nan"
        jb.ValidatorPanel.from_frames(blank)
    ann = pd.DataFrame({"generator": ["g1", "g1"], "n_annotated": [10, 10],
                        "n_valid_human": [5, 7]})  # fmt: skip
    with pytest.raises(InputError, match="two rows for generator 'g1'"):  # the last won
        jb.ValidatorPanel.from_frames(cells, ann, annotations_disjoint=True)
    twice = pd.DataFrame([[1, 0, 1]], columns=["judge", "judge", "human"])
    with pytest.raises(InputError, match="two columns named 'judge'"):  # the first was read
        jb.AccuracyStudy.from_frames(twice[["judge"]].iloc[:, :1], twice)
    comps = pd.DataFrame({"first": [1, 2, 1], "second": [2, 3, 3], "winner": [1, None, 3]})
    data = jb.PairwiseRanking.from_frames(comps).data  # numeric ids with a tie read as 1.0
    assert data.items == ("1", "2", "3") and data.n_ties == 1
    comps = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"], "winner": ["a", "b"],
                          "length_first": [1, 2], "length_second": [2, 1]})  # fmt: skip
    assert jb.PairwiseRanking.from_frames(comps, covariates="length").data.covariates == (
        "length",
    )  # one name, not the letters l, e, n, ...
    with pytest.raises(InputError, match="'long' in row 0 is not a number"):  # was "nan"
        jb.PairwiseRanking.from_frames(
            comps.assign(length_first=["long", 2]), covariates=["length"]
        )


@pytest.mark.parametrize("draws", [2.5, 1, 0, -5, 99, True])
@pytest.mark.parametrize("method", ["exact", "laplace"])
def test_draws_go_through_the_one_count_check(method, draws):
    # 99 draws leave one draw in a 95% interval's lower tail: refused like a non-count
    study = jb.AccuracyStudy.from_counts(50, 100, 40, 50, 40, 50)
    with pytest.raises(InputError, match="draws must be an integer >= 100") as e:
        study.fit(method, draws=draws)
    assert e.value.field == "draws"


def test_ranking_laplace_draws_are_checked():
    rk = jb.PairwiseRanking.from_arrays([0, 1, 2, 0], [1, 2, 0, 2], [1, 1, 0, 1])
    for draws in (0, -1, 2.5):
        with pytest.raises(InputError, match="draws"):
            rk.fit("laplace", prior="normal", draws=draws)


def test_counts_beyond_exact_floats_are_refused():
    from judgebayes.errors import CountError

    with pytest.raises(CountError, match="2\\*\\*53") as e:
        jb.AccuracyStudy.from_counts(6e19, 1e20, 40, 50, 40, 50)
    assert e.value.field == "k"


@pytest.mark.parametrize(
    ("build", "typo"),
    [
        (lambda **kw: jb.AccuracyStudy.from_items(_items(), **kw), "sytem"),
        (lambda **kw: jb.AccuracyStudy.from_items(_items(), **kw), "estmand"),
        (lambda **kw: jb.AccuracyStudy.from_counts(5, 10, 4, 5, 4, 5, **kw), "prior"),
        (lambda **kw: jb.ValidatorPanel.from_arrays([[10]], [[5]], **kw), "generatr"),
        (lambda **kw: jb.PairwiseRanking.from_arrays([0], [1], [1], **kw), "itms"),
    ],
)
def test_constructors_name_an_unknown_keyword_and_list_the_valid_ones(build, typo):
    with pytest.raises(InputError, match=f"no keyword '{typo}'; it takes: ") as e:
        build(**{typo: "x"})
    assert e.value.field == typo


def _items():
    import pandas as pd

    return pd.DataFrame({"judge": [1, 0, 1, 1], "human": [1, 0, np.nan, 1]})


@pytest.mark.parametrize("claim", ["A >> 0.5", "A => 0.5", "A <> B", "A > = 0.5"])
def test_a_malformed_claim_is_named_malformed(claim):
    from judgebayes.workflows.gate import parse_claim

    with pytest.raises(InputError, match="is not of the form"):
        parse_claim(claim)
