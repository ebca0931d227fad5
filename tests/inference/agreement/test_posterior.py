"""The agreement coefficients' posterior (judgebayes/inference/agreement/posterior.py): the
prior's profiles, the Dirichlet weights, percent agreement against its Beta posterior in
closed form, and coverage on few items with a rare category.

References: the Beta posterior that the Dirichlet's aggregation property gives for percent
agreement (scipy.stats.beta), combinatorial counts, and raters simulated here with numpy.
Monte-Carlo tolerances are stated where they are used.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes.errors import InputError
from judgebayes.inference.agreement import posterior


def test_prior_profiles_are_every_unordered_profile_once():
    rng = np.random.default_rng(0)
    for q, m in ((2, 2), (3, 3), (5, 4)):
        p = posterior.prior_profiles(q, m, rng)
        assert p.shape == (comb(m + q - 1, q - 1), q)
        assert (p.sum(axis=1) == m).all() and (p >= 0).all()
        assert len({tuple(r) for r in p}) == len(p)


def test_drawn_profiles_are_uniform_over_the_profiles():
    # above the cap the profiles are drawn: 3 ratings over 3 categories have 10 profiles,
    # each drawn with probability 1/10; a chi-square test of 20,000 draws (p > 0.001)
    every = posterior.prior_profiles(3, 3, np.random.default_rng(1))
    drawn = posterior.draw_profiles(3, 3, 20_000, np.random.default_rng(2))
    assert (drawn.sum(axis=1) == 3).all() and (drawn >= 0).all()
    index = {tuple(r): i for i, r in enumerate(every)}
    counts = np.bincount([index[tuple(r)] for r in drawn], minlength=10)
    assert stats.chisquare(counts).pvalue > 0.001, counts
    # the cap: 10 ratings over 10 categories have 92,378 profiles
    assert posterior.prior_profiles(10, 10, np.random.default_rng(3)).shape == (
        posterior.MAX_PROFILES,
        10,
    )


def test_cluster_weights_are_shared_and_sum_to_the_items():
    groups = np.array([0, 0, 1, 2, 2, 2])
    mass = np.array([0.5, 0.5])
    w = posterior.weights(groups, mass, 4000, np.random.default_rng(3))
    assert w.shape == (4000, 8)
    np.testing.assert_allclose(w.sum(axis=1), 6)
    np.testing.assert_array_equal(w[:, 0], w[:, 1])
    np.testing.assert_array_equal(w[:, 3], w[:, 5])
    # one weight per unit (3 clusters, 2 profiles of mass 1 each) is Dirichlet(1, ..., 1):
    # a cluster's share has mean 1/5, the prior's 2/5; the mean of 4,000 draws within 4 sd
    # (a Beta(1, 4) share's sd 0.163 / sqrt(4000) = 0.0026; Beta(2, 3)'s 0.2 / 63 = 0.0032)
    units = w[:, [0, 2, 3, 6, 7]]
    share = units / units.sum(axis=1, keepdims=True)
    assert abs(share[:, 0].mean() - 0.2) < 4 * 0.0026
    assert abs(share[:, 3:].sum(axis=1).mean() - 0.4) < 4 * 0.0032


def test_percent_agreement_posterior_is_its_beta():
    # two raters on every item: an item agrees or not, and the prior's three profiles of
    # two ratings over two categories agree on two of three, so the Dirichlet's
    # aggregation gives pa ~ Beta(agree + 2 * 2/3, disagree + 2 * 1/3) exactly; the
    # interval is its expanded percentiles (t(n - 1) quantile times sqrt(n / (n - 1)))
    rng = np.random.default_rng(4)
    x = (rng.random(40) < 0.3).astype(float)
    y = np.where(rng.random(40) < 0.85, x, 1 - x)
    df = pd.DataFrame({"a": x, "b": y})
    agree = int((x == y).sum())
    t = jb.agreement(df, raters=["a", "b"], coefficients=["percent"], draws=40_000)
    n = 40
    z = np.sqrt(n / (n - 1)) * stats.t.ppf(0.975, n - 1)
    tail = stats.norm.sf(z)
    beta = stats.beta(agree + 4 / 3, n - agree + 2 / 3)
    # quantile Monte-Carlo error at 40,000 draws: sqrt(p (1 - p) / B) / density < 0.004
    np.testing.assert_allclose(t.loc[0, "lower"], beta.ppf(tail), atol=0.006)
    np.testing.assert_allclose(t.loc[0, "upper"], beta.ppf(1 - tail), atol=0.006)


def test_no_rare_rating_is_no_longer_a_point():
    # 30 items, every rating 0 but the categories are 0 and 1: kappa is undefined and the
    # t interval NaN; the posterior says how little 30 agreeing items say
    df = pd.DataFrame({"a": np.zeros(30), "b": np.zeros(30)})
    t = jb.agreement(df, raters=["a", "b"], categories=[0.0, 1.0]).set_index("coefficient")
    assert np.isnan(t.loc["cohen", "estimate"])
    assert t.loc["cohen", "lower"] < 0.2 and t.loc["cohen", "upper"] > 0.99
    assert 0.85 < t.loc["percent", "lower"] < 0.95 and t.loc["percent", "upper"] > 0.99
    # all agree on two rare items: the t interval is the point 1, the posterior is not
    df.loc[[3, 17], ["a", "b"]] = 1.0
    post = jb.agreement(df, raters=["a", "b"]).set_index("coefficient")
    t_iv = jb.agreement(df, raters=["a", "b"], interval="t").set_index("coefficient")
    assert t_iv.loc["cohen", "lower"] == pytest.approx(1.0) == t_iv.loc["cohen", "upper"]
    assert post.loc["cohen", "lower"] < 0.6 and post.loc["cohen", "upper"] > 0.99


def _binary_ratings(rng, n, prev, raters, sens=0.9, spec=0.97):
    truth = rng.random(n) < prev
    p = np.where(truth, sens, 1 - spec)
    r = (rng.random((n, raters)) < p[:, None]).astype(float)
    return pd.DataFrame(r, columns=[f"r{j}" for j in range(raters)])


def _kappa(prev, sens=0.9, spec=0.97):
    q = prev * sens + (1 - prev) * (1 - spec)
    pa = prev * (sens**2 + (1 - sens) ** 2) + (1 - prev) * (spec**2 + (1 - spec) ** 2)
    pe = q**2 + (1 - q) ** 2
    return (pa - pe) / (1 - pe)


@pytest.mark.parametrize(("n", "prev"), [(30, 0.05), (30, 0.5)])
def test_few_items_and_a_rare_category_cover(n, prev):
    # Cohen's and Fleiss' kappa of two raters (equal in the population); the t interval
    # covered 0.64 / 0.90 here.  200 sets: Monte-Carlo sd 0.0154, 2.5 sd below 0.95 0.911
    rng = np.random.default_rng(41 if prev < 0.1 else 42)
    truth, hits, reps = _kappa(prev), {"cohen": 0, "fleiss": 0}, 200
    for s in range(reps):
        df = _binary_ratings(rng, n, prev, 2)
        t = jb.agreement(
            df, raters=["r0", "r1"], categories=[0.0, 1.0], coefficients=list(hits),
            random_seed=s, draws=1000,
        ).set_index("coefficient")  # fmt: skip
        for k in hits:
            hits[k] += bool(t.loc[k, "lower"] <= truth <= t.loc[k, "upper"])
    for k, v in hits.items():
        assert v / reps >= 0.95 - 2.5 * np.sqrt(0.95 * 0.05 / reps), (k, v)


def test_bad_interval_and_draws_name_the_field():
    df = pd.DataFrame({"a": [1, 0, 1, 1], "b": [1, 0, 0, 1]})
    for kw, field in (
        ({"interval": "bayes"}, "interval"),
        ({"draws": 10}, "draws"),
        ({"draws": 2.5}, "draws"),
        ({"interval": "posterior", "population": 100}, "interval"),
    ):
        with pytest.raises(InputError) as e:
            jb.agreement(df, raters=["a", "b"], **kw)
        assert e.value.field == field


def test_auto_takes_the_t_interval_on_many_items_with_every_category_used():
    rng = np.random.default_rng(5)
    many = _binary_ratings(rng, 1500, 0.3, 3)
    assert jb.agreement(many, raters=["r0", "r1", "r2"]).attrs["interval"] == "t"
    rare = _binary_ratings(rng, 1500, 0.003, 3, spec=0.999)  # about 16 ratings of 1
    assert jb.agreement(rare, raters=["r0", "r1", "r2"]).attrs["interval"] == "posterior"
    few = _binary_ratings(rng, 200, 0.3, 3)
    assert jb.agreement(few, raters=["r0", "r1", "r2"]).attrs["interval"] == "posterior"
    finite = jb.agreement(few, raters=["r0", "r1", "r2"], population=1000)
    assert finite.attrs["interval"] == "t"


def test_auto_keeps_the_t_interval_for_many_categories_and_edges_stay_honest():
    # five ordered categories: the prior's mass on the many disagreeing profiles would
    # pull the posterior down, so "auto" keeps the t interval
    rng = np.random.default_rng(9)
    truth = rng.choice(5, 30)
    five = pd.DataFrame({r: np.clip(truth + rng.integers(-1, 2, 30), 0, 4) for r in "abc"})
    assert jb.agreement(five, raters=list("abc"), level="ordinal").attrs["interval"] == "t"
    # all agree: the estimate (1) lies inside its interval, and the note says it is not a
    # point; undefined coefficients say where their interval comes from
    df = pd.DataFrame({"a": [0] * 29 + [1], "b": [0] * 29 + [1]})
    t = jb.agreement(df, raters=["a", "b"])
    row = t.set_index("coefficient").loc["cohen"]
    assert row["lower"] <= row["estimate"] <= row["upper"] <= 1.0
    assert row["upper"] == pytest.approx(1.0)
    assert any("the interval is the posterior's" in n for n in t.attrs["notes"])
    zeros = pd.DataFrame({"a": np.zeros(30), "b": np.zeros(30)})
    z = jb.agreement(zeros, raters=["a", "b"], categories=[0.0, 1.0])
    assert any("undefined on these ratings" in n for n in z.attrs["notes"])
    with pytest.raises(InputError, match="at most") as e:
        jb.agreement(df, raters=["a", "b"], draws=10**7)
    assert e.value.field == "draws"
