"""Agreement coefficients (judgebayes/inference/agreement/coefficients.py): equal to irrCAC,
krippendorff and statsmodels (test-time references only; irrCAC and krippendorff are GPL),
published values, the bootstrap's item weights, and intervals that cover.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.inference.agreement import coefficients as ag
from tests.helpers import agreement_table, ratings_wide

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders x 12 units
# example and its published alphas (to the 3 decimals printed there)
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
        [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
    ]
)
PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
IRR_WEIGHTS = {
    "nominal": "identity",
    "ordinal": "ordinal",
    "interval": "quadratic",
    "ratio": "ratio",
}


@pytest.mark.parametrize("level", list(PUBLISHED))
def test_published_krippendorff_example(level):
    kd = importlib.import_module("krippendorff")
    t = agreement_table(
        jb.agreement(
            ratings_wide(KRIPPENDORFF_2011.T),
            raters=[f"r{j}" for j in range(4)],
            level=level,
            bootstrap=0,
        )
    )
    alpha = t.loc["krippendorff", "estimate"]
    assert round(alpha, 3) == PUBLISHED[level]
    assert alpha == pytest.approx(
        kd.alpha(KRIPPENDORFF_2011, level_of_measurement=level), abs=1e-12
    )
    # the unit rated once (unit 12) is out of alpha and counted
    assert t.loc["krippendorff", "n_items"] == 11
    assert t.loc["fleiss", "n_items"] == 12


def random_tables(seed: int, count: int):
    """Random item x rater tables with missing ratings: (values, matrix with NaN)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, raters, q = rng.integers(4, 40), rng.integers(2, 6), rng.integers(2, 6)
        values = np.sort(rng.choice(np.arange(1, 10), q, replace=False)).astype(float)
        # raters who mostly agree on a latent category, so coefficients span [-0.3, 1]
        latent = rng.integers(0, q, n)
        agree = rng.random((n, raters)) < rng.uniform(0, 1)
        codes = np.where(agree, latent[:, None], rng.integers(0, q, (n, raters)))
        x = values[codes]
        x[rng.random((n, raters)) < rng.uniform(0, 0.4)] = np.nan
        x = x[~np.isnan(x).all(axis=1)]
        pairable = (~np.isnan(x)).sum(axis=1) >= 2
        if pairable.sum() >= 3 and len(np.unique(x[~np.isnan(x)])) >= 2:
            yield np.unique(x[~np.isnan(x)]), x


def check_against_references(seed: int, count: int):
    kd = importlib.import_module("krippendorff")
    raw = importlib.import_module("irrCAC.raw")
    worst_est, worst_se, done = 0.0, 0.0, 0
    for values, x in random_tables(seed, count):
        df = ratings_wide(x)
        names = list(df.columns)
        for level in PUBLISHED:
            t = agreement_table(jb.agreement(df, raters=names, level=level, bootstrap=0))
            # irrCAC rounds to `digits` (5 by default): 20 turns the rounding off; its own
            # category list would include NaN under pandas 3, so the categories are given
            cac = raw.CAC(df, weights=IRR_WEIGHTS[level], categories=list(values), digits=20)
            for key, method in (
                ("fleiss", cac.fleiss),
                ("gwet", cac.gwet),
                ("brennan_prediger", cac.bp),
            ):
                ref = method()["est"]
                worst_est = max(worst_est, abs(t.loc[key, "estimate"] - ref["coefficient_value"]))
                if key != "brennan_prediger":  # irrCAC's B-P variance drops the pe term
                    worst_se = max(worst_se, abs(t.loc[key, "se"] - ref["se"]))
            alpha = kd.alpha(x.T, level_of_measurement=level, value_domain=values)
            worst_est = max(worst_est, abs(t.loc["krippendorff", "estimate"] - alpha))
            # irrCAC's alpha with Krippendorff's own distance as its weights: the same alpha,
            # and the reference for its standard error
            pairable = (~np.isnan(x)).sum(axis=1) >= 2
            counts = np.stack([(x[pairable] == v).sum(axis=1) for v in values], axis=1)
            w = ag.krippendorff_weights(values, level, counts.sum(axis=0))
            ref = raw.CAC(df, weights=w, categories=list(values), digits=20).krippendorff()["est"]
            worst_est = max(worst_est, abs(ref["coefficient_value"] - alpha))
            worst_se = max(worst_se, abs(t.loc["krippendorff", "se"] - ref["se"]))
        done += 1
    assert done >= 0.9 * count
    assert worst_est < 1e-9
    assert worst_se < 1e-6


def test_equal_to_irrcac_and_krippendorff_on_random_tables():
    check_against_references(seed=1, count=40)


@pytest.mark.slow
def test_equal_to_irrcac_and_krippendorff_on_1000_random_tables():
    check_against_references(seed=2, count=1000)


