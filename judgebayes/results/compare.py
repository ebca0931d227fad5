"""The comparison table of several fits, and its summary by groups."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.results.fit import Fit

COMPARISON_COLUMNS = (
    "method",
    "family",
    "quantity",
    "unit",
    "estimate",
    "lower",
    "upper",
    "level",
    "width",
    "r_hat",
    "ess_bulk",
    "ess_tail",
    "divergences",
    "seconds",
    "estimand",
    "note",
)


def compare(fits: Sequence[Fit], alpha: float = 0.05, kind: str = "equal_tailed") -> pd.DataFrame:
    """One tidy table of several fits: a row per fit x unit.

    Columns :data:`COMPARISON_COLUMNS` (``method`` is the fit's label, ``unit`` the unit's
    label; ``r_hat``, ``ess_*`` and ``divergences`` are NaN for fits without MCMC).
    Works for any family; fits of different quantities are allowed and keep their
    ``family`` and ``quantity`` columns.
    """
    if isinstance(fits, Fit):
        fits = [fits]
    if not isinstance(fits, Iterable) or isinstance(fits, str):
        hint = " (a study: call its own .compare())" if hasattr(fits, "methods") else ""
        name = type(fits).__name__
        raise InputError(f"compare takes Fit objects; got {name}{hint}", field="fits", value=name)
    fits = list(fits)
    bad = [type(f).__name__ for f in fits if not isinstance(f, Fit)]
    if bad:
        raise InputError(f"compare takes Fit objects; got {bad}", field="fits", value=bad)
    rows = [r for f in fits for r in f.summary_rows(alpha, kind)]
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def interval_summary(results: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Repeated-estimate summary against a known truth, per group of ``by``.

    ``results`` has one row per replicate with ``estimate`` and ``truth`` and, for methods
    that give one, ``lower``/``upper``.  Returns ``n_splits`` (rows), ``n_defined`` (finite
    estimates), ``bias`` and ``mae`` (over defined rows), ``coverage`` and ``width`` (over
    rows with a finite interval; NaN for a method without intervals).

    With a boolean ``passed`` column (the fit of that row passed its convergence gate or
    importance check) the summary also has ``n_passed`` and ``coverage_passed``,
    ``width_passed`` and ``mae_passed`` over passed rows, beside the same numbers over all
    rows: a sweep never pools a failed fit silently.
    """
    none = np.full(len(results), np.nan)
    lo = results["lower"].to_numpy(float) if "lower" in results else none
    hi = results["upper"].to_numpy(float) if "upper" in results else none
    truth = results["truth"].to_numpy(float)
    has = np.isfinite(lo) & np.isfinite(hi)
    d = results[list(by)].assign(
        _truth=truth,
        err=results["estimate"].to_numpy(float) - truth,
        width=np.where(has, hi - lo, np.nan),
        covered=np.where(has, ((lo <= truth) & (truth <= hi)).astype(float), np.nan),
    )
    aggs = dict(
        n_splits=("_truth", "size"),
        n_defined=("err", "count"),
        bias=("err", "mean"),
        mae=("err", lambda e: float(e.abs().mean())),
        coverage=("covered", "mean"),
        width=("width", "mean"),
    )
    if "passed" in results:
        ok = results["passed"].to_numpy(bool)
        d = d.assign(
            _passed=ok & np.isfinite(d["err"].to_numpy(float)),
            _err_p=np.where(ok, d["err"], np.nan),
            _cov_p=np.where(ok, d["covered"], np.nan),
            _width_p=np.where(ok, d["width"], np.nan),
        )
        aggs |= dict(
            n_passed=("_passed", "sum"),
            mae_passed=("_err_p", lambda e: float(e.abs().mean())),
            coverage_passed=("_cov_p", "mean"),
            width_passed=("_width_p", "mean"),
        )
    return d.groupby(list(by), sort=False).agg(**aggs).reset_index()
