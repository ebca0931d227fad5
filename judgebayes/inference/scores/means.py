r"""The augmented mean of each system's human score: the calibrated scores of every row,
corrected by the labelled rows' residuals; by period, and paired between systems.

The augmented mean
------------------
Per system :math:`s` with :math:`N` rows, :math:`n` labelled at random,
:math:`e_i = h_i - \hat f(s_i)` the out-of-fold residuals and :math:`\bar e` their mean,

.. math::

    \hat\mu = \frac1N\Big[\sum_{\text{labelled}} h_i + \sum_{\text{unlabelled}}
    \hat f(s_j) + (N - n)\,\bar e\Big]
    = \frac1N \sum_{\text{all}} \hat f(s_j) + \bar e,

the augmented (AIPW) estimator: the residual term per system keeps it unbiased for each
system's mean even where the shared calibration does not fit that system (the calibration
transport check says when it does not, which costs width, not validity).  Its variance:

* ``items`` (the mean over the :math:`N` rows): only the unlabelled rows' labels are
  unknown, :math:`(1 - n/N)\, s_e^2 / n` (sampling without replacement);
* ``process``: plus :math:`\widehat{\mathrm{Var}}(H) / N`, with
  :math:`\widehat{\mathrm{Var}}(H)` the imputed labels' variance plus the residual
  variance of the unlabelled share; cluster-robust over clusters with ``cluster=``.

Intervals use Student's t with :math:`n - 1` degrees of freedom for ``items``, the
Welch-Satterthwaite combination of :math:`n - 1` and :math:`N - 1` for ``process``
(:math:`G - 1` with :math:`G` clusters if fewer), clipped to the human scale.  Contrasts
of systems that answered the same items are paired: the process part is the variance of the per-item
difference of imputed labels, and labels on both systems of an item enter through the
Horvitz-Thompson covariance of their residuals.  With known labelling probabilities
(``label_prob=``) the weighted mean and its paired and clustered variances are
:mod:`~judgebayes.inference.scores.weighted`'s.


Power tuning
------------
The calibration is first scaled by :math:`\lambda \in [0, 1]` (:func:`power_tuned`): the
augmented mean of :math:`\lambda \hat f` is the labels' mean plus :math:`\lambda` times the
calibrated scores' difference between all rows and the labelled ones, so a judge that
predicts the labels well keeps its weight and one that does not is weighed as little as it
is worth, and the interval is never wider than the labels' own, up to the error of the
estimated moments.  The labels' mean is biased where the labels follow the score; there
(a two-sample test of the labelled and unlabelled rows' scores, :func:`labels_follow_scores`)
:math:`\lambda = 1`, which conditions on the score.

Over time
---------
With periods :math:`p` (``time=``) the calibration is fitted within each period (a judge's
score can mean something else after a version change) and each system's mean is the
period means weighted by its rows in them, :math:`\hat\mu = \sum_p (N_p / N)
\hat\mu_p`, with variance :math:`\sum_p (N_p / N)^2 \widehat{\mathrm{Var}}(\hat\mu_p)`
(periods calibrated and labelled apart are independent) and Welch-Satterthwaite degrees
of freedom.  Unlike one calibration and one residual mean for all periods, it stays
unbiased when the labelling rate changes over time while the judge drifts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from judgebayes.data.scores import ScoreData
from judgebayes.inference.scores.calibration import FOLDS, calibrate
from judgebayes.inference.scores.estimate import ScoreEstimate, fold_jackknife, sums
from judgebayes.inference.scores.weighted import paired_variance, weighted_means

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.inference.scores.calibration import Calibration


# --------------------------------------------------------------------- the augmented mean
def augmented_means(data: ScoreData, cal: Calibration, estimand: str) -> ScoreEstimate:
    """The augmented mean per system and its variance (module docstring)."""
    if data.weights is not None:
        return weighted_means(data, cal, estimand)
    pred = cal.pred
    ns = len(data.systems)
    sysc, lab, h = data.system, data.labelled, data.human
    n_all = np.bincount(sysc, minlength=ns).astype(float)
    n_lab = np.bincount(sysc[lab], minlength=ns).astype(float)
    e = np.where(lab, h - pred, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        e_bar = sums(sysc, e, ns) / n_lab
        dev = np.where(lab, e - e_bar[sysc], 0.0)
        s2e = sums(sysc, dev**2, ns) / (n_lab - 1)
        # labels that all agree leave no residual to measure (a point interval): the
        # residual variance is floored there at the smoothed Bernoulli variance of their
        # mean on the [0, 1]-scaled labels, (l m + 1) / (l + 2), as the items closed form
        lo, hi = data.human_scale
        h_bar = sums(sysc, np.where(lab, h, 0.0), ns) / n_lab
        agree = (n_lab >= 2) & (sums(sysc, np.where(lab, (h - h_bar[sysc]) ** 2, 0.0), ns) == 0)
        sm = (n_lab * (h_bar - lo) / (hi - lo) + 1) / (n_lab + 2)
        s2e = np.where(agree, np.maximum(s2e, sm * (1 - sm) * (hi - lo) ** 2), s2e)
        imputed = np.where(lab, h, pred + e_bar[sysc])
        est = sums(sysc, imputed, ns) / n_all
        var_items = (1 - n_lab / n_all) * s2e / n_lab
        df = n_lab - 1
        unl_share = 1 - n_lab / n_all
        # Var(H) = Var(f) + Var(e) + 2 Cov(f, e): the calibrated scores' spread over every
        # row, the residuals' and their covariance over the labelled rows (not 0 where the
        # shared calibration misfits the system: a judge kinder to it)
        f_mean = sums(sysc, pred, ns) / n_all
        var_f = sums(sysc, (pred - f_mean[sysc]) ** 2, ns) / (n_all - 1)
        fl_mean = sums(sysc[lab], pred[lab], ns) / n_lab
        cov_fe = sums(sysc, np.where(lab, (pred - fl_mean[sysc]) * dev, 0.0), ns) / (n_lab - 1)
        v_h = np.maximum(var_f + s2e + 2 * cov_fe, 0.0)
        if data.cluster is not None:  # residuals of one cluster move together
            var_items, df = clustered_items_variance(data, dev, n_all, n_lab, s2e, agree)
        if estimand == "process":
            if data.cluster is None:
                var = var_items + v_h / n_all
                # Welch-Satterthwaite: the labels' part has n - 1 degrees of freedom,
                # the rows' spread N - 1
                df = var**2 / (var_items**2 / (n_lab - 1) + (v_h / n_all) ** 2 / (n_all - 1))
            else:
                cl = data.cluster
                key = sysc * (int(cl.max()) + 1) + cl
                gk, ginv = np.unique(key, return_inverse=True)
                tot = np.bincount(ginv, weights=imputed - est[sysc])
                g_sys = gk // (int(cl.max()) + 1)
                n_g = np.bincount(g_sys, minlength=ns).astype(float)
                cr = n_g / (n_g - 1) * sums(g_sys, tot**2, ns) / n_all**2
                # the residuals of one cluster's labelled rows move together too
                rtot = np.bincount(ginv, weights=dev, minlength=gk.size)
                r_cr = n_g / (n_g - 1) * sums(g_sys, rtot**2, ns) / n_lab**2
                part = np.maximum(var_items, (1 - n_lab / n_all) * np.maximum(r_cr, s2e / n_lab))
                rest = cr + unl_share * s2e / n_all
                var = part + rest
                # Welch-Satterthwaite: the labels' part at its degrees of freedom, the
                # clusters' sums at G - 1
                df = var**2 / (part**2 / df + rest**2 / np.maximum(n_g - 1, 1))
                df = np.minimum(df, np.maximum(n_g - 1, 1))
        else:
            var = var_items
    var = var + fold_jackknife(data, cal, n_all, n_lab)
    bad = n_lab < 2
    se = np.where(bad, np.nan, np.sqrt(np.maximum(var, 0)))
    return ScoreEstimate(
        np.clip(np.where(n_lab > 0, est, np.nan), lo, hi),
        se,
        df,
        (lo, hi),
        {
            "residual_mean": e_bar,
            "residual_var": s2e,
            "imputed": imputed,
            "residual": dev,
            "n_labelled": n_lab,
            "n_items": n_all,
            "var_h": v_h,
            "labels_agree": agree,
        },
    )


def clustered_items_variance(
    data: ScoreData, dev: np.ndarray, n_all, n_lab, s2e, agree
) -> tuple[np.ndarray, np.ndarray]:
    r"""The residual term's variance per system when the rows come in clusters, and its
    degrees of freedom.

    The residuals are :math:`e_{gi} = u_g + \varepsilon_{gi}`, a cluster's shared part
    (variance :math:`\sigma_b^2`) and the row's own (:math:`\sigma_w^2`), estimated from
    the labelled rows by one-way analysis of variance.  The estimate's error for the rows'
    mean is :math:`\frac1N \sum_{\text{unlabelled}} e_j - \frac{N - n}{N}\,\bar e`, in
    which cluster :math:`g` (:math:`N_g` rows, :math:`n_g` labelled) carries its shared part
    with weight :math:`c_g = (N_g - n_g)/N - (N - n)\,n_g / (N n)`, so

    .. math::

        \mathrm{Var} = \Big(1 - \frac nN\Big)\frac{\sigma_w^2}{n}
        + \sigma_b^2 \sum_g c_g^2 .

    Labels spread over the clusters in proportion to their rows make every :math:`c_g`
    zero (the shared parts cancel); whole clusters labelled make them large, and the
    variance then rests on the :math:`G_\ell` labelled clusters: Welch-Satterthwaite
    degrees of freedom from :math:`n - G_\ell` and :math:`G_\ell - 1`.  With one labelled
    cluster and weights not zero the shared part cannot be estimated: NaN.
    """
    ns = len(n_all)
    sysc, lab, cl = data.system, data.labelled, data.cluster
    assert cl is not None  # called with clusters only
    width = int(cl.max()) + 1
    keys, inv = np.unique(sysc * width + cl, return_inverse=True)
    k_sys = keys // width
    rows_g = np.bincount(inv, minlength=keys.size).astype(float)
    lab_g = np.bincount(inv[lab], minlength=keys.size).astype(float)
    g_lab = sums(k_sys, (lab_g > 0).astype(float), ns)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_g = np.bincount(inv, weights=dev, minlength=keys.size) / lab_g  # dev: centred
        within = np.where(lab, dev - np.nan_to_num(mean_g)[inv], 0.0)
        s2w = sums(sysc, within**2, ns) / np.maximum(n_lab - g_lab, 1)
        msb = sums(k_sys, np.where(lab_g > 0, lab_g * np.nan_to_num(mean_g) ** 2, 0.0), ns)
        msb = msb / (g_lab - 1)
        m0 = (n_lab - sums(k_sys, lab_g**2, ns) / n_lab) / (g_lab - 1)
        s2b = np.where(g_lab > 1, np.maximum((msb - s2w) / m0, 0.0), 0.0)
        s2w = np.where(n_lab > g_lab, s2w, s2e)  # one label a cluster: no within part
        s2w = np.where(agree, s2e, s2w)  # labels that all agree: the floored variance
        big, small = n_all[k_sys], n_lab[k_sys]
        c = (rows_g - lab_g) / big - (big - small) / big * lab_g / small
        c2 = sums(k_sys, c**2, ns)
        a = (1 - n_lab / n_all) * s2w / n_lab
        b = s2b * c2
        df = (a + b) ** 2 / (a**2 / np.maximum(n_lab - g_lab, 1) + b**2 / np.maximum(g_lab - 1, 1))
        df = np.where(b > 0, df, n_lab - 1)
        shared = c2 > 1e-12 * (1 - n_lab / n_all) ** 2
        var = np.where((g_lab < 2) & shared, np.nan, a + b)
    return var, df


def tuned_calibration(
    data: ScoreData, random_seed: int, k: int, kind: str, power_tuning: bool = True
) -> tuple[Calibration, float]:
    """:func:`calibrate`, then :func:`power_tuned` unless ``power_tuning=False`` (lambda 1)."""
    cal = calibrate(data, random_seed, k, kind)
    return power_tuned(data, cal) if power_tuning else (cal, 1.0)


#: labelled and unlabelled rows' calibrated scores differ below this p-value (Holm over
#: systems): the labels follow the score, and the calibration keeps its full weight
FOLLOWS_ALPHA = 0.01


def score_labelling_pvalues(data: ScoreData) -> np.ndarray:
    """Per system, the two-sample Kolmogorov-Smirnov p-value of the labelled rows' scores
    (their mean over judges) against the unlabelled rows' (NaN where a side has fewer than
    two rows or the scores do not vary).
    """
    f, lab = data.mean_score, data.labelled
    out = np.full(len(data.systems), np.nan)
    for s in range(len(data.systems)):
        rows = data.system == s
        a, b = f[rows & lab], f[rows & ~lab]
        if a.size >= 2 and b.size >= 2 and np.ptp(f[rows]) > 0:
            out[s] = stats.ks_2samp(a, b).pvalue
    return out


def labels_follow_scores(data: ScoreData) -> bool:
    """Do the labelled rows' scores differ from the unlabelled rows' in some system
    (:func:`score_labelling_pvalues`, Holm over the systems, at :data:`FOLLOWS_ALPHA`)?
    Power tuning leans on the labels' own mean, which is biased when labelling followed
    the score; the full calibration (lambda 1) is not, since it conditions on the score.
    """
    ps = score_labelling_pvalues(data)
    ps = ps[~np.isnan(ps)]
    return bool(ps.size) and float(ps.min()) * ps.size < FOLLOWS_ALPHA  # Holm's smallest


def power_tuned(data: ScoreData, cal: Calibration) -> tuple[Calibration, float]:
    r"""The calibration scaled by the power-tuning :math:`\lambda \in [0, 1]` that minimises
    the summed variance of the systems' augmented means (module docstring), and
    :math:`\lambda`.

    The augmented mean of :math:`\lambda \hat f` is :math:`\bar h_{lab} + \lambda(\bar f_{all}
    - \bar f_{lab})` per system: labels alone at 0, the full calibration at 1.  Its
    variance per system is :math:`\sigma_h^2/n + c(\lambda^2 \sigma_f^2 - 2 \lambda
    \sigma_{hf}) + \lambda^2 J` with :math:`c = 1/n - 1/N` (either estimand), the
    calibration's own variance :math:`J` (the fold jackknife), and the moments pooled within
    systems, so :math:`\lambda^* = \sum c\,\sigma_{hf} / \sum (c\,\sigma_f^2 + J)`: never
    worse than the labels alone, up to the error of the estimated moments.  It leans on the
    labels being a random sample of the rows: where they follow the score
    (:func:`labels_follow_scores`) lambda is 1.
    """
    ns = len(data.systems)
    sysc, lab, h, f = data.system, data.labelled, data.human, cal.pred
    n_all = np.bincount(sysc, minlength=ns).astype(float)
    n_lab = np.bincount(sysc[lab], minlength=ns).astype(float)
    ok = n_lab >= 2
    if not ok.any() or data.weights is not None or labels_follow_scores(data):
        return cal, 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        f_all = sums(sysc, f, ns) / n_all
        f_lab = sums(sysc[lab], f[lab], ns) / n_lab
        h_lab = sums(sysc[lab], h[lab], ns) / n_lab
    cov_hf = np.sum((h[lab] - h_lab[sysc[lab]]) * (f[lab] - f_lab[sysc[lab]])) / max(
        float(n_lab[ok].sum() - ok.sum()), 1.0
    )
    var_f = np.sum((f - f_all[sysc]) ** 2) / max(float(n_all.sum() - ns), 1.0)
    c = np.where(ok, 1 / np.maximum(n_lab, 1) - 1 / n_all, 0.0)
    jack = np.where(ok, fold_jackknife(data, cal, n_all, n_lab), 0.0)
    denom = float(np.sum(c * var_f + jack))
    lam = float(np.clip(np.sum(c) * cov_hf / denom, 0.0, 1.0)) if denom > 0 else 0.0
    # a constant per system is absorbed by that system's residual mean: scaling is enough
    return replace(cal, pred=lam * cal.pred, models=lam * cal.models), lam


def _period_rows(data: ScoreData, rows: np.ndarray) -> ScoreData:
    """The rows ``rows`` of ``data`` as a design of their own (no periods)."""
    pick = {k: (lv, p[rows]) for k, (lv, p) in (data.probabilities or {}).items()} or None
    return replace(
        data,
        score=data.score[rows],
        human=data.human[rows],
        system=data.system[rows],
        n_raters=data.n_raters[rows],
        rows=data.rows[rows],
        item=None if data.item is None else data.item[rows],
        cluster=None if data.cluster is None else data.cluster[rows],
        probabilities=pick,
        period=None,
        periods=(),
        weights=None if data.weights is None else data.weights[rows],
        label_strata=None if data.label_strata is None else data.label_strata[rows],
        label_covariates=None if data.label_covariates is None else data.label_covariates[rows],
    )


def period_means(
    data: ScoreData,
    estimand: str,
    random_seed: int | None = 0,
    k: int = FOLDS,
    kind: str = "isotonic",
    power_tuning: bool = True,
) -> tuple[ScoreEstimate, list[ScoreEstimate], np.ndarray]:
    """Each period's augmented means, calibrated within the period (its folds drawn from
    ``random_seed + p``; ``kind`` as in :func:`calibrate`; scaled by :func:`power_tuned`
    unless ``power_tuning=False``), and their pooled per-system estimate (module
    docstring).

    Returns
    -------
    (pooled, per_period, rows)
        ``rows`` (periods, systems): each system's rows in each period.
    """
    assert data.period is not None  # the caller's condition: the data have periods
    ns = len(data.systems)
    seed = 0 if random_seed is None else random_seed
    per, rows = [], np.zeros((len(data.periods), ns))
    # whether the labels follow the score is asked of every period's rows at once: a
    # period's few labels would not show it, and its bias adds up over the periods
    power_tuning = power_tuning and not labels_follow_scores(data)
    for p in range(len(data.periods)):
        sub = _period_rows(data, data.period == p)
        cal, _ = tuned_calibration(sub, seed + p, k, kind, power_tuning)
        per.append(augmented_means(sub, cal, estimand))
        rows[p] = np.bincount(sub.system, minlength=ns)
    w = rows / rows.sum(0)
    has = w > 0
    est = np.stack([np.where(h, e.estimate, 0.0) for e, h in zip(per, has, strict=True)])
    v = np.stack([np.where(h, e.se**2, 0.0) for e, h in zip(per, has, strict=True)]) * w**2
    dfs = np.stack([np.where(h, e.df, np.inf) for e, h in zip(per, has, strict=True)])
    var = v.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = var**2 / np.sum(np.where(has, v**2 / dfs, 0.0), axis=0)
    pooled = ScoreEstimate(
        (w * est).sum(0),
        np.sqrt(var),
        df,
        data.human_scale,
        {
            "n_labelled": np.bincount(data.system[data.labelled], minlength=ns).astype(float),
            "n_items": rows.sum(0),
        },
    )
    return pooled, per, rows


def paired_contrasts(data: ScoreData, est: ScoreEstimate, estimand: str) -> dict:
    """The contrast table of the systems' estimates (the format of
    :func:`~judgebayes.inference.items.contrast_matrices`), paired by item where
    two systems answered the same set of items, independent otherwise.
    """
    ns = len(data.systems)
    table = {
        "systems": list(data.systems),
        "estimate": est.estimate.tolist(),
        "se": est.se.tolist(),
        "slack": [0.0] * ns,
        "df": est.df.tolist(),
        "range": float(data.human_scale[1] - data.human_scale[0]),
        "paired": [],
    }
    if data.item is None or ns < 2 or (estimand == "process" and data.cluster is not None):
        return table
    info = est.info
    lab = data.labelled
    n_items = int(data.item.max()) + 1
    imp = np.full((ns, n_items), np.nan)
    res = np.full((ns, n_items), np.nan)
    labm = np.zeros((ns, n_items), bool)
    imp[data.system, data.item] = info["imputed"]
    res[data.system, data.item] = np.where(lab, info["residual"], np.nan)
    labm[data.system, data.item] = lab
    at = np.zeros((ns, n_items), np.int64)  # each (system, item)'s row
    at[data.system, data.item] = np.arange(len(data.system))
    answered = ~np.isnan(imp)
    for a in range(ns):
        for b in range(a + 1, ns):
            if not np.array_equal(answered[a], answered[b]):
                continue
            m = answered[a]
            big_n = m.sum()
            na, nb = labm[a, m].sum(), labm[b, m].sum()
            if na < 2 or nb < 2:
                continue
            diff = est.estimate[a] - est.estimate[b]
            if info.get("weighted"):  # label_prob=: the items' sums
                v = paired_variance(est, a, b, at[a, m], at[b, m], estimand)
                table["paired"].append((a, b, diff, float(np.sqrt(max(v, 0.0))), 0.0, int(big_n)))
                continue
            v = est.se[a] ** 2 + est.se[b] ** 2
            if estimand == "process":  # the per-system Var(H)/N terms, replaced by paired ones
                v -= (info["var_h"][a] + info["var_h"][b]) / big_n
                d = imp[a, m] - imp[b, m]
                v += d.var(ddof=1) / big_n
                for s in (a, b):
                    share = 1 - info["n_labelled"][s] / big_n
                    v += share * info["residual_var"][s] / big_n
            both = labm[a] & labm[b]
            nab = both.sum()
            if nab:
                pa, pb, pab = na / big_n, nb / big_n, nab / big_n
                cov = np.sum(res[a, both] * res[b, both]) * (pab / (pa * pb) - 1) / pab
                v -= 2 * cov / big_n**2
            table["paired"].append((a, b, diff, float(np.sqrt(max(v, 0.0))), 0.0, int(big_n)))
    return table
