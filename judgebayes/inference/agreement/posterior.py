r"""Agreement coefficients' posterior under a Dirichlet model of the items' rating profiles:
an interval that keeps to the coefficient's range and sees the categories nobody used.

The model
---------
An item's profile is what its raters gave it: the counts :math:`(n_{i1}, \dots, n_{iq})`
over the :math:`q` categories (for Cohen's kappa, the two raters' ordered pair).  The
profiles are draws from an unknown distribution :math:`F` with a Dirichlet-process prior of
concentration :math:`a_0` around a base :math:`F_0` uniform over the possible profiles of
:math:`m` ratings (every unordered profile equally likely; :math:`m` the most common number
of ratings an item has).  Given the :math:`n` rated items (or :math:`G` clusters of them),

.. math::

    F \mid \text{data} \sim \mathrm{DP}\Big(a_0 F_0 + \sum_{u} \delta_{u}\Big),

approximated by Dirichlet weights: 1 on each rated item (or on each cluster, shared by its
items) and :math:`a_0 / P` on each of :math:`P` profiles of :math:`F_0` (all of them, or
:data:`MAX_PROFILES` drawn from it).  Each draw of the weights gives the coefficient of the
weighted items, which stays inside its range by construction; the interval is the draws'
expanded percentiles (:func:`expanded_percentile`).

Why the prior mass
------------------
On 30 items where one category is rare, the rare category may not appear, or appear only
where the raters agree: Gwet's linearised standard error is then 0 or tiny, and its t
interval (and the bootstrap's) is a point at a coefficient of 1 that the population does
not have.  The :math:`a_0 = 2` items' worth of prior mass on disagreeing profiles is the
smallest that covered at 95% on the designs measured (two and three raters, prevalence 0.05
and 0.5, 30 and 100 items: BENCHMARKS.md); at 200 items it moves the interval by less than
its Monte-Carlo error.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
from scipy import stats

__all__ = [
    "MAX_PROFILES",
    "PRIOR_ITEMS",
    "draw_profiles",
    "expanded_percentile",
    "pair_profiles",
    "prior_profiles",
    "weights",
]

#: the prior's mass, in items
PRIOR_ITEMS = 2.0
#: above this many possible profiles, as many drawn uniformly from them
MAX_PROFILES = 500


def prior_profiles(q: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """The base measure's profiles: count vectors of ``m`` ratings over ``q`` categories,
    shape ``(P, q)``, every unordered profile once (or :data:`MAX_PROFILES` of them drawn
    uniformly, by stars and bars, when there are more).
    """
    if comb(m + q - 1, q - 1) <= MAX_PROFILES:
        draws = list(itertools.combinations_with_replacement(range(q), m))
        return np.stack([np.bincount(d, minlength=q) for d in draws]).astype(float)
    return draw_profiles(q, m, MAX_PROFILES, rng)


def draw_profiles(q: int, m: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` profiles of ``m`` ratings over ``q`` categories drawn uniformly from every
    unordered profile (stars and bars: ``q - 1`` bars among ``m + q - 1`` places).
    """
    bars = np.sort(rng.random((size, m + q - 1)).argsort(axis=1)[:, : q - 1], axis=1)
    edges = np.concatenate([np.full((size, 1), -1), bars, np.full((size, 1), m + q - 1)], axis=1)
    return (np.diff(edges, axis=1) - 1).astype(float)


def pair_profiles(q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The base measure for two raters' ordered pairs: every unordered pair equally likely,
    so an agreeing pair ``(k, k)`` has twice the mass of each order of a disagreeing one.
    Returns the first rater's codes, the second's and the relative masses.
    """
    x, y = np.divmod(np.arange(q * q), q)
    mass = np.where(x == y, 1.0, 0.5)
    return x, y, mass / mass.sum()


def weights(
    groups: np.ndarray,
    prior_mass: np.ndarray,
    draws: int,
    rng: np.random.Generator,
    prior_items: float = PRIOR_ITEMS,
) -> np.ndarray:
    """Dirichlet weights of the rated items (``groups``: each item's cluster code, or its
    own index) followed by the prior's profiles (relative ``prior_mass``, summing to 1):
    shape ``(draws, items + profiles)``, each row summing to the number of items.
    """
    units = int(groups.max()) + 1
    shape = np.concatenate([np.ones(units), prior_items * prior_mass])
    g = rng.standard_gamma(shape, size=(draws, shape.size))
    w = np.concatenate([g[:, :units][:, groups], g[:, units:]], axis=1)
    return w * (groups.size / w.sum(axis=1, keepdims=True))


def expanded_percentile(values: np.ndarray, alpha: float, units: int) -> tuple[float, float]:
    r"""The expanded percentile interval of resampled coefficients over ``units`` items or
    clusters (NaN with fewer than 2 finite values).

    A resampling's spread is the plug-in one (a factor :math:`(G - 1)/G` on the variance)
    and its quantiles normal where the analytic interval's are t (on 20 clusters a plain
    percentile interval covered 0.90 at 95%).  The percentiles are taken at
    :math:`\alpha'/2` and :math:`1 - \alpha'/2` with :math:`\Phi^{-1}(1 - \alpha'/2) =
    \sqrt{G/(G-1)}\, t_{G-1, 1-\alpha/2}` (Hesterberg's expanded percentile interval),
    which keeps the draws' skew.
    """
    ok = values[np.isfinite(values)]
    if ok.size < 2:
        return np.nan, np.nan
    if units >= 2:
        z = np.sqrt(units / (units - 1)) * stats.t.ppf(1 - alpha / 2, units - 1)
        alpha = float(2 * stats.norm.sf(z))
    lo, hi = np.percentile(ok, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)
