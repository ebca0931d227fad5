r"""A leaderboard's closed form: each system's mean over the items, paired by item.

``x`` is the (S, I) matrix of per-item scores of S systems on I items that every system
answered, ``g`` each item's cluster (its own item when there are none).  System
:math:`s`'s mean :math:`\hat\mu_s = \bar x_{s\cdot}` estimates its mean over the
population the items were drawn from (the *process* estimand).  The means' covariance is
the cluster-robust one with the bias-reduced (CR2) weights,

.. math::

    \widehat{\mathrm{Cov}}(\hat\mu_s, \hat\mu_t) = \frac{1}{I^2} \sum_g
        \frac{u_{sg} u_{tg}}{1 - I_g / I},\qquad
    u_{sg} = \sum_{i \in g} (x_{si} - \hat\mu_s),

which is the unbiased sample covariance over items when every item is its own cluster
(:math:`1/(1 - 1/I) = I/(I - 1)`), and for a mean is exactly Bell and McCaffrey's CR2
(the intercept's hat matrix of cluster :math:`g` is :math:`I_g/I` times a matrix of ones).
Its degrees of freedom are :math:`G - 1`.  The items are shared, so a difference
:math:`\hat\mu_s - \hat\mu_t` is paired: its variance
:math:`v_s + v_t - 2 c_{st}` loses the items' common difficulty.

A difference whose per-item values are all equal has a sample variance of 0, which would
make any such pair "certain" however few the items; its standard error is floored at
that of one cluster in :math:`G` moving by half the scale,
:math:`(h - l) / (2G)` (a pair of systems 1 and 0 on every one of 10 items is then 20
standard errors apart, on 2 items 4).

Each system's own interval is bounded by the scale (Student's :math:`t` when the scale
has no bounds): a Wilson score interval on the rescaled mean
:math:`p = (\hat\mu - l)/(h - l)` with the effective sample size :math:`p(1 - p)/\hat v`
and Student's quantile with the board's degrees of freedom.  Where the variance is 0 (a
system scored the same on every item, or every cluster) the sample says nothing of its
spread, and the effective size is the number of clusters, the scale's worst case: a
system that solved all 10 items gets :math:`[0.72, 1]`, one that scored 0.5 on all 5
items :math:`[0.2, 0.8]`, not a point.

The *items* estimand (the systems' means on these items) has no item-sampling
variance: its covariance holds only what is random given the items (a judge's correction
from a sample of labels, a cell's trials), :func:`items_variance`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "PairedMeans",
    "bounded_interval",
    "cluster_codes",
    "difference_se",
    "items_variance",
    "paired_means",
    "resampled_means",
]


@dataclass(frozen=True)
class PairedMeans:
    """The closed form of one leaderboard (module docstring)."""

    mean: np.ndarray  # (S,)
    cov: np.ndarray  # (S, S): the means' covariance
    df: float  # degrees of freedom of the variance
    n_clusters: int
    scale: tuple[float, float]

    @property
    def se(self) -> np.ndarray:
        """Each system's standard error."""
        return np.sqrt(np.maximum(np.diag(self.cov), 0.0))

    def diff_se(self) -> np.ndarray:
        """(S, S) standard errors of the paired differences (floored: module docstring)."""
        return difference_se(self.cov, self.n_clusters, self.scale)


def cluster_codes(g: np.ndarray | None, n_items: int) -> np.ndarray:
    """Codes 0..G-1 of each item's cluster (each item its own without clusters)."""
    if g is None:
        return np.arange(n_items)
    return np.unique(np.asarray(g), return_inverse=True)[1].astype(np.int64)


def paired_means(
    x: np.ndarray, g: np.ndarray | None = None, scale: tuple[float, float] = (0.0, 1.0)
) -> PairedMeans:
    """Means and their cluster-robust (CR2) covariance of the (S, I) scores ``x``."""
    x = np.asarray(x, float)
    n_items = x.shape[1]
    codes = cluster_codes(g, n_items)
    n_g = int(codes.max()) + 1
    mean = x.mean(axis=1)
    dev = x - mean[:, None]
    if n_g == n_items:  # every item its own cluster: the sample covariance
        u, w = dev, np.full(n_items, n_items / max(n_items - 1, 1))
    else:
        u = np.zeros((x.shape[0], n_g))
        for s in range(x.shape[0]):
            u[s] = np.bincount(codes, weights=dev[s], minlength=n_g)
        size = np.bincount(codes, minlength=n_g)
        w = 1.0 / np.maximum(1.0 - size / n_items, 1.0 / n_items)
    # a sum of deviations that is 0 but for the rounding of the mean is 0: a system whose
    # scores do not vary (or whose clusters' means are equal) has no sampling variance to
    # report, not one of 1e-33
    dust = 1e-12 * (np.abs(x).max(axis=1, keepdims=True) + 1.0) * (n_items / n_g)
    u = np.where(np.abs(u) <= dust, 0.0, u)
    cov = (u * w) @ u.T / n_items**2
    return PairedMeans(mean, cov, float(max(n_g - 1, 1)), n_g, (float(scale[0]), float(scale[1])))


