r"""Closed forms of the scores design: a judge's scores calibrated to human labels.

Calibration
-----------
:math:`f(s) = E[H \mid S = s]` is learnt on the labelled rows of every system together,
monotone in the score, by one of two fits:

* ``isotonic`` (default): isotonic regression (pool-adjacent-violators, linear between the
  fitted steps and flat beyond them), any monotone shape;
* ``logistic``: :math:`f(s) = l + (u - l)\,\sigma(a + b s)` on the human scale
  :math:`[l, u]`, fitted by the fractional-logit quasi-likelihood (a logistic regression for
  0/1 labels), with :math:`b \ge 0` (a decreasing fit becomes the constant mean): two
  parameters, so the calibration's own variance is small where its shape fits;
* ``auto``: both are cross-fitted on the same folds, and isotonic is used only when its
  out-of-fold squared error is below the logistic fit's by more than one standard error of
  the difference (the one-standard-error rule: the two-parameter fit unless the labels show
  a shape it cannot follow).

Isotonic stays the default: with about ten labels a system (HANNA at 10%) the logistic
fit's narrower ``items`` interval covered 0.933 on one judge where isotonic's extra
calibration variance kept 0.944 (BENCHMARKS); with tens of labels a system the two-parameter
fit is the narrower and still covers.

Several judges are first combined into one index, the least-squares fit of :math:`H` on
their scores, and the index is calibrated.  It is *cross-fitted*: the labelled rows are
split into :math:`K` folds (by cluster when there are clusters), a labelled row's
:math:`\hat f(s_i)` comes from the folds it is not in, an unlabelled row's is the mean of
the :math:`K` fold calibrations.  Whatever the fit, the augmented mean below stays unbiased
(its residual term corrects it); a fit closer to :math:`E[H \mid S]` only narrows it.

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
Horvitz-Thompson covariance of their residuals.

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

from dataclasses import dataclass, field, replace

import numpy as np
from scipy import optimize, stats

from judgebayes.data.scores import ScoreData
from judgebayes.errors import check_choice

__all__ = [
    "CALIBRATIONS",
    "ScoreEstimate",
    "augmented_means",
    "calibrate",
    "isotonic",
    "labels_only_means",
    "logistic",
    "naive_means",
    "period_means",
    "ppi_means",
]

#: folds of the cross-fitted calibration
FOLDS = 5
#: the calibration fits (module docstring)
CALIBRATIONS = ("auto", "isotonic", "logistic")


@dataclass
class ScoreEstimate:
    """Per-system estimates with standard errors and degrees of freedom (t intervals)."""

    estimate: np.ndarray
    se: np.ndarray
    df: np.ndarray
    bounds: tuple[float, float]
    info: dict = field(default_factory=dict)

    def interval(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """``alpha -> (lower, upper)``: t intervals clipped to the bounds."""
        with np.errstate(invalid="ignore"):
            q = stats.t.ppf(1 - alpha / 2, np.where(self.df >= 1, self.df, np.nan))
            half = q * self.se
        lo, hi = self.bounds
        return np.clip(self.estimate - half, lo, hi), np.clip(self.estimate + half, lo, hi)


# --------------------------------------------------------------------- calibration
def isotonic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knots ``(xs, ys)`` of the increasing least-squares fit of ``y`` on ``x`` (ties in
    ``x`` pooled first); predict with ``np.interp(x_new, xs, ys)``.
    """
    xs, inv = np.unique(x, return_inverse=True)
    w = np.bincount(inv).astype(float)
    ym = np.bincount(inv, weights=y) / w
    if xs.size == 1:
        return np.array([xs[0] - 1.0, xs[0] + 1.0]), np.array([ym[0], ym[0]])
    return xs, optimize.isotonic_regression(ym, weights=w, increasing=True).x


def _index(s_train, y_train, s_new) -> tuple[np.ndarray, np.ndarray]:
    """Several judges' scores combined by least squares into one index (train, new)."""
    if s_train.shape[1] == 1:
        return s_train[:, 0], s_new[:, 0]
    x = np.column_stack([np.ones(len(s_train)), s_train])
    beta = np.linalg.lstsq(x, y_train, rcond=None)[0]
    return x @ beta, np.column_stack([np.ones(len(s_new)), s_new]) @ beta