def test_irrcac_published_datasets():
    raw = importlib.import_module("irrCAC.raw")
    datasets = importlib.import_module("irrCAC.datasets")
    for data in (datasets.raw_4raters(), datasets.raw_5observers()):
        data = data.apply(pd.to_numeric, errors="coerce")
        names = list(data.columns)
        values = sorted(set(data.stack().dropna()))
        t = agreement_table(jb.agreement(data, raters=names, bootstrap=0))
        cac = raw.CAC(data, categories=values, digits=20)
        for key, method in (
            ("fleiss", cac.fleiss),
            ("gwet", cac.gwet),
            ("krippendorff", cac.krippendorff),
        ):
            ref = method()["est"]
            assert t.loc[key, "estimate"] == pytest.approx(ref["coefficient_value"], abs=1e-9)
            assert t.loc[key, "se"] == pytest.approx(ref["se"], abs=1e-6)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_cohen_equal_to_statsmodels(level):
    inter_rater = importlib.import_module("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(3)
    for _ in range(100):
        q, n = rng.integers(2, 6), rng.integers(10, 80)
        a = rng.integers(0, q, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, q, n))
        a[:q], b[:q] = np.arange(q), np.arange(q)  # every category used by both
        t = agreement_table(
            jb.agreement(
                pd.DataFrame({"a": a + 1, "b": b + 1}),
                raters=["a", "b"],
                level=level,
                coefficients=["cohen"],
                bootstrap=0,
            )
        )
        counts = np.zeros((q, q))
        np.add.at(counts, (a, b), 1)
        w = ag.category_weights(np.arange(1.0, q + 1), level)
        ref = (
            inter_rater.cohens_kappa(counts)
            if level == "nominal"
            else inter_rater.cohens_kappa(counts, weights=1 - w)
        )
        assert t.loc["cohen", "estimate"] == pytest.approx(ref.kappa, abs=1e-12)
        assert t.loc["cohen", "se"] ** 2 == pytest.approx(ref.var_kappa, abs=1e-12)


def test_bootstrap_weights_equal_resampled_tables():
    """The vectorised replicates (item weights) equal the coefficient recomputed on the
    physically resampled table, by the krippendorff package for alpha (whose ordinal
    distance moves with the resampled frequencies).
    """
    kd = importlib.import_module("krippendorff")
    rng = np.random.default_rng(4)
    values, x = next(random_tables(5, 1))
    codes = np.where(np.isnan(x), -1, np.searchsorted(values, np.nan_to_num(x)))
    counts = ag.rating_counts(codes, len(values))
    for _ in range(5):
        draw = rng.integers(0, len(x), len(x))
        c = np.bincount(draw, minlength=len(x))[None, :].astype(float)
        got = ag.krippendorff(counts, values, "ordinal", c)[0]
        want = kd.alpha(x[draw].T, level_of_measurement="ordinal", value_domain=values)
        assert got == pytest.approx(want, abs=1e-12)
        w = ag.category_weights(values, "interval")
        got = ag.fleiss_family(counts, w, "gwet", c)[0]
        assert got == pytest.approx(ag.fleiss_family(counts[draw], w, "gwet")[0], abs=1e-12)


def population_kappas(prevalence, confusion, q):
    """Population Fleiss kappa, Gwet AC1 and percent agreement of exchangeable raters who
    put an item of true class t in category k with probability confusion[t, k] (written
    from the definitions, not from the package).
    """
    pa = float(sum(prevalence[t] * (confusion[t] ** 2).sum() for t in range(len(prevalence))))
    pi = prevalence @ confusion
    pe_f = float((pi**2).sum())
    pe_g = float((pi * (1 - pi)).sum() / (q - 1))
    return {
        "fleiss": (pa - pe_f) / (1 - pe_f),
        "gwet": (pa - pe_g) / (1 - pe_g),
        "krippendorff": (pa - pe_f) / (1 - pe_f),
        "percent": pa,
    }


def population_ac2(prevalence, confusion):
    r"""Population Gwet AC2 with ordinal weights, :math:`w_{kl} = 1 - \binom{|k-l|+1}{2} /
    \binom{q}{2}` (Gwet 2014, 3.5), of exchangeable raters as in :func:`population_kappas`.
    """
    q = confusion.shape[1]
    d = np.abs(np.subtract.outer(np.arange(q), np.arange(q)))
    w = 1 - (d + 1) * d / 2 / (q * (q - 1) / 2)
    pa = sum(prevalence[t] * confusion[t] @ w @ confusion[t] for t in range(len(prevalence)))
    pi = prevalence @ confusion
    pe = w.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum()
    return float((pa - pe) / (1 - pe))


def simulate_ratings(rng, n, raters, prevalence, confusion, cluster_size=1, spread=0.0):
    """Items (in clusters whose class shares differ when spread > 0) rated by raters who
    err independently given the item's class. Returns a wide frame and the marginal class
    shares the population coefficients use.
    """
    G = n // cluster_size
    logits = np.log(prevalence)[None, :] + spread * rng.normal(size=(G, len(prevalence)))
    shares = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    truth = np.array(
        [rng.choice(len(prevalence), p=shares[g]) for g in range(G) for _ in range(cluster_size)]
    )
    cum = confusion.cumsum(axis=1)[truth]
    u = rng.random((len(truth), raters))
    ratings = (u[:, :, None] > cum[:, None, :]).sum(axis=2) + 1
    df = pd.DataFrame(ratings, columns=[f"r{j}" for j in range(raters)]).astype(float)
    df["cluster"] = np.repeat(np.arange(G), cluster_size)
    return df


