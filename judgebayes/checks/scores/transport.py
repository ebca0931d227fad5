r"""Does one calibration of the judge's score hold for every system?  (labelled rows)

The scores design calibrates the human label on the judge's score once, on every system's
labelled rows together.  A judge that scores one system's outputs more kindly at the same
human level breaks that: at a given score, that system's rows have lower human labels.
The closed form stays unbiased (its residual term is per system; the calibration's misfit
costs width only) and so does the Bayesian model with ``system_shift=True`` (default); the
Bayesian model without system shifts and ``naive`` assume it.

Per judge (several judges: their least-squares index) the out-of-fold residuals
:math:`e_i = h_i - \hat f(s_i)` of the cross-fitted calibration
(:func:`judgebayes.inference.scores.calibrate`) are compared across systems: the statistic
is the between-system sum of squares :math:`\sum_s n_s \bar e_s^2 - n \bar e^2`, its
``p_raw`` a permutation p-value (:data:`PERMUTATIONS` relabellings of the systems among the
labelled rows).  ``observed`` is the largest absolute mean residual of a system (a system
whose humans rate it that much above or below what its scores say), ``expected`` 0.
Fewer than two systems with two labelled rows: no rows.
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "PERMUTATIONS"]

#: random relabellings behind the p-value
PERMUTATIONS = 2000
#: the seed of the calibration's folds and the relabellings: the same data, the same table
SEED = 20261126


def residuals(study) -> tuple[np.ndarray, np.ndarray]:
    """The labelled rows' out-of-fold residuals and system codes."""
    from judgebayes.inference.scores import calibrate

    d = study.data
    pred = calibrate(d, SEED, study.folds).pred
    lab = d.labelled
    return d.human[lab] - pred[lab], d.system[lab]


def _between(e: np.ndarray, codes: np.ndarray, size: int) -> np.ndarray:
    """Between-group sums of squares of ``e`` for each row of ``codes`` (B, n)."""
    b = codes.shape[0]
    flat = (codes + size * np.arange(b)[:, None]).ravel()
    n = np.bincount(codes[0], minlength=size).astype(float)
    sums = np.bincount(flat, weights=np.tile(e, b), minlength=b * size).reshape(b, size)
    return (sums**2 / np.where(n > 0, n, 1)).sum(1) - e.sum() ** 2 / e.size


def _rows(study, fit=None, *, alpha: float) -> list[dict]:
    e, sysc = residuals(study)
    counts = np.bincount(sysc, minlength=len(study.systems))
    keep = counts[sysc] >= 2
    present = np.unique(sysc[keep])
    if present.size < 2:
        return []
    e, code = e[keep], np.searchsorted(present, sysc[keep])
    t0 = _between(e, code[None], present.size)[0]
    rng = np.random.default_rng(SEED)
    perm = np.argsort(rng.random((PERMUTATIONS, code.size)), axis=1)
    tb = _between(e, code[perm], present.size)
    p = (1 + np.sum(tb >= t0 - 1e-12)) / (PERMUTATIONS + 1)
    n = np.bincount(code)
    means = np.bincount(code, weights=e) / n
    worst = int(np.argmax(np.abs(means)))
    judges = " + ".join(study.data.judges)
    return [
        {
            "unit": f"{judges}: one calibration across {present.size} systems "
            f"(largest gap: {study.systems[present[worst]]!r})",
            "observed": float(np.abs(means[worst])),
            "expected": 0.0,
            "p_raw": float(p),
            "n": int(e.size),
        }
    ]


CHECK = register(
    Check(
        "calibration_transport",
        _rows,
        applies_to=("scores",),
        assumption="one calibration of the judge's score to the human label holds for every "
        "system (the judge is not kinder to one system's outputs at the same human level)",
        tests=lambda study, fit: (
            fit.method == "naive" or (fit.method == "nuts" and not study.system_shift)
        ),
    )
)