def logistic(x: np.ndarray, y: np.ndarray, bounds: tuple[float, float]):
    """``x_new -> f(x_new)``: the increasing scaled logistic fit of ``y`` on ``x`` (module
    docstring), by Newton's method on the fractional-logit quasi-likelihood; the constant
    mean when the fitted slope is not positive or ``y`` does not vary.
    """
    from scipy.special import expit

    lo, hi = bounds
    t = np.clip((y - lo) / (hi - lo), 0.0, 1.0)
    mean = float(np.mean(y))
    centre, scale = float(np.mean(x)), float(np.std(x))
    if scale == 0 or t.min() == t.max():
        return lambda xn: np.full(np.shape(xn), mean)
    X = np.column_stack([np.ones_like(x), (x - centre) / scale])
    b = np.zeros(2)
    for _ in range(100):
        p = expit(X @ b)
        w = np.maximum(p * (1 - p), 1e-12)
        # a tiny ridge keeps the step finite when the labels separate on the score
        step = np.linalg.solve(X.T @ (X * w[:, None]) + 1e-8 * np.eye(2), X.T @ (t - p))
        b = np.clip(b + step, -40.0, 40.0)
        if np.abs(step).max() < 1e-10:
            break
    if not b[1] > 0:
        return lambda xn: np.full(np.shape(xn), mean)
    return lambda xn: lo + (hi - lo) * expit(b[0] + b[1] * (np.asarray(xn) - centre) / scale)


def _fit_predict(s_train, y_train, s_new, kind: str, bounds) -> np.ndarray:
    it, inew = _index(s_train, y_train, s_new)
    if kind == "logistic":
        return logistic(it, y_train, bounds)(inew)
    xs, ys = isotonic(it, y_train)
    return np.interp(inew, xs, ys)


def folds(n: int, groups: np.ndarray | None, k: int, rng: np.random.Generator) -> np.ndarray:
    """A fold (0..k-1) for each of ``n`` labelled rows, whole groups kept together."""
    if groups is None:
        groups = np.arange(n)
    g, inv = np.unique(groups, return_inverse=True)
    k = max(1, min(k, g.size))
    fold_of_group = rng.permutation(np.arange(g.size) % k)
    return fold_of_group[inv]


@dataclass
class Calibration:
    """A cross-fitted calibration: ``pred`` the calibrated score of every row (out of fold
    on labelled rows, the folds' mean elsewhere), ``fold`` the labelled rows' folds (-1
    elsewhere), ``models`` each fold's calibration (fitted without that fold) on every
    row, shape (K, N); ``kind`` the fit used and ``oof_mse`` each candidate's out-of-fold
    mean squared error (module docstring).
    """

    pred: np.ndarray
    fold: np.ndarray
    models: np.ndarray
    kind: str = "isotonic"
    oof_mse: dict = field(default_factory=dict)


def calibrate(
    data: ScoreData, random_seed: int | None = 0, k: int = FOLDS, kind: str = "isotonic"
) -> Calibration:
    """Cross-fitted calibration (module docstring); ``kind`` one of :data:`CALIBRATIONS`."""
    check_choice(kind, CALIBRATIONS, "calibration", "calibration")
    lab = data.labelled
    s, h = data.score, data.human
    sl, hl = s[lab], h[lab]
    groups = None if data.cluster is None else data.cluster[lab]
    fold = folds(int(lab.sum()), groups, k, np.random.default_rng(random_seed))
    kk = int(fold.max()) + 1
    at = np.flatnonzero(lab)
    out = np.full(len(h), -1)
    out[lab] = fold
    if kk == 1:  # one fold: nothing held out (one labelled row or cluster)
        models = np.full((1, len(h)), hl.mean())
        return Calibration(models[0].copy(), out, models, "constant")
    fits, err = {}, {}
    for name in ("logistic", "isotonic") if kind == "auto" else (kind,):
        fits[name] = np.stack(
            [
                _fit_predict(sl[fold != f], hl[fold != f], s, name, data.human_scale)
                for f in range(kk)
            ]
        )
        err[name] = (hl - fits[name][fold, at]) ** 2
    mse = {name: float(e.mean()) for name, e in err.items()}
    chosen = next(iter(fits))
    if kind == "auto":
        # the one-standard-error rule: isotonic only when it predicts the held-out labels
        # better by more than the noise in that comparison
        d = err["logistic"] - err["isotonic"]
        se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0
        chosen = "isotonic" if d.mean() > se else "logistic"
    models = fits[chosen]
    pred = np.empty(len(h))
    pred[~lab] = models[:, ~lab].mean(0)
    pred[lab] = models[fold, at]
    return Calibration(pred, out, models, chosen, mse)


