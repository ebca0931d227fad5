r"""How much raters agree, with intervals: coefficients, a judge against the humans, and the
effective number of independent judges.

All three take ratings in a long frame (``item``, ``rater``, ``value``) or a wide one
(``raters=`` columns) and resample items, or clusters of items with ``cluster=``, for their
bootstrap intervals.  The coefficients themselves live in
:mod:`judgebayes.inference.agreement.coefficients`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.agreement import (
    Ratings,
    cluster_codes,
    judge_ratings,
    judge_values,
    ratings_from_frame,
)
from judgebayes.data.frames import column_names
from judgebayes.errors import InputError
from judgebayes.inference.agreement import coefficients as ag
from judgebayes.inference.agreement import posterior as agp
from judgebayes.inference.registry import check_count, check_seed
from judgebayes.results import check_alpha

__all__ = ["agreement", "effective_judges", "judge_agreement"]

_DEFAULT = ("percent", "cohen", "fleiss", "gwet", "brennan_prediger", "krippendorff")


_BLOCK = 250  # bootstrap replicates per vectorised block (memory: block x items floats)
#: ``interval="auto"`` takes the t interval from this many items (or clusters) on...
T_UNITS = 1000
#: ...when every category has at least this many ratings
T_RATINGS = 50
#: ...and takes the posterior only up to this many categories
POSTERIOR_CATEGORIES = 3
#: the posterior's draws at most (memory: draws x items floats a block)
MAX_DRAWS = 100_000
#: below this many clusters the table's notes say what the intervals rest on
FEW_CLUSTERS = 20


def agreement(
    frame,
    item: str | None = None,
    rater: str | None = None,
    value: str | None = None,
    *,
    raters=None,
    level: str = "nominal",
    cluster: str | None = None,
    categories=None,
    coefficients=None,
    alpha: float = 0.05,
    population: float | None = None,
    interval: str = "auto",
    draws: int = 2000,
    bootstrap: int = 0,
    random_seed: int = 0,
) -> pd.DataFrame:
    r"""Agreement coefficients between raters, each with a standard error and its interval
    (and a bootstrap interval on request).

    Parameters
    ----------
    frame : DataFrame
        Long (one row per rating: ``item``, ``rater``, ``value``) or wide (one row per item,
        one column per rater named in ``raters=``; blank = not rated).
    item, rater, value : str, optional
        The long form's columns (``item`` is optional in the wide form).
    raters : list of str, optional
        The wide form's rater columns.
    level : {"nominal", "ordinal", "interval", "ratio"}
        Nominal counts only exact agreement; the others give partial credit to near
        categories (ordinal: Gwet's rank weights, interval: quadratic, ratio: ratio weights;
        Krippendorff's alpha uses Krippendorff's own distance for each level, so it equals
        the ``krippendorff`` package).
    cluster : str, optional
        A column grouping items that are not independent (several responses to one prompt):
        the standard errors sum each cluster's terms and the bootstrap resamples clusters;
        degrees of freedom are clusters - 1.
    categories : list, optional
        Every category a rating may take, in order (categories nobody used still change the
        chance agreement of AC1 and Brennan-Prediger). Default: the values seen.
    coefficients : list of str, optional
        Any of ``"percent"``, ``"cohen"`` (exactly two raters), ``"fleiss"``, ``"gwet"``,
        ``"brennan_prediger"``, ``"krippendorff"``. Default: all that apply.
    alpha : float
        1 - the intervals' level.
    population : float, optional
        The number of items the rated ones were drawn from (finite-population correction
        :math:`1 - n/N`); default infinite.
    interval : {"auto", "posterior", "t"}
        ``"posterior"``: the coefficient's posterior under a Dirichlet model of the items'
        rating profiles with two items' worth of prior mass spread over every profile
        (:mod:`judgebayes.inference.agreement.posterior`): it keeps to the coefficient's
        range and stays honest on few items or a rare category, where the t interval is a
        point or misses (at 30 items and a category of prevalence 0.05 the t interval
        covered 0.64-0.70 at 95%).  ``"t"``: the estimate :math:`\pm t_{df} \cdot` se,
        Gwet's large-sample interval, and no draws.  ``"auto"`` (default): the posterior
        for up to :data:`POSTERIOR_CATEGORIES` categories on fewer than :data:`T_UNITS`
        items (or clusters) or where a category has fewer than :data:`T_RATINGS`
        ratings; the t interval otherwise: where the two agree, with a finite
        ``population`` (which it corrects for), and with more categories, where the
        prior's mass on the many disagreeing profiles pulls the posterior down (a trial
        with ordinal ratings 1-5 on 30 items found it short of its level where the t
        interval was not).
    draws : int
        The posterior's draws (default 2000).
    bootstrap : int
        Bootstrap replicates over items or clusters (default 0: none, and ``boot_lower`` /
        ``boot_upper`` are NaN).
    random_seed : int
        The posterior's and the bootstrap's seed.

    Returns
    -------
    DataFrame
        One row per coefficient: ``coefficient``, ``name``, ``estimate``, ``se`` (Gwet's
        linearisation; Fleiss-Cohen-Everitt for Cohen's kappa), ``lower`` / ``upper`` (the
        interval ``interval=`` names; the upper end at most 1), ``boot_lower`` /
        ``boot_upper`` (percentile bootstrap over items or clusters), ``pa``, ``pe`` (observed
        and chance agreement), ``n_items``, ``n_raters``, ``df``.  ``attrs["notes"]`` counts
        the items left out or rated once.

    Examples
    --------
    >>> import pandas as pd
    >>> import judgebayes as jb
    >>> wide = pd.DataFrame({"a": [1, 1, 0, 1, 0, 1], "b": [1, 1, 0, 0, 0, 1]})
    >>> t = jb.agreement(wide, raters=["a", "b"])
    >>> round(float(t.set_index("coefficient").loc["cohen", "estimate"]), 4)
    0.6667
    """
    ratings = ratings_from_frame(
        frame,
        item,
        rater,
        value,
        raters=raters,
        cluster=cluster,
        categories=categories,
        level=level,
    )
    _check_level(alpha, bootstrap, random_seed)
    _check_interval(interval, draws, population, len(ratings.items))
    names = _coefficients(coefficients, ratings)
    counts = ratings.counts
    if interval == "auto":
        small = _units(ratings) < T_UNITS or counts.sum(axis=0).min() < T_RATINGS
        few = counts.shape[1] <= POSTERIOR_CATEGORIES
        interval = "posterior" if small and few and population is None else "t"
    W = ag.category_weights(ratings.values, level)
    weights = _replicates(ratings, bootstrap, random_seed)
    cache: dict = {}
    rows = []
    for key in names:
        est = _terms(key, ratings, counts, W)
        var, df = ag.linearized_variance(est, ratings.clusters, population or np.inf)
        se = float(np.sqrt(var))
        half = stats.t.ppf(1 - alpha / 2, df) * se if df > 0 else np.nan
        lower, upper = est.estimate - half, est.estimate + half
        if interval == "posterior":
            post = _posterior_draws(key, ratings, counts, W, draws, random_seed, cache)
            lower, upper = agp.expanded_percentile(post, alpha, _units(ratings))
            if np.isfinite(est.estimate):  # the estimate on a boundary stays inside
                lower, upper = min(lower, est.estimate), max(upper, est.estimate)
        boot = np.concatenate(
            [np.empty(0)] + [_replicate(key, ratings, counts, W, c) for c in weights]
        )
        blo, bhi = agp.expanded_percentile(boot, alpha, _units(ratings))
        rows.append(
            {
                "coefficient": key,
                "name": _name(key, level),
                "estimate": est.estimate,
                "se": se,
                "lower": float(lower),
                "upper": float(np.minimum(1.0, upper)),  # NaN stays NaN
                "boot_lower": float(blo),
                "boot_upper": float(np.minimum(1.0, bhi)),
                "pa": est.pa,
                "pe": est.pe,
                "n_items": int(est.used.sum()),
                "n_raters": len(ratings.raters),
                "df": int(df),
            }
        )
    out = pd.DataFrame(rows)
    out.attrs["notes"] = _notes(ratings, rows, bootstrap)
    out.attrs["interval"] = interval
    out.attrs["level"] = level
    out.attrs["confidence"] = 1 - alpha
    return out


def _check_interval(interval, draws, population, n_items: int) -> None:
    """The checks of ``interval=``, ``draws=`` and ``population=``, each error naming its
    field.
    """
    if interval not in ("auto", "posterior", "t"):
        raise InputError(
            f"interval must be 'auto', 'posterior' or 't'; got {interval!r}",
            field="interval",
            value=interval,
        )
    check_count(draws, "draws", 100)
    if draws > MAX_DRAWS:
        raise InputError(
            f"draws must be at most {MAX_DRAWS:,}; got {draws}", field="draws", value=draws
        )
    if population is not None and (
        isinstance(population, bool)
        or not isinstance(population, int | float)
        or not population >= n_items
    ):
        raise InputError(
            f"population must be a number at least the {n_items} rated items; got {population!r}",
            field="population",
            value=population,
        )
    if population is not None and interval == "posterior":
        raise InputError(
            "population= corrects the t interval for a finite population; the posterior "
            "assumes an unending one: give interval='t' (or 'auto', which takes it)",
            field="interval",
            value=interval,
        )


def _notes(ratings: Ratings, rows: list[dict], bootstrap: int) -> list[str]:
    """What a reader of the agreement table must know: the ratings' own notes, undefined
    or point coefficients, and what the bootstrap resampled.
    """
    notes = list(ratings.notes)
    if len(ratings.values) < 2:
        notes.append(
            "every rating is one category: the chance-corrected coefficients are undefined (NaN)"
        )
    for r in rows:
        if not np.isfinite(r["estimate"]) and np.isfinite(r["lower"]):
            notes.append(
                f"{r['name']}: undefined on these ratings (one category only); its interval "
                "is the posterior's over the categories given"
            )
        elif r["se"] < 1e-12 and np.isfinite(r["estimate"]) and r["upper"] - r["lower"] < 1e-9:
            notes.append(
                f"{r['name']}: its standard error is 0 (every rated item gives the same "
                "term, e.g. all agree), so its interval is a point: rate more items"
            )
        elif r["se"] < 1e-12 and np.isfinite(r["estimate"]):
            notes.append(
                f"{r['name']}: its standard error is 0 (every rated item gives the same "
                "term, e.g. all agree); the interval is the posterior's"
            )
    if ratings.clusters is not None and len(np.unique(ratings.clusters)) < FEW_CLUSTERS:
        notes.append(
            f"the intervals rest on {len(np.unique(ratings.clusters))} clusters: with "
            f"fewer than {FEW_CLUSTERS} the intervals can fall short of their level where "
            "the clusters differ much"
        )
    if bootstrap and ratings.clusters is not None:
        notes.append(f"bootstrap over {len(np.unique(ratings.clusters))} clusters")
    return notes


def _check_level(alpha, bootstrap, random_seed) -> None:
    """The project's checks of the three settings every function here takes."""
    check_alpha(alpha)
    check_count(bootstrap, "bootstrap", 0)
    check_seed(random_seed)


