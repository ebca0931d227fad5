r"""Does the human label rise with the judge's score?  (labelled rows)

The closed form calibrates the human label on the score with a monotone (isotonic) fit,
``naive`` maps the score linearly onto the human scale and the ordinal model (``nuts``)
is linear in the score.  A judge whose score is not monotone in quality (top grades to
both the best and the degenerate answers) breaks all three: the closed form stays unbiased
(its residual term corrects any calibration) but loses the score's information; ``naive``
and ``nuts`` are wrong (they under-cover in simulation: BENCHMARKS.md, judges that give
scores), so the check fails them.

Per judge (several judges: their least-squares index, fitted on the labelled rows), the
labelled rows' scores are cut into at most :data:`BINS` quantile bins; the statistic is
the isotonic fit's residual sum of squares minus the bin means' (what monotonicity
costs).  ``p_raw`` is a residual bootstrap under the isotonic fit: :data:`BOOTSTRAPS`
label sets of the fitted values plus resampled, centred residuals of the bin means.
``observed`` is the largest drop of the bin means from one bin to a later one,
``expected`` 0.
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["BINS", "BOOTSTRAPS", "CHECK"]

#: at most this many quantile bins of the score
BINS = 8
#: bootstrap label sets behind the p-value
BOOTSTRAPS = 1000
#: the seed of the bootstrap: the same data, the same table
SEED = 20261127


def _sse_gap(x_bin: np.ndarray, y: np.ndarray, n_bins: int) -> np.ndarray:
    """(isotonic SSE - bin means' SSE) for each row of ``y`` (B, n), bins fixed."""
    from scipy.optimize import isotonic_regression

    n = np.bincount(x_bin, minlength=n_bins).astype(float)
    out = np.empty(y.shape[0])
    for b in range(y.shape[0]):
        means = np.bincount(x_bin, weights=y[b], minlength=n_bins) / n
        fitted = isotonic_regression(means, weights=n).x
        out[b] = np.sum(n * (means - fitted) ** 2)
    return out


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    from scipy.optimize import isotonic_regression

    d = study.data
    lab = d.labelled
    s, y = d.score[lab], d.human[lab]
    if s.shape[1] > 1:
        x = np.column_stack([np.ones(len(s)), s])
        idx = x @ np.linalg.lstsq(x, y, rcond=None)[0]
    else:
        idx = s[:, 0]
    edges = np.unique(np.quantile(idx, np.linspace(0, 1, BINS + 1)[1:-1]))
    x_bin = np.unique(np.searchsorted(edges, idx, side="right"), return_inverse=True)[1]
    nb = int(x_bin.max()) + 1
    if nb < 3 or y.size < 3 * nb:
        return []
    n = np.bincount(x_bin, minlength=nb).astype(float)
    means = np.bincount(x_bin, weights=y, minlength=nb) / n
    fitted = isotonic_regression(means, weights=n).x
    t0 = float(np.sum(n * (means - fitted) ** 2))
    resid = y - means[x_bin]
    resid = resid - resid.mean()
    rng = np.random.default_rng(SEED)
    ystar = fitted[x_bin][None, :] + rng.choice(resid, (BOOTSTRAPS, y.size))
    tb = _sse_gap(x_bin, ystar, nb)
    p = (1 + np.sum(tb >= t0 - 1e-12)) / (BOOTSTRAPS + 1)
    drop = float(np.max(np.maximum.accumulate(means) - means))
    return [
        {
            "unit": f"{' + '.join(d.judges)}: human label rising with the score ({nb} score bins)",
            "observed": drop,
            "expected": 0.0,
            "p_raw": float(p),
            "n": int(y.size),
        }
    ]


CHECK = register(
    Check(
        "monotone_calibration",
        _rows,
        applies_to=("scores",),
        assumption="the human label rises (or stays level) with the judge's score",
        tests=lambda study, fit: fit.method in ("naive", "nuts"),
    )
)
