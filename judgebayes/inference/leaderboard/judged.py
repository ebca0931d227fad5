r"""A judge's scores on a leaderboard corrected by human labels on a few rows.

The judge's score :math:`x_{si}` of system :math:`s` on item :math:`i` is known for every
cell; a human label :math:`h_{si}` for :math:`n_s` of each system's cells.  Each cell's
pseudo-score (the augmented estimator of a shared calibration)

.. math::

    \phi_{si} = \hat g(x_{si}) + 1[h_{si}\ \text{labelled}]\,
        \frac{N_{s, v}}{n_{s, v}}\,(h_{si} - \hat g(x_{si})),\qquad v = v(x_{si}),

has mean over the items equal to system :math:`s`'s corrected mean
:math:`\bar{\hat g}_s + \sum_v \frac{N_{s,v}}{I} \bar r_{s,v}`.  :math:`\hat g` is the human
label's mean given the judge's score, learnt from every system's labels at once (one
judge for every system: a few labels correct all rows): per score value when the judge
gives at most :data:`MAX_VALUES` values, each shrunk by one pseudo-label to the overall
mean, else a least-squares line.  Each system's own residuals then correct what
:math:`\hat g` misses for it, so a judge kinder to one system costs width, not validity.
With few score values the residuals are averaged within each value :math:`v`
(:math:`N_{s,v}` of the system's cells, :math:`n_{s,v}` of them labelled), so labels
drawn more often where the judge said 1 than 0 (at random within each) still give the
system's mean; a value a system has no label on is corrected by :math:`\hat g` alone
(the other systems' labels) and said.  With a continuous score the residuals are
averaged over the system's labelled cells, which must then be a random choice of them.
Paired and resampled by item, the pseudo-scores carry the labels' sampling into every
interval of :mod:`~judgebayes.inference.leaderboard.paired`.

**Few labels.**  The residual part of a system's variance is estimated from its
:math:`n_s` labels alone, so its degrees of freedom are about :math:`n_s - 1`, not the
items': each system's are Satterthwaite's
:math:`\nu_s = (v_g + v_r)^2 / (v_g^2/(I - 1) + \sum_v v_{r,v}^2/(n_{s,v} - 1))`, with
:math:`v_g` the variance of :math:`\bar{\hat g}_s` over items and :math:`v_r = \sum_v
v_{r,v}` that of the residual part.  With 1% of 500 items labelled (5 labels a system)
and a judge whose specificity is 0.5 on one system and 0.85 on nine others, that
system's 95% interval covered 0.938 of 400 boards with these degrees of freedom and
0.892 with the items' (0.96 and 0.945 at 2%); its width was then 0.75 of the scale: so
few labels say little, and the study's notes say so below :data:`FEW_LABELS`.

The residuals' variances come from few labels, where two equal 0/1 labels make a sample
variance of 0: each value's is the Bernoulli variance at the proportion with one success
and one failure added, :math:`(k + 1)/(n + 2)`, and a system's variance on the item
population is at least :math:`v_g + v_r` (``process_var``), whatever the pseudo-scores'
own spread says.

For the items estimand (the systems' means on these items), the only randomness is which
cells were labelled: :math:`\sum_v v_{r,v} (1 - n_{s,v} / N_{s,v})`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "FEW_LABELS",
    "MAX_VALUES",
    "MIN_STRATUM",
    "PSEUDO_LABELS",
    "JudgeCorrection",
    "judge_corrected",
]

#: labels a system below which its correction's interval is said to rest on few labels
FEW_LABELS = 10
#: judge score values at or below which the calibration and the residuals are per value
MAX_VALUES = 10
#: labels a system needs on each score value for its residuals to be averaged per value
MIN_STRATUM = 2
#: pseudo-labels at the pooled residual variance in a system's (scores not 0/1)
PSEUDO_LABELS = 4.0


@dataclass(frozen=True)
class JudgeCorrection:
    """The pseudo-scores and what the intervals need of the correction."""

    phi: np.ndarray  # (S, I)
    labelled: np.ndarray  # (S,) labels a system
    df: np.ndarray  # (S,) Satterthwaite's degrees of freedom (the item population)
    df_items: np.ndarray  # (S,) the residuals' alone (these items)
    items_var: np.ndarray  # (S,) the variance of each system's mean on these items
    process_var: np.ndarray  # (S,) the same of its mean on the item population
    merged: list  # systems whose residuals were averaged over all their labels
    how: str  # the calibration, in words


def _values(x: np.ndarray) -> np.ndarray | None:
    """The judge's distinct score values, when few enough to stratify by."""
    values = np.unique(x)
    return values if values.size <= MAX_VALUES else None


