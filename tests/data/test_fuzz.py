"""Property-based fuzzing of the readers: any frame or CSV gives a typed error or a valid
result, never another exception ("typed error or valid result").

Bounded example counts keep this in the fast tier (about 15 s); ``FUZZ_EXAMPLES=1000``
explores more.
"""

import math
import os
import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import JudgeBayesError, JudgeBayesWarning

N_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=N_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

# cell values as they come out of spreadsheets and eval tools
CELL = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 0.5, math.nan, math.inf, -1.0, 1e12]),
    st.sampled_from(["", " ", "1", "0", "yes", "no", "C", "I", "PASS", "maybe", "nan", "1.0"]),
)
NAMES = ["judge", "human", "system", "stratum", "first", "second", "winner", "generator",
         "validator", "n_judged", "n_valid", "other"]  # fmt: skip


@st.composite
def frames(draw, required=()):
    cols = draw(st.lists(st.sampled_from(NAMES), min_size=0, max_size=6, unique=True))
    cols = list(dict.fromkeys([*[c for c in required if draw(st.booleans()) or True], *cols]))
    n = draw(st.integers(0, 12))
    data = {c: draw(st.lists(CELL, min_size=n, max_size=n)) for c in cols}
    return pd.DataFrame(data, columns=cols, dtype=object)


def _typed_or_valid(call, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBayesWarning)
        warnings.simplefilter("error", RuntimeWarning)  # no numpy warning reaches a user
        try:
            result = call()
        except JudgeBayesError:
            return
    check(result)


def _interval_ok(iv):
    assert isinstance(iv, pd.DataFrame) and list(iv.columns) == ["estimate", "lower", "upper"]
    v = iv.to_numpy(float)
    ok = np.isnan(v) | ((v >= -1e-12) & (v <= 1 + 1e-12))
    assert ok.all(), iv
    both = ~np.isnan(v[:, 1]) & ~np.isnan(v[:, 2])
    assert (v[both, 1] <= v[both, 2] + 1e-12).all(), iv


@FUZZ
@given(df=frames(required=("judge", "human")), system=st.booleans())
def test_items_frame(df, system):
    def call():
        study = jb.AccuracyStudy.from_items(df, system="system" if system else None)
        return study.fit("closed_form").interval()

    _typed_or_valid(call, _interval_ok)


@FUZZ
@given(test=frames(required=("judge",)), cal=frames(required=("judge", "human")))
def test_two_frames(test, cal):
    def call():
        return jb.AccuracyStudy.from_frames(test, cal).fit("closed_form").interval()

    _typed_or_valid(call, _interval_ok)


@FUZZ
@given(df=frames(required=("first", "second", "winner")))
def test_comparisons_frame(df):
    def check(data):
        assert data.y.size == len(df) - (data.n_ties if data.ties == "drop" else 0)
        assert np.isin(data.y, [0.0, 0.5, 1.0]).all()

    _typed_or_valid(lambda: jb.PairwiseRanking.from_frames(df).data, check)


@FUZZ
@given(df=frames(required=("generator", "validator", "n_judged", "n_valid")))
def test_panel_cells_frame(df):
    def check(data):
        assert (data.n_valid >= 0).all() and (data.n_valid <= data.n_judged).all()

    _typed_or_valid(lambda: jb.ValidatorPanel.from_frames(df).data, check)


@settings(max_examples=2 * N_EXAMPLES // 3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(text=st.text(st.sampled_from('judge,human,system\n01 "CIyes.-x\t;'), max_size=120))
def test_csv_reader_via_cli(text, tmp_path_factory, capsys):
    path = tmp_path_factory.mktemp("fuzz") / "items.csv"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBayesWarning)
        status = main(["accuracy", str(path), "--method", "closed-form", "--format", "json"])
    captured = capsys.readouterr()
    assert status in (0, 2)
    if status == 2:  # one line on stderr, no traceback
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
