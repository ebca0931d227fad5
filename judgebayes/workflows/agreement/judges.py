"""Agreement of judges with the humans and with each other, and how many independent
judges a panel is worth.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.data.frames import column_names
from judgebayes.data.ratings import Ratings, cluster_codes, judge_ratings, judge_values
from judgebayes.errors import InputError
from judgebayes.inference import agreement as ag
from judgebayes.workflows.agreement.coefficients import (
    _blocks,
    _check_level,
    _percentile,
    _replicates,
    _units,
)


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
        lo, hi = _percentile(boot, alpha, _units(ratings))
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
    lo, hi = _percentile(m / (1 + (m - 1) * rb), alpha, int(groups.max()) + 1)
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