def _coefficients(coefficients, ratings: Ratings) -> tuple[str, ...]:
    two = len(ratings.raters) == 2
    if coefficients is None:
        return tuple(k for k in _DEFAULT if two or k != "cohen")
    names = column_names(coefficients, "coefficients")
    for k in names:
        if k not in ag.COEFFICIENTS:
            raise InputError(
                f"coefficients: {k!r} is not one of {list(ag.COEFFICIENTS)}",
                field="coefficients",
                value=k,
            )
        if k == "cohen" and not two:
            raise InputError(
                f"Cohen's kappa is for two raters; got {len(ratings.raters)} "
                f"({list(ratings.raters)}): use fleiss / krippendorff, or name two raters",
                field="coefficients",
                value=k,
            )
    return names


def _name(key: str, level: str) -> str:
    if key == "gwet" and level != "nominal":
        return "Gwet's AC2"
    if key == "cohen" and level != "nominal":
        return "Cohen's weighted kappa"
    return ag.COEFFICIENTS[key]


def _terms(key, ratings: Ratings, counts, W) -> ag.CoefficientEstimate:
    if key == "cohen":
        return ag.cohen_terms(ratings.codes[:, 0], ratings.codes[:, 1], W)
    if key == "krippendorff":
        return ag.krippendorff_terms(counts, ratings.values, ratings.level)
    return ag.fleiss_terms(counts, W, key)