def coverage(n_sets, n, cluster_size, spread, seed, level="nominal", interval="t"):
    rng = np.random.default_rng(seed)
    prevalence = np.array([0.5, 0.3, 0.2])
    confusion = np.array([[0.8, 0.15, 0.05], [0.15, 0.75, 0.1], [0.05, 0.15, 0.8]])
    # the marginal class shares under cluster spread: averaged over many clusters
    if spread:
        logits = np.log(prevalence)[None, :] + spread * np.random.default_rng(99).normal(
            size=(400_000, 3)
        )
        marginal = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).mean(axis=0)
    else:
        marginal = prevalence
    truth = population_kappas(marginal, confusion, 3)
    if level == "ordinal":
        truth = {"gwet": population_ac2(marginal, confusion)}
    hits = {k: 0 for k in truth}
    boot_hits = {k: 0 for k in truth}
    for _ in range(n_sets):
        df = simulate_ratings(rng, n, 3, prevalence, confusion, cluster_size, spread)
        t = agreement_table(
            jb.agreement(
                df,
                raters=["r0", "r1", "r2"],
                categories=[1, 2, 3],
                cluster="cluster" if cluster_size > 1 else None,
                level=level,
                coefficients=list(truth),
                bootstrap=400,
                interval=interval,
                random_seed=int(rng.integers(1 << 31)),
            )
        )
        for k, v in truth.items():
            hits[k] += t.loc[k, "lower"] <= v <= t.loc[k, "upper"]
            boot_hits[k] += t.loc[k, "boot_lower"] <= v <= t.loc[k, "boot_upper"]
    return ({k: v / n_sets for k, v in hits.items()}, {k: v / n_sets for k, v in boot_hits.items()})


def test_intervals_cover_at_200_items():
    # 300 sets: Monte-Carlo sd of a 95% coverage is 0.0126; the bar is 2.5 sd below
    cov, _ = coverage(300, 200, 1, 0.0, seed=7)
    for k, v in cov.items():
        assert v >= 0.95 - 2.5 * 0.0126, (k, v)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n", "cluster_size", "spread"), [(30, 1, 0.0), (200, 1, 0.0), (60, 3, 1.0), (200, 5, 1.0)]
)
def test_intervals_cover_iid_and_clustered(n, cluster_size, spread):
    # 1,000 sets: Monte-Carlo sd 0.0069; the t interval within 2.5 sd of 0.95 on either
    # side, the posterior (the default below 1,000 items) at least 2.5 sd below
    cov, boot = coverage(1000, n, cluster_size, spread, seed=8)
    for k in cov:
        assert abs(cov[k] - 0.95) <= 2.5 * 0.0069, (k, cov[k], boot[k])
    post, _ = coverage(1000, n, cluster_size, spread, seed=9, interval="posterior")
    for k in post:
        assert post[k] >= 0.95 - 2.5 * 0.0069, (k, post[k])


def test_the_bootstrap_over_few_clusters_covers_ac2():
    # 100 items in 20 clusters, ordinal weights: the plain percentile interval covered
    # 0.898 of 400 sets at 95%; the expanded one (sqrt(G/(G-1)) t quantiles) 0.930.  300
    # sets: Monte-Carlo sd 0.0126, the bar 2.5 sd below 0.95
    cov, boot = coverage(300, 100, 5, 1.0, seed=104, level="ordinal")
    assert boot["gwet"] >= 0.95 - 2.5 * 0.0126, (cov, boot)
    assert cov["gwet"] >= 0.95 - 2.5 * 0.0126, (cov, boot)


def test_finite_population_and_unused_categories_as_irrcac():
    raw = importlib.import_module("irrCAC.raw")
    kd = importlib.import_module("krippendorff")
    values, x = next(random_tables(13, 1))
    df = ratings_wide(x)
    names = list(df.columns)
    # a category nobody used (0 and 10 around the seen 1-9) changes AC1's chance agreement
    cats = [0.0, *values.tolist(), 10.0]
    t = agreement_table(
        jb.agreement(
            df, raters=names, categories=cats, population=200, bootstrap=0, level="ordinal"
        )
    )
    cac = raw.CAC(df, weights="ordinal", categories=cats, N=200, digits=20)
    for key, method in (("fleiss", cac.fleiss), ("gwet", cac.gwet)):
        ref = method()["est"]
        assert t.loc[key, "estimate"] == pytest.approx(ref["coefficient_value"], abs=1e-9)
        assert t.loc[key, "se"] == pytest.approx(ref["se"], abs=1e-9)
    alpha = kd.alpha(x.T, level_of_measurement="ordinal", value_domain=np.array(cats))
    assert t.loc["krippendorff", "estimate"] == pytest.approx(alpha, abs=1e-9)
