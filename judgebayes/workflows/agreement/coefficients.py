"""Agreement coefficients of raters with intervals: analytic, or a bootstrap over items
in vectorised blocks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.frames import (
    column_names,
)
from judgebayes.data.ratings import Ratings, ratings_from_frame
from judgebayes.errors import InputError
from judgebayes.inference import agreement as ag
from judgebayes.inference.registry import check_count, check_seed
from judgebayes.results import check_alpha

_DEFAULT = ("percent", "cohen", "fleiss", "gwet", "brennan_prediger", "krippendorff")


_BLOCK = 250  # bootstrap replicates per vectorised block (memory: block x items floats)


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
    bootstrap : int
        Bootstrap replicates over items or clusters (default 0: none; the t interval on
        Gwet's linearised standard error is the interval, and ``boot_lower`` /
        ``boot_upper`` are NaN).
    random_seed : int
        The bootstrap's seed.

    Returns
    -------
    DataFrame
        One row per coefficient: ``coefficient``, ``name``, ``estimate``, ``se`` (Gwet's
        linearisation; Fleiss-Cohen-Everitt for Cohen's kappa), ``lower`` / ``upper``
        (estimate :math:`\pm t_{df} \cdot` se, the upper end at most 1), ``boot_lower`` /
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
    n_items = len(ratings.items)
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
    names = _coefficients(coefficients, ratings)
    counts = ratings.counts
    W = ag.category_weights(ratings.values, level)
    weights = _replicates(ratings, bootstrap, random_seed)
    rows = []
    for key in names:
        est = _terms(key, ratings, counts, W)
        var, df = ag.linearized_variance(est, ratings.clusters, population or np.inf)
        se = float(np.sqrt(var))
        half = stats.t.ppf(1 - alpha / 2, df) * se if df > 0 else np.nan
        boot = np.concatenate(
            [np.empty(0)] + [_replicate(key, ratings, counts, W, c) for c in weights]
        )
        blo, bhi = _percentile(boot, alpha, _units(ratings))
        rows.append(
            {
                "coefficient": key,
                "name": _name(key, level),
                "estimate": est.estimate,
                "se": se,
                "lower": est.estimate - half,
                "upper": float(np.minimum(1.0, est.estimate + half)),  # NaN stays NaN
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
    out.attrs["level"] = level
    out.attrs["confidence"] = 1 - alpha
    return out


def _notes(ratings: Ratings, rows: list[dict], bootstrap: int) -> list[str]:
    """What a reader of the agreement table must know: the ratings' own notes, undefined
    or point coefficients, and what the bootstrap resampled.
    """
    notes = list(ratings.notes)
    if len(ratings.values) < 2:
        notes.append(
            "every rating is one category: the chance-corrected coefficients are undefined (NaN)"
        )
    notes += [
        f"{r['name']}: its standard error is 0 (every rated item gives the same term, e.g. "
        "all agree), so its interval is a point: rate more items"
        for r in rows
        if r["se"] == 0 and np.isfinite(r["estimate"])
    ]
    if bootstrap and ratings.clusters is not None:
        notes.append(f"bootstrap over {len(np.unique(ratings.clusters))} clusters")
    return notes


def _percentile(values: np.ndarray, alpha: float, units: int) -> tuple[float, float]:
    r"""The expanded percentile interval of the finite bootstrap replicates over ``units``
    resampled items or clusters (NaN with fewer than 2 replicates).

    The plain percentile interval is too narrow on few units: the bootstrap's spread is
    the plug-in one (a factor :math:`(G - 1)/G` on the variance) and its quantiles are
    normal where the analytic interval's are t (on 20 clusters it covered 0.90 at 95%).
    The percentiles are taken at :math:`\alpha'/2` and :math:`1 - \alpha'/2` with
    :math:`\Phi^{-1}(1 - \alpha'/2) = \sqrt{G/(G-1)}\, t_{G-1, 1-\alpha/2}`
    (Hesterberg's expanded percentile interval), which keeps the replicates' skew.
    """
    ok = values[np.isfinite(values)]
    if ok.size < 2:
        return np.nan, np.nan
    if units >= 2:
        z = np.sqrt(units / (units - 1)) * stats.t.ppf(1 - alpha / 2, units - 1)
        alpha = float(2 * stats.norm.sf(z))
    lo, hi = np.percentile(ok, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)


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
