r"""The calibration of a judge's scores to the human scale: isotonic or logistic,
cross-fitted over folds of the labelled rows.

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
fit's narrower ``items`` interval under-covered on one judge where isotonic's extra
calibration variance kept nominal coverage (BENCHMARKS); with tens of labels a system the
two-parameter fit is the narrower and still covers.

Several judges are first combined into one index, the least-squares fit of :math:`H` on
their scores, and the index is calibrated.  It is *cross-fitted*: the labelled rows are
split into :math:`K` folds (by cluster when there are clusters), a labelled row's
:math:`\hat f(s_i)` comes from the folds it is not in, an unlabelled row's is the mean of
the :math:`K` fold calibrations.  Whatever the fit, the augmented mean below stays unbiased
(its residual term corrects it); a fit closer to :math:`E[H \mid S]` only narrows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from judgebayes.data.scores import ScoreData
from judgebayes.errors import check_choice

#: folds of the cross-fitted calibration
FOLDS = 5


#: the calibration fits (module docstring)
CALIBRATIONS = ("auto", "isotonic", "logistic")


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