def _replicate(key, ratings: Ratings, counts, W, c) -> np.ndarray:
    if key == "cohen":
        return ag.cohen(ratings.codes[:, 0], ratings.codes[:, 1], W, c)
    if key == "krippendorff":
        return ag.krippendorff(counts, ratings.values, ratings.level, c)
    return ag.fleiss_family(counts, W, key, c)


def _posterior_draws(key, ratings: Ratings, counts, W, draws: int, seed: int, cache) -> np.ndarray:
    """Draws of one coefficient's posterior (:mod:`judgebayes.inference.agreement.posterior`):
    the rated items and the prior's profiles under Dirichlet weights, drawn once a call for
    the coefficients of the counts (and once for Cohen's pairs) and kept in ``cache``.
    """
    pairs = key == "cohen"
    if pairs not in cache:
        cache[pairs] = _posterior_inputs(ratings, counts, draws, seed, pairs)
    columns, blocks = cache[pairs]
    out = []
    for c in blocks:
        if pairs:
            out.append(ag.cohen(*columns, W, c))
        elif key == "krippendorff":
            out.append(ag.krippendorff(columns, ratings.values, ratings.level, c))
        else:
            out.append(ag.fleiss_family(columns, W, key, c))
    return np.concatenate(out)


def _posterior_inputs(ratings: Ratings, counts, draws: int, seed: int, pairs: bool):
    """The items with the prior's profiles (counts, or Cohen's two code columns) and
    blocks of their Dirichlet weights (at most about two million weights a block).
    """
    rng = np.random.default_rng([seed, 1])
    n, q = counts.shape
    groups = ratings.clusters if ratings.clusters is not None else np.arange(n)
    columns: Any
    if pairs:
        px, py, mass = agp.pair_profiles(q)
        columns = (
            np.concatenate([ratings.codes[:, 0], px]),
            np.concatenate([ratings.codes[:, 1], py]),
        )
    else:
        r = counts.sum(axis=1).astype(int)
        m = int(np.bincount(r[r >= 2]).argmax()) if (r >= 2).any() else 2
        profiles = agp.prior_profiles(q, m, rng)
        columns = np.concatenate([counts, profiles])
        mass = np.full(len(profiles), 1.0 / len(profiles))
    block = max(_BLOCK, 2_000_000 // (n + len(mass)))
    blocks = [
        agp.weights(groups, mass, min(block, draws - start), rng)
        for start in range(0, draws, block)
    ]
    return columns, blocks


def _units(ratings: Ratings) -> int:
    """How many units the bootstrap resamples: the clusters, or the items."""
    c = ratings.clusters
    return len(ratings.items) if c is None else len(np.unique(c))


def _replicates(ratings: Ratings, bootstrap: int, seed: int):
    """Blocks of bootstrap item weights of the ratings' items (:func:`_blocks`)."""
    n = len(ratings.items)
    groups = ratings.clusters if ratings.clusters is not None else np.arange(n)
    return _blocks(groups, bootstrap, seed)


def _blocks(groups: np.ndarray, bootstrap: int, seed: int) -> list[np.ndarray]:
    """Blocks of bootstrap item weights: each row counts how often each item was drawn,
    resampling the groups (clusters, or the items themselves) with replacement.
    """
    rng = np.random.default_rng(seed)
    G = int(groups.max()) + 1
    blocks = []
    for start in range(0, bootstrap, _BLOCK):
        b = min(_BLOCK, bootstrap - start)
        drawn = rng.multinomial(G, np.full(G, 1.0 / G), size=b).astype(float)
        blocks.append(drawn[:, groups])
    return blocks


# ------------------------------------------------------------------ judges
def _pairwise_kappas(ratings: Ratings, W, pairs, weights):
    """Cohen's kappa of each pair of rater indices: the estimate and each bootstrap block."""
    codes = ratings.codes
    point = np.array([ag.cohen(codes[:, a], codes[:, b], W)[0] for a, b in pairs])
    boot = (
        np.concatenate(
            [
                np.stack([ag.cohen(codes[:, a], codes[:, b], W, c) for a, b in pairs], axis=1)
                for c in weights
            ]
        )
        if weights
        else np.empty((0, len(pairs)))
    )
    return point, boot


def judge_agreement(
    frame,
    judges,
    humans,
    *,
    item: str | None = None,
    level: str = "nominal",
    cluster: str | None = None,
    categories=None,
    alpha: float = 0.05,
    bootstrap: int = 2000,
    random_seed: int = 0,
) -> pd.DataFrame:
    r"""Does each judge agree with the humans as well as the humans agree with each other?

    For judge :math:`J` and humans :math:`h_1..h_H` (at least two), with :math:`\kappa` Cohen's
    (weighted) kappa of two raters on the items both rated,

    .. math::

        A_J = \frac{1}{H} \sum_h \kappa(J, h), \qquad
        A_H = \binom{H}{2}^{-1} \sum_{h < h'} \kappa(h, h'), \qquad
        \Delta = A_J - A_H,

    which equals the mean over humans of (the judge's agreement with the other humans)
    minus (that human's agreement with the other humans): a judge with :math:`\Delta \ge 0`
    could replace a labeller.  The interval for :math:`\Delta` is a percentile bootstrap
    over items (clusters with ``cluster=``), paired: the judge's and the humans' kappas are
    recomputed on the same resampled items.

    Parameters
    ----------
    frame : DataFrame
        One row per item, one column per judge and per human (blank = not rated).
    judges, humans : str or list of str
        The judges' and the humans' columns.
    item, level, cluster, categories, alpha, bootstrap, random_seed
        As in :func:`agreement`.

    Returns
    -------
    DataFrame
        One row per judge: ``judge``, ``judge_vs_humans`` (:math:`A_J`),
        ``humans_vs_humans`` (:math:`A_H`), ``difference`` (:math:`\Delta`), ``lower``,
        ``upper``, ``n_items`` (rated by the judge and at least one human).
    """
    js = column_names(judges, "judges")
    hs = column_names(humans, "humans")
    if len(hs) < 2:
        raise InputError(
            f"judge_agreement compares with the humans' agreement among themselves, which "
            f"needs two or more humans; got {list(hs)}",
            field="humans",
            value=list(hs),
        )
    _check_level(alpha, bootstrap, random_seed)
    ratings = judge_ratings(
        frame, js, hs, item=item, cluster=cluster, categories=categories, level=level
    )
    W = ag.category_weights(ratings.values, level)
    weights = _replicates(ratings, bootstrap, random_seed)
    H = len(hs)
    human_pairs = [(a, b) for a in range(H) for b in range(a + 1, H)]
    hp, hboot = _pairwise_kappas(ratings, W, human_pairs, weights)
    rows = []
    for j, name in enumerate(js):
        col = H + j
        jp, jboot = _pairwise_kappas(ratings, W, [(col, h) for h in range(H)], weights)
        diff = jp.mean() - hp.mean()
        boot = jboot.mean(axis=1) - hboot.mean(axis=1)
        lo, hi = agp.expanded_percentile(boot, alpha, _units(ratings))
        rated = (ratings.codes[:, col] >= 0) & (ratings.codes[:, :H] >= 0).any(axis=1)
        rows.append(
            {
                "judge": name,
                "judge_vs_humans": float(jp.mean()),
                "humans_vs_humans": float(hp.mean()),
                "difference": float(diff),
                "lower": float(lo),
                "upper": float(hi),
                "n_items": int(rated.sum()),
            }
        )
    out = pd.DataFrame(rows)
    out.attrs["notes"] = list(ratings.notes)
    out.attrs["confidence"] = 1 - alpha
    return out


def effective_judges(
    frame,
    judges,
    *,
    humans=None,
    cluster: str | None = None,
    alpha: float = 0.05,
    bootstrap: int = 2000,
    random_seed: int = 0,
) -> pd.DataFrame:
    r"""How many independent judges a panel is worth.

    With :math:`m` judges whose errors have mean pairwise correlation :math:`\bar\rho`, the
    panel's mean verdict has the variance of

    .. math::

        m_{\mathrm{eff}} = \frac{m}{1 + (m - 1) \bar\rho}

    independent judges (the design effect of equicorrelated errors). With ``humans=`` the
    correlation is taken given the humans' mean rating (each judge's values centred within
    the items that share it; a linear fit on it when it takes more than 10 values), on the
    items humans rated: what the judges share beyond the truth the humans see. The humans'
    own errors still leave some shared variation in it, so :math:`m_{\mathrm{eff}}` is
    then a lower bound that is tight when the humans agree with the truth. Without
    ``humans=`` the judges' values themselves are correlated: agreeing on the truth counts
    as dependence too, and :math:`m_{\mathrm{eff}}` is a looser lower bound.
    Pearson correlations over the items both judges rated; a percentile bootstrap over items
    (clusters) for the interval.

    Parameters
    ----------
    frame : DataFrame
        One row per item with numeric judge columns (0/1 verdicts or scores).
    judges : list of str
        At least two judge columns.
    humans : str or list of str, optional
        Human rating columns (numeric; their mean is the reference).
    cluster, alpha, bootstrap, random_seed
        As in :func:`agreement`.

    Returns
    -------
    DataFrame
        One row: ``judges``, ``basis`` (``"given the humans"`` or ``"values"``),
        ``mean_correlation``,
        ``effective_judges``, ``lower``, ``upper``, ``n_items``.
    """
    js = column_names(judges, "judges")
    if len(js) < 2:
        raise InputError(
            f"effective_judges needs two or more judges; got {list(js)}",
            field="judges",
            value=list(js),
        )
    _check_level(alpha, bootstrap, random_seed)
    df, X, Hm = judge_values(frame, js, humans, cluster)
    basis = "values"
    if Hm is not None:
        rated = np.isfinite(Hm).sum(axis=1)
        ref = np.where(rated > 0, np.nansum(Hm, axis=1) / np.maximum(rated, 1), np.nan)
        X = _within_reference(X, ref)
        basis = "given the humans"
    keep = np.isfinite(X).sum(axis=1) >= 2
    X = X[keep]
    if len(X) < 3:
        raise InputError(
            f"effective_judges needs three or more items rated by two judges"
            f"{' and a human' if humans is not None else ''}; got {len(X)}",
            field="frame",
            value=len(X),
        )
    seen = [x[np.isfinite(x)] for x in X.T]
    flat = [c for c, v in zip(js, seen, strict=True) if v.size and v.min() == v.max()]
    if flat:
        raise InputError(
            f"judge {flat[0]!r} gives one value on every item"
            f"{' (given the humans)' if humans is not None else ''}: its correlation with "
            "the other judges is undefined (leave it out)",
            field="judges",
            value=flat[0],
        )
    groups = np.arange(len(X))
    if cluster is not None:
        groups = pd.factorize(cluster_codes(df, cluster)[keep])[0]
    m = len(js)
    rho = _mean_correlation(X, np.ones((1, len(X))))[0]
    boot = [_mean_correlation(X, c) for c in _blocks(groups, bootstrap, random_seed)]
    rb = np.concatenate(boot) if boot else np.empty(0)
    meff = m / (1 + (m - 1) * rho)
    lo, hi = agp.expanded_percentile(m / (1 + (m - 1) * rb), alpha, int(groups.max()) + 1)
    out = pd.DataFrame(
        [
            {
                "judges": m,
                "basis": basis,
                "mean_correlation": float(rho),
                "effective_judges": float(meff),
                "lower": float(lo),
                "upper": float(hi),
                "n_items": len(X),
            }
        ]
    )
    out.attrs["confidence"] = 1 - alpha
    return out


def _within_reference(X: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Each judge's values centred within the items that share the humans' rating (a
    regression on it when the rating takes more than 10 values); items without a human
    rating are left out (NaN).
    """
    out = np.full_like(X, np.nan)
    has = np.isfinite(ref)
    levels = np.unique(ref[has])
    for j in range(X.shape[1]):
        ok = has & np.isfinite(X[:, j])
        if len(levels) <= 10:
            for v in levels:
                s = ok & (ref == v)
                out[s, j] = X[s, j] - X[s, j].mean()
        elif ok.sum() > 2:
            beta = np.polyfit(ref[ok], X[ok, j], 1)
            out[ok, j] = X[ok, j] - np.polyval(beta, ref[ok])
    return out


def _mean_correlation(X: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Mean pairwise weighted Pearson correlation of X's columns (pairwise complete), for
    each row of item weights ``c``.
    """
    m = X.shape[1]
    rs = []
    for a in range(m):
        for b in range(a + 1, m):
            ok = np.isfinite(X[:, a]) & np.isfinite(X[:, b])
            x, y, w = X[ok, a], X[ok, b], c[:, ok]
            sw = w.sum(axis=1)
            mx, my = (w @ x) / sw, (w @ y) / sw
            cov = (w @ (x * y)) / sw - mx * my
            vx = (w @ (x * x)) / sw - mx**2
            vy = (w @ (y * y)) / sw - my**2
            with np.errstate(invalid="ignore", divide="ignore"):
                rs.append(cov / np.sqrt(vx * vy))
    r = np.stack(rs)
    ok = np.isfinite(r)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, r, 0).sum(axis=0) / ok.sum(axis=0)