def _calibration(x, xs, hs, values) -> tuple[np.ndarray, str]:
    r""":math:`\hat g(x)` for every cell, and how it was learnt."""
    if values is not None:
        overall = hs.mean()
        sums = np.array([hs[xs == v].sum() for v in values])
        counts = np.array([(xs == v).sum() for v in values])
        g_of = (sums + overall) / (counts + 1.0)
        return g_of[np.searchsorted(values, x)], (
            f"the human mean at each of the judge's {values.size} score values, from "
            "every system's labels, and each system's residuals within each value"
        )
    if np.ptp(xs) == 0:
        return np.full(x.shape, hs.mean()), "the labels' mean (the labelled scores are one value)"
    slope, intercept = np.polyfit(xs, hs, 1)
    return intercept + slope * x, (
        "a least-squares line of the human label on the score, from every system's labels, "
        "and each system's mean residual"
    )


def _residual_variance(r: np.ndarray, h: np.ndarray, binary: bool, pooled: float) -> float:
    """The variance of a system's residuals in one stratum from its few labels: for 0/1
    labels the Bernoulli variance at :math:`(k + 1)/(n + 2)` (never 0, as two equal
    labels would make a sample variance); else the sample variance
    with :data:`PSEUDO_LABELS` pseudo-labels at the variance ``pooled`` over systems.
    """
    if binary:
        p = (h.sum() + 1.0) / (h.size + 2.0)
        return float(p * (1 - p))
    dev2 = float(((r - r.mean()) ** 2).sum()) if r.size else 0.0
    return (dev2 + PSEUDO_LABELS * pooled) / (max(r.size - 1, 0) + PSEUDO_LABELS)


def judge_corrected(x: np.ndarray, h: np.ndarray) -> JudgeCorrection:
    """The pseudo-scores of the (S, I) judge scores ``x`` corrected by the labels ``h``
    (NaN unlabelled) (module docstring).  Each system needs two labels.
    """
    x = np.asarray(x, float)
    h = np.asarray(h, float)
    n_sys, n_items = x.shape
    lab = ~np.isnan(h)
    n_s = lab.sum(axis=1)
    values = _values(x)
    g, how = _calibration(x, x[lab], h[lab], values)
    r = np.where(lab, np.nan_to_num(h) - g, 0.0)
    binary = bool(np.isin(h[lab], (0.0, 1.0)).all())
    pooled = float(r[lab].var(ddof=1)) if lab.sum() > 1 else 0.25
    codes = np.zeros(x.shape, np.int64) if values is None else np.searchsorted(values, x)
    weight = np.zeros(x.shape)
    v_r, v_items, denom = np.zeros(n_sys), np.zeros(n_sys), np.zeros(n_sys)
    merged = []
    for s in range(n_sys):
        strata = codes[s]
        present = np.unique(strata)
        if any((lab[s] & (strata == v)).sum() < MIN_STRATUM for v in present):
            strata = np.zeros(n_items, np.int64)  # too few labels in a value: one stratum
            present = np.zeros(1, np.int64)
            if values is not None:
                merged.append(s)
        for v in present:
            cells = strata == v
            in_v = cells & lab[s]
            big_n, small_n = int(cells.sum()), int(in_v.sum())
            if small_n == 0:  # no label at all: no correction (callers refuse this)
                continue
            weight[s, in_v] = big_n / small_n
            var_v = _residual_variance(r[s, in_v], h[s, in_v], binary, pooled)
            comp = (big_n / n_items) ** 2 * var_v / small_n
            v_r[s] += comp
            v_items[s] += comp * (1 - small_n / big_n)
            denom[s] += comp**2 / max(small_n - 1, 1)
    phi = g + weight * r
    v_g = g.var(axis=1, ddof=1) / n_items
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (v_g + v_r) ** 2 / (v_g**2 / (n_items - 1) + denom)
        df_items = v_r**2 / denom
    df = np.where(np.isfinite(df), df, n_items - 1.0)
    df_items = np.where(np.isfinite(df_items), df_items, np.maximum(n_s - 1.0, 1.0))
    return JudgeCorrection(
        phi=phi,
        labelled=n_s,
        df=np.clip(df, 1.0, n_items - 1.0),
        df_items=np.clip(df_items, 1.0, n_items - 1.0),
        items_var=v_items,
        process_var=v_g + v_r,
        merged=merged,
        how=how,
    )