# --------------------------------------------------------------------- the augmented mean
def _sums(g: np.ndarray, x: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(g, weights=x, minlength=size)


def augmented_means(data: ScoreData, cal: Calibration, estimand: str) -> ScoreEstimate:
    """The augmented mean per system and its variance (module docstring)."""
    pred = cal.pred
    ns = len(data.systems)
    sysc, lab, h = data.system, data.labelled, data.human
    n_all = np.bincount(sysc, minlength=ns).astype(float)
    n_lab = np.bincount(sysc[lab], minlength=ns).astype(float)
    e = np.where(lab, h - pred, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        e_bar = _sums(sysc, e, ns) / n_lab
        dev = np.where(lab, e - e_bar[sysc], 0.0)
        s2e = _sums(sysc, dev**2, ns) / (n_lab - 1)
        # labels that all agree leave no residual to measure (a point interval): the
        # residual variance is floored there at the smoothed Bernoulli variance of their
        # mean on the [0, 1]-scaled labels, (l m + 1) / (l + 2), as the items closed form
        lo, hi = data.human_scale
        h_bar = _sums(sysc, np.where(lab, h, 0.0), ns) / n_lab
        agree = (n_lab >= 2) & (_sums(sysc, np.where(lab, (h - h_bar[sysc]) ** 2, 0.0), ns) == 0)
        sm = (n_lab * (h_bar - lo) / (hi - lo) + 1) / (n_lab + 2)
        s2e = np.where(agree, np.maximum(s2e, sm * (1 - sm) * (hi - lo) ** 2), s2e)
        imputed = np.where(lab, h, pred + e_bar[sysc])
        est = _sums(sysc, imputed, ns) / n_all
        var_items = (1 - n_lab / n_all) * s2e / n_lab
        df = n_lab - 1
        unl_share = 1 - n_lab / n_all
        # Var(H) = Var(f) + Var(e) + 2 Cov(f, e): the calibrated scores' spread over every
        # row, the residuals' and their covariance over the labelled rows (not 0 where the
        # shared calibration misfits the system: a judge kinder to it)
        f_mean = _sums(sysc, pred, ns) / n_all
        var_f = _sums(sysc, (pred - f_mean[sysc]) ** 2, ns) / (n_all - 1)
        fl_mean = _sums(sysc[lab], pred[lab], ns) / n_lab
        cov_fe = _sums(sysc, np.where(lab, (pred - fl_mean[sysc]) * dev, 0.0), ns) / (n_lab - 1)
        v_h = np.maximum(var_f + s2e + 2 * cov_fe, 0.0)
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
                cr = n_g / (n_g - 1) * _sums(g_sys, tot**2, ns) / n_all**2
                # the residuals of one cluster's labelled rows move together too
                rtot = np.bincount(ginv, weights=dev, minlength=gk.size)
                r_cr = n_g / (n_g - 1) * _sums(g_sys, rtot**2, ns) / n_lab**2
                var = (1 - n_lab / n_all) * np.maximum(r_cr, s2e / n_lab) + cr
                var = var + unl_share * s2e / n_all
                df = np.minimum(df, n_g - 1)
        else:
            var = var_items
    var = var + _fold_jackknife(data, cal, n_all, n_lab)
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


def _fold_jackknife(data: ScoreData, cal: Calibration, n_all, n_lab) -> np.ndarray:
    """The calibration's own share of the variance: the delete-a-fold jackknife of what the
    estimate reads off the calibration, its mean over every row minus its mean over the
    labelled rows (per system); 0 with one fold.
    """
    kk = cal.models.shape[0]
    if kk < 2:
        return np.zeros(len(n_all))
    ns = len(n_all)
    sysc, lab = data.system, data.labelled
    g = np.stack(
        [
            _sums(sysc, m, ns) / n_all - _sums(sysc[lab], m[lab], ns) / np.maximum(n_lab, 1)
            for m in cal.models
        ]
    )
    return (kk - 1) / kk * ((g - g.mean(0)) ** 2).sum(0)


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
    )


def period_means(
    data: ScoreData,
    estimand: str,
    random_seed: int | None = 0,
    k: int = FOLDS,
    kind: str = "isotonic",
) -> tuple[ScoreEstimate, list[ScoreEstimate], np.ndarray]:
    """Each period's augmented means, calibrated within the period (its folds drawn from
    ``random_seed + p``; ``kind`` as in :func:`calibrate`), and their pooled per-system
    estimate (module docstring).

    Returns
    -------
    (pooled, per_period, rows)
        ``rows`` (periods, systems): each system's rows in each period.
    """
    ns = len(data.systems)
    seed = 0 if random_seed is None else random_seed
    per, rows = [], np.zeros((len(data.periods), ns))
    for p in range(len(data.periods)):
        sub = _period_rows(data, data.period == p)
        per.append(augmented_means(sub, calibrate(sub, seed + p, k, kind), estimand))
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
    :func:`~judgebayes.inference.accuracy.items.contrast_matrices`), paired by item where
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
            diff = est.estimate[a] - est.estimate[b]
            table["paired"].append((a, b, diff, float(np.sqrt(max(v, 0.0))), 0.0, int(big_n)))
    return table


