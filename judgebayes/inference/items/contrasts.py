"""Contrasts between systems judged on the same items: the paired difference (with or
without jointly labelled items) and the contrast tables of an estimate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import InputError
from judgebayes.inference.items.estimate import NO_JOINT_LABEL, check_estimand, nan_to_zero

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.inference.items.estimate import ItemEstimate


def paired_difference(data: ItemData, a: int, b: int, estimand: str = "items") -> dict:
    r"""Double sampling of the per-item difference of systems ``a`` and ``b`` (``item=``).

    Over the items both systems answered, the verdict categories of the two rows (and the
    stratum of ``a``'s row) form joint categories :math:`c`, so the correction uses what
    the two verdicts say together.  Within each joint category, each system's human rate
    :math:`m_{s,c}` is the mean of its labelled rows there, whether or not the other
    system's row of the same item is labelled: a label that only one system of a prompt has
    counts too.  Process: :math:`\hat\delta = \sum_c (n_c / N)(m_{a,c} - m_{b,c})` with
    influence

    .. math::
        e_k = \frac{m_{a,c_k} - m_{b,c_k} - \hat\delta}{N}
          + \frac{n_c}{N}\Big(\frac{\mathbb 1_{a,k}(h_{a,k} - m_{a,c})}{l_{a,c}}
          - \frac{\mathbb 1_{b,k}(h_{b,k} - m_{b,c})}{l_{b,c}}\Big),

    one term per item, so a prompt labelled on both systems carries the two labels'
    covariance (with every label on both rows this is the double sampling of
    :math:`d_k = h_{a,k} - h_{b,k}`).  Items: each row's own label where it has one,
    :math:`m_{s,c}` where not, :math:`n_c` replaced by the category's unlabelled rows of
    each system, and the unlabelled rows' own variance added (the labelled pairs' variance
    of :math:`d` where both rows are unlabelled, else the system's Bernoulli variance).  A
    system with no labelled row in a joint category is partially identified there: its rate
    lies in [0, 1] and the interval is widened by half the category's share (``slack``).
    Each system's variance in a category is floored at that of its smoothed rate
    :math:`(H + 1)/(l + 2)`, so that a few labels that agree do not report zero width.

    Returns ``{"estimate", "se", "slack", "n_paired", "n_labelled", "n_one_sided"}``:
    ``n_labelled`` prompts are labelled on both systems, ``n_one_sided`` on one.
    """
    check_estimand(estimand)
    if data.item is None or data.cluster is not None or data.weights is not None:
        raise InputError(
            "a paired difference needs item= and no cluster= or weights=",
            field="item",
            value=data.columns.get("item"),
        )
    k = int(data.item.max()) + 1
    n_cat = data.n_judges + 1

    def by_item(s, x, fill=-1.0):
        out = np.full(k, fill, float)
        m = data.system == s
        out[data.item[m]] = x[m]
        return out

    ca, cb = by_item(a, data.category.astype(float)), by_item(b, data.category.astype(float))
    both = (ca >= 0) & (cb >= 0)
    human = np.where(data.labelled, data.human, np.nan)
    st = by_item(a, data.stratum.astype(float))[both].astype(np.int64)
    cat = (st * n_cat + ca[both].astype(np.int64)) * n_cat + cb[both].astype(np.int64)
    size = len(data.strata) * n_cat * n_cat
    n = int(both.sum())
    if n == 0:  # no prompt answered by both: nothing to pair (the caller says so)
        nan = float("nan")
        return dict(estimate=nan, se=nan, slack=nan, n_paired=0, n_labelled=0, n_one_sided=0)
    n_c = np.bincount(cat, minlength=size).astype(float)
    (la, ha, ma, ra, va, sa, l_a, ca_), (lb, hb, mb, rb, vb, sb, l_b, cb_) = (
        _side(by_item(s, human, np.nan)[both], cat, size, n_c, estimand) for s in (a, b)
    )
    # the influence of each item (one term: a prompt labelled on both carries their covariance)
    e = ca_[cat] * ra - cb_[cat] * rb
    # the floor, per category: the labelled pairs' part at the variance 1/(l + 2) of a
    # smoothed difference, each system's one-sided labels at its smoothed Bernoulli variance

    def sq(mask):
        return np.bincount(cat[mask], weights=e[mask] ** 2, minlength=size)

    jl = la & lb
    lj = np.bincount(cat[jl], minlength=size).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = nan_to_zero(0.5 * (ca_ / l_a + cb_ / l_b))
        gaps = [
            lj * unit**2 / (lj + 2) - sq(jl),
            nan_to_zero((l_a - lj) * (ca_ / l_a) ** 2) * sa - sq(la & ~lb),
            nan_to_zero((l_b - lj) * (cb_ / l_b) ** 2) * sb - sq(lb & ~la),
        ]
    floor = float(sum(np.sum(np.maximum(g, 0.0)) for g in gaps))
    if estimand == "process":
        est = float(np.sum(n_c * (ma - mb)) / n)
        e = e + ((ma - mb)[cat] - est) / n
        pred = 0.0
    else:
        est = float(np.sum(np.where(la, ha, ma[cat]) - np.where(lb, hb, mb[cat])) / n)
        # the unlabelled rows' own variance: the labelled pairs' variance of d where both
        # rows of an item are unlabelled (d's, floored like a Bernoulli at 1/(l + 2)), else
        # each unlabelled row's Bernoulli variance
        d = np.where(jl, ha - hb, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            dm = np.bincount(cat[jl], weights=d[jl], minlength=size) / lj
            dv = np.bincount(cat[jl], weights=(d[jl] - dm[cat[jl]]) ** 2, minlength=size) / lj
        v_d = np.where(lj > 0, np.maximum(nan_to_zero(dv), 1.0 / (lj + 2)), va + vb)
        pred = (
            np.sum(np.where(~la & ~lb, v_d[cat], 0.0))
            + np.sum(np.where(~la & lb, va[cat], 0.0))
            + np.sum(np.where(la & ~lb, vb[cat], 0.0))
        ) / n**2
    var = float(np.sum(e**2) + floor + pred)
    slack = 0.5 * (np.sum(n_c[(n_c > 0) & (l_a == 0)]) + np.sum(n_c[(n_c > 0) & (l_b == 0)]))
    return {
        "estimate": est,
        "se": float(np.sqrt(var)),
        "slack": float(slack / n),
        "n_paired": n,
        "n_labelled": int(np.sum(la & lb)),
        "n_one_sided": int(np.sum(la ^ lb)),
    }


def _side(h: np.ndarray, cat: np.ndarray, size: int, n_c: np.ndarray, estimand: str):
    """One system's part of a paired difference, from its labels ``h`` on the paired items
    (NaN: unlabelled) and their categories ``cat``: labelled mask, labels, each category's
    rate, residual / labels, floored and smoothed variances, labels and weight per category.
    """
    n = cat.size
    lab = ~np.isnan(h)
    h = np.where(lab, h, 0.0)
    l_c = np.bincount(cat[lab], minlength=size).astype(float)
    h_c = np.bincount(cat[lab], weights=h[lab], minlength=size)
    l1 = np.maximum(l_c, 1)
    m_c = np.where(l_c > 0, h_c / l1, 0.5)  # no label: the midpoint of [0, 1]
    r = np.where(lab, h - m_c[cat], 0.0)
    emp = np.bincount(cat, weights=r**2, minlength=size) / l1
    sm = (h_c + 1) / (l_c + 2)
    smooth = sm * (1 - sm)
    v_c = np.where(l_c > 0, np.maximum(emp, smooth), 0.0)  # floored variance
    coef = n_c / n if estimand == "process" else (n_c - l_c) / n
    return lab, h, m_c, r / l1[cat], v_c, smooth, l_c, coef


def _contrast_table(data: ItemData, est: ItemEstimate, paired) -> dict:
    """The per-system estimates (the independent contrasts follow from them) and, with
    ``item=``, the paired ones: ``paired(a, b)`` -> (difference, se, slack, n), or a string
    saying why the pair's contrast stays independent.  Lists, so that a fit's info keeps
    them as JSON.
    """
    ns = len(data.systems)
    table = {
        "systems": list(data.systems),
        "estimate": np.asarray(est.estimate, float).tolist(),
        "se": np.asarray(est.se, float).tolist(),
        "slack": (np.zeros(ns) if est.slack is None else est.slack).tolist(),
    }
    if data.item is not None:
        rows, alone = [], []
        for a in range(ns):
            for b in range(a + 1, ns):
                r = paired(a, b)
                if isinstance(r, str):
                    alone.append([a, b, r])
                elif r is not None:
                    rows.append([a, b, *r])
        table["paired"] = rows  # [a, b, difference a - b, se, slack, n paired]
        table["independent"] = alone  # [a, b, why the pair's contrast is not paired]
    return table


def labels_only_contrasts(data: ItemData, est: ItemEstimate) -> dict:
    r"""The labelled items' difference of two systems (the baseline without a judge).

    With ``item=``: the prompts labelled on both systems, paired (McNemar's setting), with
    Agresti and Min's interval (half a count added to each cell of the 2 x 2 table of the
    two labels): :math:`\tilde d = (\tilde n_{10} - \tilde n_{01})/\tilde n`,
    :math:`\mathrm{se}^2 = (\tilde p_{10} + \tilde p_{01} - \tilde d^2)/\tilde n`.  Without:
    the two systems' labelled means, independent.  Same layout as :func:`contrasts_items`.
    """
    h = None
    if data.item is not None:
        h = np.full((len(data.systems), int(data.item.max()) + 1), np.nan)
        m = data.labelled
        h[data.system[m], data.item[m]] = data.human[m]

    def paired(a, b):
        both = ~np.isnan(h[a]) & ~np.isnan(h[b])
        if not both.any():
            return NO_JOINT_LABEL
        n10 = np.sum((h[a] == 1) & (h[b] == 0) & both) + 0.5
        n01 = np.sum((h[a] == 0) & (h[b] == 1) & both) + 0.5
        n = both.sum() + 2.0
        d = (n10 - n01) / n
        return float(d), float(np.sqrt(max((n10 + n01) / n - d**2, 0.0) / n)), 0.0, int(both.sum())

    return _contrast_table(data, est, paired)


def contrasts_items(data: ItemData, est: ItemEstimate, estimand: str = "items") -> dict:
    r"""Every pair of systems' difference: paired by item (:func:`paired_difference`, over
    the items both answered) where ``item=`` was given, else the difference of the two
    systems' :func:`double_sampling_items` estimates with :math:`\mathrm{se}_a^2 +
    \mathrm{se}_b^2` (independent systems).

    Returns ``{"systems", "estimate", "se", "slack"[, "paired"]}``: the per-system
    estimates, and with ``item=`` one row ``[a, b, difference, se, slack, n]`` per pair
    (:func:`contrast_matrices` builds the matrices).
    """
    if data.cluster is not None:
        raise InputError(
            "contrasts of the closed form are paired by item or independent; with cluster= "
            "fit 'nuts' (hierarchical) and compare its draws",
            field="cluster",
            value=data.columns.get("cluster"),
        )

    def paired(a, b):
        if data.weights is not None:
            return "the paired difference takes no design weights"
        r = paired_difference(data, a, b, estimand)
        if r["n_paired"] == 0:
            return "no prompt answered by both"
        if r["n_labelled"] == 0:
            return NO_JOINT_LABEL
        return r["estimate"], r["se"], r["slack"], r["n_paired"]

    return _contrast_table(data, est, paired)


def contrast_matrices(table: dict) -> tuple[np.ndarray, ...]:
    """(difference, se, slack, n paired) matrices indexed [a, b] from a contrast table:
    independent from the per-system estimates, overlaid by the paired rows.
    """
    est, se, sl = (np.asarray(table[k], float) for k in ("estimate", "se", "slack"))
    d = est[:, None] - est[None, :]
    s = np.sqrt(se[:, None] ** 2 + se[None, :] ** 2)
    slack = sl[:, None] + sl[None, :]
    n = np.zeros(d.shape, dtype=np.int64)
    for a, b, diff, se_ab, sl_ab, n_ab in table.get("paired", []):
        a, b = int(a), int(b)
        d[a, b], d[b, a] = diff, -diff
        s[a, b] = s[b, a] = se_ab
        slack[a, b] = slack[b, a] = sl_ab
        n[a, b] = n[b, a] = int(n_ab)
    return d, s, slack, n
