"""The covariates of an items frame (judgebayes/data/items/covariates.py): validated by column
and row, and the spline term against patsy's natural cubic splines.
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.simulators import lenient_on_long, ushaped


def test_covariates_are_validated_by_column_and_row():
    f, _ = lenient_on_long(0)
    # with covariates the judge's rates are shared by default (pooled without)
    assert jb.AccuracyStudy.from_items(f, system="system", covariates="length").judge_rates == (
        "shared"
    )
    assert jb.AccuracyStudy.from_items(f, system="system").judge_rates == "pooled"
    assert jb.AccuracyStudy.from_items(f[f["system"] == "A"]).judge_rates == "shared"
    f.iloc[5, f.columns.get_loc("length")] = np.nan
    with pytest.raises(InputError, match=r"'length'.*row 5"):
        jb.AccuracyStudy.from_items(f, system="system", covariates="length")
    with pytest.raises(InputError, match="no column 'words'"):
        jb.AccuracyStudy.from_items(f, system="system", covariates=["words"])
    with pytest.raises(InputError, match="already has a role"):
        jb.AccuracyStudy.from_items(f, system="system", covariates=["judge"])
    f["length"] = f["length"].astype(object)
    f.iloc[5, f.columns.get_loc("length")] = "long"
    with pytest.raises(InputError, match="'long'"):
        jb.AccuracyStudy.from_items(f, system="system", covariates="length")


def test_spline_term_spans_the_natural_cubic_splines_and_reaches_the_model():
    # the restricted cubic spline basis (with an intercept) spans the same space as patsy's
    # natural cubic regression spline with the same knots (least squares both ways)
    import patsy

    from judgebayes.data.items import SPLINE_KNOTS, spline_basis

    x = np.random.default_rng(0).normal(size=500)
    t = np.quantile(x, SPLINE_KNOTS)
    ours = np.column_stack([np.ones_like(x), spline_basis(x, t)])
    ref = np.asarray(
        patsy.dmatrix(
            "cr(x, knots=inner, lower_bound=lo, upper_bound=hi)",
            {"x": x, "inner": t[1:-1], "lo": t[0], "hi": t[-1]},
        )
    )
    for a, b in ((ours, ref), (ref, ours)):
        coef = np.linalg.lstsq(a, b, rcond=None)[0]
        np.testing.assert_allclose(a @ coef, b, atol=1e-9)
    # in a study: three columns, the labelling check compares length once
    f, _ = ushaped(0)
    study = jb.AccuracyStudy.from_items(f, system="system", covariates={"length": "spline"})
    assert study.data.covariate_names == ("length", "length (spline 1)", "length (spline 2)")
    table = study.check().table
    units = table.query("check == 'labelling_covariates'")["unit"].tolist()
    assert units == ["length | system 'A'", "length | system 'B'"]  # a row per system
    with pytest.raises(InputError, match="term"):
        jb.AccuracyStudy.from_items(f, system="system", covariates={"length": "cubic"})
    with pytest.raises(InputError, match="distinct knots"):
        jb.AccuracyStudy.from_items(
            f.assign(flag=(f["length"] > 250) * 1.0), covariates={"flag": "spline"}
        )