# --------------------------------------------------------------------- comparators
def ppi_means(data: ScoreData, lam: float | None = None) -> ScoreEstimate:
    """PPI (``lam=1``) or PPI++ (ppi_py's tuned lambda, clipped to [0, 1]) of the human
    label on the first judge's raw score, per system; normal intervals (as ppi_py's
    ``ppi_mean_ci``), process estimand.
    """
    ns = len(data.systems)
    est, se, lams = np.full(ns, np.nan), np.full(ns, np.nan), np.full(ns, np.nan)
    for s in range(ns):
        m = data.system == s
        lab = data.labelled[m]
        y, yh = data.human[m][lab], data.score[m, 0][lab]
        yu = data.score[m, 0][~lab]
        n, big_n = y.size, yu.size
        if n < 2 or big_n < 1:
            continue
        if lam is None:
            allh = np.concatenate([yh, yu])
            vh = allh.var(ddof=1)
            c = np.mean(y * yh) - y.mean() * yh.mean()
            lam_s = float(np.clip(c / ((1 + n / big_n) * vh), 0, 1)) if vh > 0 else 0.0
        else:
            lam_s = float(lam)
        est[s] = lam_s * yu.mean() + y.mean() - lam_s * yh.mean()
        se[s] = np.sqrt(lam_s**2 * yu.var() / big_n + (y - lam_s * yh).var() / n)
        lams[s] = lam_s
    lo, hi = data.human_scale
    return ScoreEstimate(est, se, np.full(ns, np.inf), (lo, hi), {"lam": lams})


def labels_only_means(data: ScoreData) -> ScoreEstimate:
    """The labelled rows' mean per system, t interval; process estimand."""
    ns = len(data.systems)
    lab = data.labelled
    sysc, h = data.system[lab], data.human[lab]
    n = np.bincount(sysc, minlength=ns).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = _sums(sysc, h, ns) / n
        v = _sums(sysc, (h - m[sysc]) ** 2, ns) / (n - 1)
        se = np.sqrt(v / n)
    return ScoreEstimate(m, np.where(n < 2, np.nan, se), n - 1, data.human_scale)


def naive_means(data: ScoreData) -> ScoreEstimate:
    """The judges' mean score mapped linearly from their scale to the human scale
    (uncorrected: biased unless the judge's scale is the humans'), t interval over rows.
    """
    ns = len(data.systems)
    lo, hi = data.score_scale[:, 0], data.score_scale[:, 1]
    hlo, hhi = data.human_scale
    mapped = (hlo + (data.score - lo) / (hi - lo) * (hhi - hlo)).mean(1)
    n = np.bincount(data.system, minlength=ns).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = _sums(data.system, mapped, ns) / n
        v = _sums(data.system, (mapped - m[data.system]) ** 2, ns) / (n - 1)
    return ScoreEstimate(m, np.sqrt(v / n), n - 1, data.human_scale)
