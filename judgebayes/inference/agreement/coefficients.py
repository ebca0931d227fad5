r"""Chance-corrected agreement between raters, with standard errors and bootstrap replicates.

Every coefficient is computed from the item x category count matrix ``counts`` (how many
raters put item ``i`` in category ``k``) and a ``q x q`` agreement-weight matrix ``W`` (1 on
the diagonal, partial credit off it for ordered levels).  Each function takes optional item
weights ``c`` of shape ``(B, n)``: ``c`` = ones gives the estimate, multinomial counts give
bootstrap replicates, all in one vectorised pass.

Notation (Gwet 2014, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 2-5): ``r_i`` raters
rated item ``i``; among the items with ``r_i >= 2``

.. math::

    p_{a|i} = \frac{\sum_k n_{ik} (\sum_l w_{kl} n_{il} - 1)}{r_i (r_i - 1)}, \qquad
    p_a = \frac{1}{n_2} \sum_{i: r_i \ge 2} p_{a|i}, \qquad
    \pi_k = \frac{1}{n} \sum_i \frac{n_{ik}}{r_i},

and a coefficient is :math:`(p_a - p_e) / (1 - p_e)` with the chance agreement

- Fleiss (generalised, weighted): :math:`p_e = \sum_{kl} w_{kl} \pi_k \pi_l`;
- Gwet AC1 / AC2: :math:`p_e = \frac{\sum_{kl} w_{kl}}{q (q - 1)} \sum_k \pi_k (1 - \pi_k)`;
- Brennan-Prediger: :math:`p_e = \sum_{kl} w_{kl} / q^2`;
- Krippendorff's alpha: Gwet's form of :math:`1 - D_o / D_e` over the items with two or more
  ratings, with :math:`\bar r` their mean number of ratings,
  :math:`p_a = (1 - \epsilon) p_a' + \epsilon`, :math:`\epsilon = 1 / \sum_i r_i`,
  :math:`p_a' = \frac{1}{n} \sum_i
  \frac{\sum_k n_{ik}(\sum_l w_{kl} n_{il} - 1)}{\bar r (r_i - 1)}`,
  :math:`\pi_k = \frac{1}{n} \sum_i n_{ik} / \bar r`; its weights are
  :math:`1 - d_{kl} / \max d` with Krippendorff's distance for the level (the ordinal one
  uses the pairable frequencies).

Standard errors are Gwet's linearisation: each item's term :math:`x_i` (its contribution to
:math:`p_a` and to :math:`p_e`) and

.. math::

    \widehat{\mathrm{Var}} = \frac{1 - f}{n (n - 1)} \sum_i (x_i - \hat\kappa)^2,

with :math:`f = n / N` for a finite population of ``N`` items; with clusters the terms are
summed within each cluster first (:math:`G / (G - 1) \sum_g (\sum_{i \in g} x_i -
n_g \hat\kappa)^2 / n^2`).  Cohen's (weighted) kappa for two raters uses the large-sample
variance of Fleiss, Cohen and Everitt (1969), written as the influence function of each
rated pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.data.agreement import rating_counts

__all__ = [
    "COEFFICIENTS",
    "CoefficientEstimate",
    "category_weights",
    "cohen",
    "fleiss_family",
    "krippendorff",
    "krippendorff_weights",
    "linearized_variance",
    "rating_counts",
]

# name -> what the table calls it
COEFFICIENTS = {
    "percent": "percent agreement",
    "cohen": "Cohen's kappa",
    "fleiss": "Fleiss' kappa",
    "gwet": "Gwet's AC1",
    "brennan_prediger": "Brennan-Prediger",
    "krippendorff": "Krippendorff's alpha",
}


@dataclass(frozen=True)
class CoefficientEstimate:
    r"""One coefficient on one set of ratings.

    Attributes
    ----------
    estimate : float
    pa, pe : float
        Observed and chance agreement.
    terms : ndarray
        Each item's linearised term :math:`x_i` (NaN-free, one per item used); the variance
        is built from them by :func:`linearized_variance`.
    center : float
        What the terms are centred on (the estimate; Krippendorff's :math:`\alpha'`).
    used : ndarray of bool
        Which of the input items the terms belong to.
    """

    estimate: float
    pa: float
    pe: float
    terms: np.ndarray
    center: float
    used: np.ndarray


def category_weights(values: np.ndarray, level: str) -> np.ndarray:
    r"""Agreement weights of the kappa family for sorted category ``values``.

    ``nominal``: identity; ``ordinal``: Gwet's rank weights
    :math:`1 - \binom{|k-l|+1}{2} / \max`; ``interval``: quadratic
    :math:`1 - (x_k - x_l)^2 / (x_{max} - x_{min})^2`; ``ratio``:
    :math:`1 - ((x_k - x_l)/(x_k + x_l))^2 / \max`.
    """
    q = len(values)
    if level == "nominal" or q < 2:
        return np.eye(q)
    if level == "ordinal":
        k = np.arange(q)
        m = np.abs(k[:, None] - k[None, :]) + 1.0
        d = m * (m - 1) / 2
    else:
        x = np.asarray(values, float)
        d = _distance(x, level)
    return 1.0 - d / d.max()


def _distance(x: np.ndarray, level: str) -> np.ndarray:
    if level == "interval":
        return (x[:, None] - x[None, :]) ** 2
    s = x[:, None] + x[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s != 0, ((x[:, None] - x[None, :]) / np.where(s != 0, s, 1)) ** 2, 0.0)


def krippendorff_weights(values: np.ndarray, level: str, pairable: np.ndarray) -> np.ndarray:
    r"""Krippendorff's distances as agreement weights :math:`1 - d_{kl} / \max d`.

    ``pairable`` holds each category's pairable count (its ratings on items with two or
    more ratings), shape ``(q,)`` or ``(B, q)`` for bootstrap replicates; only the ordinal
    distance :math:`(\sum_{g=k}^{l} n_g - (n_k + n_l)/2)^2` uses it.
    """
    q = len(values)
    if level != "ordinal" or q < 2:
        return category_weights(values, level if level != "ordinal" else "nominal")
    nv = np.asarray(pairable, float)
    cum = np.cumsum(nv, axis=-1)
    lo = np.minimum.outer(np.arange(q), np.arange(q))
    hi = np.maximum.outer(np.arange(q), np.arange(q))
    below = np.where(lo > 0, np.take(cum, lo - 1, axis=-1), 0.0)
    between = np.take(cum, hi, axis=-1) - below
    d = (between - (np.take(nv, lo, axis=-1) + np.take(nv, hi, axis=-1)) / 2) ** 2
    dmax = d.max(axis=(-2, -1), keepdims=True)
    return 1.0 - d / np.where(dmax > 0, dmax, 1.0)


def _as_weights(c: np.ndarray | None, n: int) -> np.ndarray:
    return np.ones((1, n)) if c is None else np.atleast_2d(np.asarray(c, float))


def _quadratic(counts: np.ndarray, W: np.ndarray) -> np.ndarray:
    r""":math:`\sum_k n_{ik} \sum_l w_{kl} n_{il}` per item: (n,) or (B, n) for stacked W."""
    if W.ndim == 2:
        return np.einsum("iq,qr,ir->i", counts, W, counts)
    return np.einsum("iq,bqr,ir->bi", counts, W, counts)


def fleiss_family(
    counts: np.ndarray, W: np.ndarray, chance: str, c: np.ndarray | None = None
) -> np.ndarray:
    """Fleiss' kappa, Gwet's AC1/AC2, Brennan-Prediger or percent agreement, for each row of
    item weights ``c`` (shape ``(B, n)``; ``None`` = every item once). Returns ``(B,)``.
    """
    parts = _item_parts(counts, W)
    pa, pe = _fleiss_parts(parts, W, chance, _as_weights(c, counts.shape[0]))
    if chance == "percent":
        return pa
    with np.errstate(invalid="ignore", divide="ignore"):
        return (pa - pe) / _room(pe)


def _item_parts(counts: np.ndarray, W: np.ndarray):
    """Per item: ratings ``r``, two or more (``ok``), observed agreement ``pa_i`` (0 below
    two ratings) and category shares ``prop``.
    """
    r = counts.sum(axis=1)
    ok = r >= 2
    pa_i = np.where(ok, (_quadratic(counts, W) - r) / np.where(ok, r * (r - 1), 1), 0.0)
    prop = counts / np.where(r > 0, r, 1)[:, None]
    return r, ok, pa_i, prop


def _fleiss_parts(parts, W, chance, c):
    """Observed and chance agreement, (B,) each, from :func:`_item_parts`."""
    _, ok, pa_i, prop = parts
    q = prop.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = (c @ pa_i) / (c @ ok.astype(float))
        p = (c @ prop) / c.sum(axis=1, keepdims=True)
    if chance == "fleiss":
        pe = np.einsum("bq,qr,br->b", p, W, p)
    elif chance == "gwet":
        pe = W.sum() / (q * (q - 1)) * (p * (1 - p)).sum(axis=1) if q > 1 else np.ones(len(p))
    elif chance == "brennan_prediger":
        pe = np.full(len(p), W.sum() / q**2)
    else:
        pe = np.zeros(len(p))
    return pa, pe


def _room(pe):
    """1 - chance agreement, NaN where chance agreement is 1 (every rating one category:
    the chance-corrected coefficients are undefined, not a ratio of rounding errors).
    """
    room = 1 - pe
    return np.where(np.abs(room) < 1e-12, np.nan, room)


def fleiss_terms(counts: np.ndarray, W: np.ndarray, chance: str) -> CoefficientEstimate:
    """The estimate and Gwet's linearised item terms for :func:`fleiss_family`."""
    n, q = counts.shape
    parts = _item_parts(counts, W)
    # numpy scalars: every rating one category makes pe 1 and the kappas NaN, not an error
    pa, pe = (np.float64(v[0]) for v in _fleiss_parts(parts, W, chance, np.ones((1, n))))
    _, ok, pa_i, prop = parts
    n2 = ok.sum()
    if chance == "percent":
        terms = n / n2 * pa_i
        return CoefficientEstimate(pa, pa, 0.0, terms, pa, np.ones(n, bool))
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (pa - pe) / _room(pe)
        k_i = n / n2 * (pa_i - pe * ok) / _room(pe)
        p = prop.mean(axis=0)
        if chance == "fleiss":
            pe_i = prop @ ((W @ p + W.T @ p) / 2)
        elif chance == "gwet":
            pe_i = W.sum() / (q * (q - 1)) * (prop @ (1 - p))
        else:
            pe_i = np.full(n, pe)
        terms = k_i - 2 * (1 - kappa) * (pe_i - pe) / _room(pe)
    return CoefficientEstimate(float(kappa), pa, pe, terms, float(kappa), np.ones(n, bool))


def krippendorff(
    counts: np.ndarray, values: np.ndarray, level: str, c: np.ndarray | None = None
) -> np.ndarray:
    """Krippendorff's alpha for each row of item weights ``c``; returns ``(B,)``."""
    ok = counts.sum(axis=1) >= 2
    counts = counts[ok]
    c = _as_weights(c, len(ok))[:, ok]
    pa, _, pe = _alpha_parts(counts, values, level, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (pa - pe) / _room(pe)


def _alpha_parts(counts, values, level, c):
    r = counts.sum(axis=1)
    W = krippendorff_weights(values, level, c @ counts)
    if W.ndim == 3 and W.shape[0] == 1:
        W = W[0]
    csum = c.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rbar = (c @ r) / csum
        eps = 1 / (c @ r)
        own = (_quadratic(counts, W) - r) / (r - 1)
        pa_prime = (own @ c.T if own.ndim == 1 else (c * own).sum(axis=1)) / rbar / csum
        pa = (1 - eps) * pa_prime + eps
        p = (c @ counts) / (rbar * csum)[:, None]
    pe = np.einsum("bq,qr,br->b", p, W, p) if W.ndim == 2 else np.einsum("bq,bqr,br->b", p, W, p)
    return pa, pa_prime, pe


def krippendorff_terms(counts: np.ndarray, values: np.ndarray, level: str) -> CoefficientEstimate:
    """Krippendorff's alpha and Gwet's linearised item terms (items with two or more ratings)."""
    used = counts.sum(axis=1) >= 2
    k = counts[used]
    n = k.shape[0]
    pa, pa_prime, pe = (np.float64(v[0]) for v in _alpha_parts(k, values, level, np.ones((1, n))))
    W = krippendorff_weights(values, level, k.sum(axis=0))
    r = k.sum(axis=1)
    rbar = r.mean()
    p = k.sum(axis=0) / rbar / n
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = (pa - pe) / _room(pe)
        alpha_prime = (pa_prime - pe) / _room(pe)
        pa_i = (_quadratic(k, W) - r) / (rbar * (r - 1)) - pa * (r - rbar) / rbar
        a_i = (pa_i - pe) / _room(pe)
        pe_i = k @ ((W @ p + W.T @ p) / 2) / rbar - pe * (r - rbar) / rbar
        terms = a_i - 2 * (1 - alpha_prime) * (pe_i - pe) / _room(pe)
    return CoefficientEstimate(float(alpha), pa, pe, terms, float(alpha_prime), used)


def cohen(x: np.ndarray, y: np.ndarray, W: np.ndarray, c: np.ndarray | None = None) -> np.ndarray:
    """Cohen's (weighted) kappa of two raters' category codes on the items both rated, for
    each row of item weights ``c``; returns ``(B,)``.
    """
    q = W.shape[0]
    both = (x >= 0) & (y >= 0)
    c = _as_weights(c, len(x))[:, both]
    table = np.einsum("bi,iq,ir->bqr", c, np.eye(q)[x[both]], np.eye(q)[y[both]])
    probs = table / table.sum(axis=(1, 2), keepdims=True)
    row, col = probs.sum(axis=2), probs.sum(axis=1)
    po = (probs * W).sum(axis=(1, 2))
    pe = np.einsum("bq,qr,br->b", row, W, col)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (po - pe) / _room(pe)


def cohen_terms(x: np.ndarray, y: np.ndarray, W: np.ndarray) -> CoefficientEstimate:
    r"""Cohen's kappa and each rated pair's influence term.

    The terms :math:`\psi_i` satisfy :math:`\sum_i \psi_i^2 / n^2` = the Fleiss-Cohen-
    Everitt variance (statsmodels' ``var_kappa``); they are returned as
    :math:`x_i = \hat\kappa + \psi_i \sqrt{(n-1)/n}` so that :func:`linearized_variance`
    (which divides by :math:`n (n-1)`) reproduces it.
    """
    q = W.shape[0]
    both = (x >= 0) & (y >= 0)
    xi, yi = x[both], y[both]
    n = len(xi)
    probs = np.zeros((q, q))
    np.add.at(probs, (xi, yi), 1.0 / n)
    row, col = probs.sum(axis=1), probs.sum(axis=0)
    po = np.float64((probs * W).sum())
    pe = np.float64(row @ W @ col)  # 1 when both raters use one category: kappa NaN
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (po - pe) / _room(pe)
        w_row = W @ col  # for a first rating k: sum_l w_kl col_l
        w_col = row @ W  # for a second rating l: sum_k row_k w_kl
        a = W[xi, yi] - (w_row[xi] + w_col[yi]) * (1 - kappa)
        psi = (a - (kappa - pe * (1 - kappa))) / _room(pe)
    terms = kappa + psi * np.sqrt((n - 1) / n)
    return CoefficientEstimate(float(kappa), po, pe, terms, float(kappa), both)


def linearized_variance(
    est: CoefficientEstimate,
    clusters: np.ndarray | None = None,
    population: float = np.inf,
) -> tuple[float, int]:
    """The variance of a coefficient from its item terms, and its degrees of freedom.

    ``clusters`` (integer codes over the input items) sums the terms within each cluster
    first; ``population`` is the number of items the rated ones were drawn from (finite-
    population correction :math:`1 - n/N`).
    """
    dev = est.terms - est.center
    n = len(dev)
    fpc = 1 - n / population
    if clusters is None:
        return float(fpc * (dev @ dev) / (n * (n - 1))), n - 1
    g = np.unique(clusters[est.used], return_inverse=True)[1]
    totals = np.bincount(g, weights=dev)
    G = len(totals)
    return float(fpc * G / (G - 1) * (totals @ totals) / n**2), G - 1