def difference_se(cov: np.ndarray, n_clusters: int, scale) -> np.ndarray:
    """(S, S) standard errors of the differences of means with covariance ``cov``, each
    floored at :math:`(h - l)/(2G)` (module docstring); 0 on the diagonal.
    """
    v = np.diag(cov)
    var = v[:, None] + v[None, :] - 2 * cov
    width = scale[1] - scale[0]
    floor = width / (2.0 * max(n_clusters, 1)) if np.isfinite(width) else 1e-12
    se = np.sqrt(np.maximum(var, floor**2))
    np.fill_diagonal(se, 0.0)
    return se


def items_variance(x: np.ndarray, rows: np.ndarray, trials: bool) -> np.ndarray:
    r"""(S,) the variance of each system's mean over these items from its cells' trials:
    :math:`\frac{1}{I^2}\sum_i \hat p_{si}(1 - \hat p_{si})/(n_{si} - 1)`, a cell of one
    trial with its system's mean rate :math:`\bar p_s(1 - \bar p_s)` (one sample of a
    cell's rate is not the rate).  0 without trials: one outcome a cell is the answer.
    """
    if not trials:
        return np.zeros(x.shape[0])
    n = np.asarray(rows, float)
    pooled = x.mean(axis=1, keepdims=True)  # a cell of one trial: its system's rate's
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(n > 1, x * (1 - x) / (n - 1), pooled * (1 - pooled) / n)
    return v.sum(axis=1) / x.shape[1] ** 2


def bounded_interval(
    mean: np.ndarray,
    var: np.ndarray,
    n_units: int,
    df: float | np.ndarray,
    alpha: float,
    scale: tuple[float, float],
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals of means on ``scale`` with variances ``var`` (module
    docstring): in the scale whatever the estimate, never of width 0 at its ends.
    """
    lo_s, hi_s = scale
    width = hi_s - lo_s
    if not np.isfinite(width):  # scores without bounds: Student's t interval
        half = stats.t.ppf(1 - alpha / 2, df) * np.sqrt(np.maximum(var, 0.0))
        return np.asarray(mean, float) - half, np.asarray(mean, float) + half
    p = np.clip((np.asarray(mean, float) - lo_s) / width, 0.0, 1.0)
    v = np.asarray(var, float) / width**2
    edge = (p <= 0) | (p >= 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        inner = np.where(v > 0, p * (1 - p) / v, n_units)
        at_edge = np.where(v > 0, np.minimum(n_units, 0.25 / v), n_units)
    n = np.maximum(np.where(edge, at_edge, inner), 1.0)
    z = stats.t.ppf(1 - alpha / 2, df)
    z2n = z**2 / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * np.sqrt(p * (1 - p) / n + z2n / (4 * n))
    lo = np.where(p <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))  # exact at the edge,
    hi = np.where(p >= 1, 1.0, np.clip(centre + half, 0.0, 1.0))  # not rounding's 1e-17
    return lo_s + width * lo, lo_s + width * hi


def resampled_means(x: np.ndarray, g: np.ndarray, reps: int, seed) -> np.ndarray:
    """(reps, S) each system's mean over ``reps`` resamples of the clusters ``g`` (of the
    items when each is its own) with replacement: the item bootstrap HELM reports.
    """
    g = np.asarray(g, np.int64)
    n_g = int(g.max()) + 1
    size = np.bincount(g, minlength=n_g).astype(float)
    totals = np.stack([np.bincount(g, weights=row, minlength=n_g) for row in np.asarray(x, float)])
    rng = np.random.default_rng(seed)
    out = np.empty((reps, x.shape[0]))
    for lo in range(0, reps, 200):
        w = rng.multinomial(n_g, np.full(n_g, 1.0 / n_g), size=min(200, reps - lo)).astype(float)
        out[lo : lo + len(w)] = (w @ totals.T) / (w @ size)[:, None]
    return out
