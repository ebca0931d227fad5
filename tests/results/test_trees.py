"""Trees of fits (judgebayes/results/trees.py): a point method's tree as ArviZ reads it, the
confidence draws of its own interval.

References: the method's own interval function, called at each level, and ArviZ's summary.
"""

from __future__ import annotations

import arviz as az
import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.results.trees import CONFIDENCE_DRAWS


@pytest.fixture(scope="module")
def closed_form():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"score": rng.integers(1, 11, 300).astype(float)})
    human = np.clip(np.round(frame["score"] / 2 + rng.normal(0, 1, 300)), 1, 5)
    frame["human"] = np.where(rng.random(300) < 0.3, human, np.nan)
    frame["system"] = np.repeat(["a", "b"], 150)
    return jb.ScoreStudy.from_items(frame, score="score", human="human", system="system").fit()


def test_arviz_reads_the_closed_forms_own_interval(closed_form):
    # az.summary of a closed form read one draw: sd NaN and an interval of zero width
    fit = closed_form
    table = az.summary(fit.idata, ci_prob=0.95, ci_kind="eti")
    own = fit.interval(0.05)
    assert np.isfinite(table["sd"]).all() and (table["sd"] > 0).all()
    size = CONFIDENCE_DRAWS[0] * CONFIDENCE_DRAWS[1]
    # the draws' 2.5% / 97.5% quantiles interpolate between the levels (s + 1/2) / S of
    # neighbouring draws: within one step of the interval ends at those levels
    for k, row in zip(own.index, table.itertuples(), strict=True):
        step = 1.0 / size
        lo_in, hi_in = fit.interval(0.05 + 2 * step).loc[k, ["lower", "upper"]]
        lo_out, hi_out = fit.interval(0.05 - 2 * step).loc[k, ["lower", "upper"]]
        assert lo_out <= row[3] <= lo_in and hi_in <= row[4] <= hi_out, (k, row)
    assert fit.idata["posterior"].attrs["draws"] == "confidence"
    # the fit's own tree (what the package reads and saves) keeps one draw of each value
    assert fit.tree.posterior.sizes["draw"] == 1
    np.testing.assert_allclose(
        fit.idata["point"][fit.quantity].values.ravel(), fit.estimate(), rtol=1e-12
    )


def test_every_levels_interval_of_the_draws_is_the_methods(closed_form):
    fit = closed_form
    draws = np.sort(fit.idata.posterior[fit.quantity].values.reshape(-1, 2), axis=0)
    size = len(draws)
    for s in (0, 7, 40, 150):  # the level 1 - 2 u_s, u_s = (s + 1/2) / S
        lo, hi = (fit.interval(2 * (s + 0.5) / size)[c].to_numpy() for c in ("lower", "upper"))
        np.testing.assert_allclose(draws[s], lo, rtol=1e-12)
        np.testing.assert_allclose(draws[size - 1 - s], hi, rtol=1e-12)


def test_a_saved_closed_form_reads_back_the_same(closed_form, tmp_path):
    fit = closed_form
    fit.save(tmp_path / "fit.nc")
    back = jb.load_fit(tmp_path / "fit.nc")
    assert back.is_point
    pd.testing.assert_frame_equal(back.interval(), fit.interval())
    assert az.summary(back.idata)["sd"].notna().all()


def test_a_point_without_an_interval_says_so_to_arviz():
    # a panel's validator mean gives a point and no interval: one draw, labelled as such
    items = jb.simulate.simulate_panel(6, 5, n_outputs=200, n_annotated=3, seed=0).items
    fit = jb.ValidatorPanel.from_items(items).fit("validator_mean")
    assert fit.idata.posterior.attrs["draws"] == "point"
    assert "no interval" in fit.idata.posterior.attrs["note"]
    assert "draws" not in fit.tree.posterior.attrs  # the fit's own tree is untouched
