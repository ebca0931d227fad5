r"""The change scan: at every look of an unending run, whether a rate measured period by
period moved after the reference periods, by two-sided z-tests of the mean since a
candidate period against the mean before it, the levels spent so that over every look and
candidate they sum to the scan's level (a union bound).

Used by the anchor design (:mod:`~judgebayes.inference.monitor.anchors`, where a
contrast's variance comes from the anchors judged again) and by the all-channel drift
alarm (:mod:`~judgebayes.inference.monitor.channels`, from each period's own variance).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

__all__ = ["candidates", "look_level", "scan"]


def look_level(k: np.ndarray | int, alpha: float) -> np.ndarray:
    r"""The level of the ``k``-th look (1, 2, ...): :math:`\alpha \cdot 6 / (\pi^2
    k^2)`; over every look they sum to :math:`\alpha`.
    """
    k = np.asarray(k, dtype=float)
    return alpha * 6.0 / (math.pi**2 * k**2)


def candidates(reference: int, t: int) -> np.ndarray:
    r"""The periods a change may have started at, tested at look ``t``: the last
    period, the last 2, 4, 8... and the first after the reference (about
    :math:`\log_2 k` of the :math:`k` since the reference, so a recent change is not
    diluted by the periods before it and the look's level is split few ways).
    """
    back = 2 ** np.arange(int(math.log2(t - reference + 1)) + 1)
    return np.unique(np.concatenate([[reference], t - back + 1]))


def _contrasts(usable, reference: int, alpha: float):
    """Every (look, candidate) contrast of the scan: the look of each, its weights over the
    periods (after the candidate: 1 / their number; before it: -1 / theirs) and its level.
    """
    P = usable.size
    ts = np.flatnonzero(usable[reference:]) + reference
    pairs = [(t, c) for t in ts for c in candidates(reference, int(t))]
    if not pairs:
        return np.zeros(0, dtype=int), np.zeros((0, P)), np.zeros(0)
    t, c = np.asarray(pairs).T
    s = np.arange(P)
    after = usable & (s >= c[:, None]) & (s <= t[:, None])
    before = usable & (s < c[:, None])
    na, nb = after.sum(1), before.sum(1)
    keep = (na > 0) & (nb > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        W = after / na[:, None] - before / nb[:, None]
    k = t - reference + 1
    n_cand = np.array([candidates(reference, int(x)).size for x in t])
    level = look_level(k, alpha) / n_cand
    return t[keep], W[keep], level[keep]


def scan(
    rate: np.ndarray,
    verdicts: np.ndarray,
    loading: np.ndarray,
    own_var: np.ndarray,
    usable: np.ndarray,
    reference: int,
    alpha: float,
    *,
    moving: bool = False,
) -> dict[str, np.ndarray]:
    r"""The change scan of one rate (module docstring): per look, the candidate change
    with the strongest evidence.

    Parameters
    ----------
    rate : array (P,)
        The rate per period.
    verdicts : array (A, P)
        Each anchor's verdict (or hit) per period (0 where not judged).
    loading : array (A, P)
        The rate's derivative in that verdict (0 where not judged): :math:`1 / n_s` for a
        share, times :math:`\partial\theta / \partial se` or :math:`\partial\theta /
        \partial fp` for the corrected rate.
    own_var : array (P,) or (P, P)
        Variance of each period's rate from outside the anchors (0 for the judge's rates);
        2-D: row ``t`` is the one read at look ``t`` (a variance under "no change" read
        on the periods up to the look).
    usable : bool array (P,)
        Periods whose rate is defined.
    reference, alpha
        The periods before any change; the scan's level over the whole run.
    moving : bool
        The anchors' rates may move under the null (the system's test, where the judge
        may have changed): the variance is then the larger of the two below.

    Returns
    -------
    dict
        ``change`` (:math:`D_{c,t}` of the strongest candidate), ``se``, ``evidence`` (the
        test's level over its p-value: 1 = alarm) and ``alarm`` (sounded by this period).

    Notes
    -----
    Under "no change" each anchor's verdicts are independent draws at its own rate, so a
    contrast's variance is :math:`\sum_a p_a (1 - p_a) \sum_s (w_s \ell_{a,s})^2`; it
    is read at each anchor's own mean verdict over the contrast's periods (times
    :math:`m_a / (m_a - 1)`), which does not collapse when a period's anchors are all
    right (the Wald variance there is 0), and an anchor the judge always gets right adds
    nothing.  With ``moving`` the anchors' own means may differ between the periods,
    and the variance is at least the paired spread :math:`\sum_a (\sum_s w_s
    \ell_{a,s} (f_{a,s} - \bar f_a))^2`, which carries the anchors' sampling error in
    a change of the judge.
    """
    P = rate.size
    out = {k: np.full(P, np.nan) for k in ("change", "se", "evidence")}
    looks, W, level = _contrasts(usable, reference, alpha)
    if looks.size:
        ov = own_var[looks] if own_var.ndim == 2 else own_var[None, :]
        d = W @ np.where(usable, rate, 0.0)
        on = (W != 0).astype(float)  # (K, P): the contrast's periods
        present = (loading != 0).astype(float)
        m = present @ on.T  # (A, K): each anchor's verdicts in each contrast
        with np.errstate(invalid="ignore", divide="ignore"):
            own = np.nan_to_num((verdicts @ on.T) / m)
            spread = np.where(m > 1, own * (1.0 - own) * m / (m - 1.0), 0.0)
        var = np.sum(spread * ((loading**2) @ (W**2).T), axis=0)
        if moving:
            paired = (verdicts * loading) @ W.T - own * (loading @ W.T)
            var = np.maximum(var, np.sum(paired**2, axis=0))
        se = np.sqrt(var + np.sum(W**2 * ov, axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(se > 0, 2.0 * special.ndtr(-np.abs(d) / se), (d == 0).astype(float))
            ratio = np.where(p > 0, level / p, np.inf)
        # per look, the candidate with the strongest evidence
        order = np.lexsort((-ratio, looks))
        first = order[np.r_[True, looks[order][1:] != looks[order][:-1]]]
        t = looks[first]
        out["evidence"][t], out["change"][t], out["se"][t] = ratio[first], d[first], se[first]
    out["alarm"] = np.maximum.accumulate(np.nan_to_num(out["evidence"], nan=0.0) >= 1.0)
    return out
