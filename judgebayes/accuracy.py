"""Per-system accuracy summaries from validated counts: the closed-form comparison table.

Used by the CLI (``judgebayes accuracy``) and the demo; one row per system with the naive
rate and its Wilson interval next to the Rogan-Gladen estimate and its Lang-Reiczigel
interval.  Missing verdicts are reported in every row.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.inference import closed_form as cf
from judgebayes.schema import CalibrationCounts, InputError, TestCounts

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["accuracy_table", "calibration_split"]

NOT_BETTER_THAN_CHANCE = "judge no better than chance on the calibration set (q0 + q1 <= 1)"


def accuracy_table(
    test: TestCounts, calibration: CalibrationCounts, alpha: float = 0.05
) -> pd.DataFrame:
    """Naive and corrected accuracy per system, with intervals.

    The calibration strata are pooled (one confusion matrix for the judge); the test
    strata are summed per system.

    Returns
    -------
    DataFrame
        One row per system: ``system, n, n_missing, k, naive, naive_lower, naive_upper``
        (Wilson), ``m0, m1, calibration_n_missing, q0, q1``, ``estimate, lower, upper``
        (Rogan-Gladen, clipped; Lang-Reiczigel), ``degenerate`` and ``note``.
    """
    import pandas as pd

    k, n, miss = test.per_system()
    cal = calibration.pooled()
    tp, m1, tn, m0 = (int(getattr(cal, a)[0]) for a in ("tp", "m1", "tn", "m0"))
    q0, q1 = tn / m0, tp / m1
    naive = cf.wilson_interval(k, n, alpha)
    p = np.asarray(cf.naive_rate(k, n), dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cf.NotBetterThanChanceWarning)
        lr = cf.lang_reiczigel_interval(
            np.nan_to_num(p), q0, q1, np.maximum(n, 1), m0, m1, alpha, errors="nan"
        )
    est = np.atleast_1d(np.asarray(lr.estimate, float))
    lo, hi = np.atleast_1d(np.asarray(lr[0], float)), np.atleast_1d(np.asarray(lr[1], float))
    degen = np.broadcast_to(np.asarray(lr.degenerate), est.shape)
    contains = np.broadcast_to(np.asarray(lr.contains_estimate), est.shape)
    notes = []
    for i in range(len(test.systems)):
        if n[i] == 0:
            notes.append("no usable verdicts")
            est[i] = lo[i] = hi[i] = np.nan
        elif np.isnan(est[i]):
            notes.append(NOT_BETTER_THAN_CHANCE)
        elif degen[i]:
            notes.append("two-sided interval outside [0, 1]: one-sided bound reported")
        elif not contains[i]:
            notes.append(
                "interval excludes the point estimate: a calibration class has only 1-2 "
                "items, so the adjusted rates differ strongly from the raw ones"
            )
        else:
            notes.append("")
    return pd.DataFrame(
        {
            "system": list(test.systems),
            "n": n,
            "n_missing": miss,
            "k": k,
            "naive": p,
            "naive_lower": np.atleast_1d(naive[0]),
            "naive_upper": np.atleast_1d(naive[1]),
            "m0": m0,
            "m1": m1,
            "calibration_n_missing": int(cal.n_missing[0]),
            "q0": q0,
            "q1": q1,
            "estimate": est,
            "lower": lo,
            "upper": hi,
            "degenerate": degen,
            "note": notes,
        }
    )


def calibration_split(
    items: pd.DataFrame,
    fraction: float,
    *,
    human: str = "human",
    random_seed: Any = None,
    stratify: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split an item-level frame into ``(test, calibration)`` parts.

    With ``stratify=True`` each true class contributes ``round(fraction * size)`` items,
    at least one (so that both calibration classes are non-empty) and at most
    ``size - 1``; otherwise a simple random sample of ``round(fraction * len(items))``.
    Rows whose human label is missing stay in the test part.
    """
    if not 0 < fraction < 1:
        raise InputError(
            f"calibration fraction must lie in (0, 1); got {fraction!r}",
            field="fraction",
            value=fraction,
        )
    rng = np.random.default_rng(random_seed)
    idx = np.arange(len(items))
    h = items[human].to_numpy()
    cal_pos: list[int] = []
    if stratify:
        for cls in (0, 1):
            members = idx[h == cls]
            if members.size < 2:
                raise InputError(
                    f"column {human!r}: class {cls} has {members.size} item(s); a stratified "
                    "split needs at least 2",
                    field=human,
                    value=cls,
                )
            size = int(np.clip(np.floor(fraction * members.size + 0.5), 1, members.size - 1))
            cal_pos.extend(rng.choice(members, size=size, replace=False).tolist())
    else:
        size = int(np.floor(fraction * len(items) + 0.5))
        cal_pos = rng.choice(idx, size=size, replace=False).tolist()
    is_cal = np.zeros(len(items), bool)
    is_cal[cal_pos] = True
    return items[~is_cal].reset_index(drop=True), items[is_cal].reset_index(drop=True)
