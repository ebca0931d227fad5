"""The working model of active labelling: regressors from the judge's score (and its
uncertainty), cross-fitted predictions, and the scale of its errors.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: labels needed before a round leans on the uncertainty: with fewer, the error scales per
#: bin are noise and a round drawn on them was wider than uniform (after a first round of 8
#: labels, 0.220 against 0.187 at 41 labels over 50 draws on LLMBar,
#: benchmarks/active_labelling.py), so it is uniform
MIN_LABELS = 30


#: the uncertainty enters only where the labels show it matters, by a test at this level:
#: the working model takes its terms when their partial F test rejects, a group's bins get
#: their own error scales when Levene's test (a one-way F test on the absolute residuals)
#: rejects equal scales.  Otherwise the line on the judge and one scale (a uniform
#: design).  On HANNA, where the spread of a judge's ratings says nothing, choosing by
#: leave-one-out error or by a positive moment estimate of the bins' spread (each right
#: about half the time by chance there) cost 1-2% more labels than uniform
#: (benchmarks/active_labelling.py)
EVIDENCE_LEVEL = 0.05


def regressors(f: np.ndarray, uncertainty: np.ndarray | None = None) -> np.ndarray:
    """The working model's columns: 1 and ``f``; with an ``uncertainty`` that varies, also
    its standardised value :math:`z` and :math:`f z` (over all items, so fixed before any
    round).
    """
    f = np.asarray(f, float)
    cols = [np.ones_like(f), f]
    if uncertainty is not None:
        u = np.asarray(uncertainty, float)
        sd = float(u.std())
        if sd > 1e-12:
            z = (u - u.mean()) / sd
            cols += [z, f * z]
    return np.column_stack(cols)


def working_model(X: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """Least-squares coefficients of ``y`` on the columns of ``X`` (:func:`regressors`)
    over the ``labelled`` rows: the line on the judge alone from 2 labels; from
    :data:`MIN_LABELS`, all columns when the partial F test of the extra ones rejects at
    :data:`EVIDENCE_LEVEL`, so an uncertainty that says nothing about the label costs
    nothing; the judge itself (:math:`g(f) = f`) below 2.
    """
    lab = np.asarray(labelled, bool)
    n = int(lab.sum())
    coef = np.zeros(X.shape[1])
    if n < 2:
        coef[1] = 1.0
        return coef
    yl = np.asarray(y, float)[lab]
    line, _, rank_line, _ = np.linalg.lstsq(X[lab, :2], yl, rcond=None)
    coef[:2] = line
    if n < MIN_LABELS or X.shape[1] == 2:
        return coef
    full, _, rank_full, _ = np.linalg.lstsq(X[lab], yl, rcond=None)
    rss = [float(np.sum((yl - A @ c) ** 2)) for A, c in ((X[lab, :2], line), (X[lab], full))]
    return full if _f_rejects(rss[0], rss[1], rank_full - rank_line, n - rank_full) else coef


def fold_of(n: int, folds: int) -> np.ndarray:
    """Each of ``n`` items' cross-fitting fold: its place in a fixed random permutation of
    the positions (seeded by ``n``), modulo ``folds``; so it depends on nothing drawn or
    labelled, and the same frame gives the same folds.
    """
    return np.random.default_rng(n).permutation(n) % folds


def crossfit_predictions(
    X: np.ndarray, y: np.ndarray, before: np.ndarray, now: np.ndarray, fold: np.ndarray
) -> np.ndarray:
    """A round's working-model predictions, cross-fitted in sequence: the items of fold
    :math:`k` are predicted by :func:`working_model` on the labels ``before`` the round and
    the round's own labels (``now``) in the folds numbered below :math:`k`, in a round
    with at least :data:`MIN_LABELS` labels before it; otherwise, as with one fold, on the
    labels before the round alone.  A round's first few labels mislead: a line on a
    handful of them puts some scores far off and widens the interval many times over
    (BENCHMARKS.md, evaluation as it runs).
    """
    if before.sum() < MIN_LABELS:  # a line on a round's first few labels misleads
        return X @ working_model(X, y, before)  # one model for every fold
    g = np.empty(X.shape[0])
    for k in np.unique(fold):
        mine = fold == k
        g[mine] = X[mine] @ working_model(X, y, before | (now & (fold < k)))
    return g


def _f_rejects(rss_small: float, rss_big: float, df1: float, df2: float) -> bool:
    """Whether the F test of a smaller model (residual sum of squares ``rss_small``)
    against a bigger one (``rss_big``, ``df1`` more parameters, ``df2`` residual degrees
    of freedom) rejects at :data:`EVIDENCE_LEVEL`; a perfect bigger fit rejects when the
    smaller one is not perfect too, and no degrees of freedom never reject.
    """
    if df1 <= 0 or df2 <= 0:
        return False
    if rss_big <= 0:
        return rss_small > 0
    return bool(
        stats.f.sf((rss_small - rss_big) / df1 / (rss_big / df2), df1, df2) <= EVIDENCE_LEVEL
    )


def error_scale(
    uncertainty: np.ndarray,
    residual2: np.ndarray,
    labelled: np.ndarray,
    *,
    groups: np.ndarray | None = None,
    bins: int = 5,
    prior: float = 5.0,
) -> np.ndarray:
    r"""Each item's predicted root mean square residual :math:`\sqrt{E[e^2 \mid u]}`: the
    labelled items' mean :math:`e^2` within quantile bins of the uncertainty ``u``, inside
    ``groups`` (e.g. the judge's verdict), each shrunk toward the overall mean with
    ``prior`` pseudo-items.  Where the bins' scales do not differ (Levene's test, a one-way
    F test on the absolute residuals, does not reject at :data:`EVIDENCE_LEVEL`), the
    group gets one scale, so an uncertainty that says nothing gives a uniform design instead of one
    drawn on noise.  (Shrinking each bin by its James-Stein factor instead let bins
    with a few near-zero residuals keep a tiny scale, and the rare large residual drawn
    there at a small probability made the rounds wider than uniform ones with the same
    model.)
    """
    u = np.asarray(uncertainty, float)
    groups = np.zeros(u.size, np.int64) if groups is None else np.asarray(groups)
    r2 = np.asarray(residual2, float)
    overall = float(np.mean(r2[labelled])) if labelled.any() else 0.25
    out = np.full(u.size, overall)
    for g in np.unique(groups):
        sel = groups == g
        lab = sel & labelled
        edges = np.unique(np.quantile(u[sel], np.linspace(0, 1, bins + 1)))
        b = np.clip(np.searchsorted(edges, u, side="right") - 1, 0, max(edges.size - 2, 0))
        cells = [lab & (b == k) for k in np.unique(b[sel])]
        n_k = np.array([c.sum() for c in cells], float)
        m_k = np.array([r2[c].sum() for c in cells]) / (n_k + prior) + overall * prior / (
            n_k + prior
        )
        seen = [np.sqrt(r2[c]) for c in cells if c.any()]  # |e|: Levene's test about 0
        if len(seen) < 2 or n_k.sum() <= len(seen) or _same_scale(seen):
            m_k[:] = (r2[lab].sum() + prior * overall) / (lab.sum() + prior)
        for k, m in zip(np.unique(b[sel]), m_k, strict=True):
            out[sel & (b == k)] = m
    return np.sqrt(np.maximum(out, 1e-6))


def _same_scale(samples: list[np.ndarray]) -> bool:
    """One-way F test of equal means across ``samples`` (absolute residuals: Levene's
    test of equal scales): True unless it rejects at :data:`EVIDENCE_LEVEL`.
    """
    pooled = np.concatenate(samples)
    within = sum(float(np.sum((x - x.mean()) ** 2)) for x in samples)
    total = float(np.sum((pooled - pooled.mean()) ** 2))
    return not _f_rejects(total, within, len(samples) - 1, pooled.size - len(samples))
