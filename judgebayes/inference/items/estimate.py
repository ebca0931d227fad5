"""What every estimator of the items design returns (:class:`ItemEstimate`), its two
estimands, and the per-cell counts they start from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from judgebayes.data.items import ItemData
from judgebayes.errors import InputError
from judgebayes.inference.accuracy.closed_form import z_value

ESTIMANDS = ("items", "process")


#: why a pair of systems' contrast is not paired although they answered the same prompts
NO_JOINT_LABEL = "no prompt is labelled on both systems"


#: Pseudo-count of the smoothed human rate (h + s) / (l + 2 s) per verdict category: the
#: floor of the reported variance (:func:`double_sampling_items`) and the rates that
#: planning (:func:`allocate_labels`) assumes, so that a plan targets the reported se.
SMOOTH = 1.0


@dataclass(frozen=True)
class ItemEstimate:
    """Per-system estimate and standard error (arrays of shape (n_systems,)).

    ``lower`` / ``upper`` give the interval at any ``alpha``; ``info`` carries per-cell
    facts (``lam`` of PPI++, ``a``, ``b``, ``p``).
    """

    estimate: np.ndarray
    se: np.ndarray
    bounds: tuple[np.ndarray, np.ndarray]
    info: dict
    #: degrees of freedom per system (clusters - 1 with clusters): the interval's
    #: critical value is then t(df), else normal
    df: np.ndarray | None = None
    #: (successes, trials) per system when the estimate is a plain proportion: the
    #: interval is then Agresti-Coull's, which does not collapse at 0 or 1 as Wald's does
    counts: tuple[np.ndarray, np.ndarray] | None = None
    #: half the range a verdict category with no labelled item can move the estimate
    #: (its human rate anywhere in [0, 1]): added to each side of the interval
    slack: np.ndarray | None = None

    def interval(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        r"""Agresti-Coull (``counts``), t (``df``) or Wald interval, clipped to the known range.

        Agresti-Coull: :math:`\tilde p = (k + z^2/2)/(n + z^2)`, :math:`\tilde p \pm
        z\sqrt{\tilde p(1 - \tilde p)/(n + z^2)}`.  Summed exactly over the binomial at
        rates near 0 and 1 with 20 or 50 labels it covers, where Wilson's interval (the
        same centre, a narrower width) does not (BENCHMARKS.md, the items design).
        """
        z = z_value(alpha)
        if self.counts is not None:
            k, n = (np.asarray(c, float) for c in self.counts)
            with np.errstate(invalid="ignore", divide="ignore"):
                pt = (k + z**2 / 2) / (n + z**2)
                half = z * np.sqrt(pt * (1 - pt) / (n + z**2))
            nan = np.where(n > 0, 0.0, np.nan)
            return np.clip(pt - half, 0, 1) + nan, np.clip(pt + half, 0, 1) + nan
        crit: float | np.ndarray = z
        if self.df is not None:
            with np.errstate(invalid="ignore"):
                df = np.maximum(self.df, 1)
                crit = np.where(self.df >= 1, stats.t.ppf(1 - alpha / 2, df), np.nan)
        half = crit * self.se + (0.0 if self.slack is None else self.slack)
        lo = np.maximum(self.estimate - half, self.bounds[0])
        hi = np.minimum(self.estimate + half, self.bounds[1])
        return lo, hi


def check_estimand(estimand: str) -> str:
    """``estimand`` when it is one of :data:`ESTIMANDS`, else a typed error naming it."""
    if estimand not in ESTIMANDS:
        raise InputError(
            f"estimand must be one of {ESTIMANDS}; got {estimand!r}",
            field="estimand",
            value=estimand,
        )
    return estimand


def nan_to_zero(x):
    """NaN -> 0 (``np.nan_to_num`` also maps infinities, and is several times slower)."""
    x = np.asarray(x, float)
    return np.where(np.isnan(x), 0.0, x)


def known_bounds(data: ItemData, estimand: str) -> tuple[np.ndarray, np.ndarray]:
    """[0, 1] for the process; for the N items, all unlabelled negative or positive."""
    ns = len(data.systems)
    if estimand == "process":
        return np.zeros(ns), np.ones(ns)
    lab = data.labelled
    n = np.bincount(data.system, minlength=ns).astype(float)
    known = np.bincount(data.system[lab], weights=data.human[lab], minlength=ns)
    unl = np.bincount(data.system[~lab], minlength=ns)
    return known / n, (known + unl) / n


def cell_index(data: ItemData):
    """Each item's (system, stratum) cell code, and the number of cells."""
    nt = len(data.strata)
    return data.system * nt + data.stratum, len(data.systems) * nt


def stratify(data: ItemData, est_c, var_c, estimand):
    """Share-weighted combination of per-cell estimates (known stratum sizes)."""
    ns, nt = len(data.systems), len(data.strata)
    cell, size = cell_index(data)
    n_c = np.bincount(cell, minlength=size).astype(float).reshape(ns, nt)
    share = n_c / n_c.sum(1, keepdims=True)
    est_c, var_c = est_c.reshape(ns, nt), var_c.reshape(ns, nt)
    present = n_c > 0
    est = np.where(present, share * est_c, 0.0).sum(1)
    var = np.where(present, share**2 * var_c, 0.0).sum(1)
    bad = (present & ~np.isfinite(est_c)).any(1)
    est = np.where(bad, np.nan, est)
    return ItemEstimate(est, np.where(bad, np.nan, np.sqrt(var)), known_bounds(data, estimand), {})


def category_counts(data: ItemData) -> dict[str, np.ndarray]:
    """Per (system, stratum, verdict category): items ``n``, labelled ``l``, human + ``h``."""
    ns, nt, k = len(data.systems), len(data.strata), data.n_judges + 1
    cell = (data.system * nt + data.stratum) * k + data.category
    lab = data.labelled
    h = np.where(lab, data.human, 0.0)

    def cnt(x):
        out = np.bincount(cell, weights=x, minlength=ns * nt * k).reshape(ns, nt, k)
        return np.rint(out).astype(np.int64)

    return {"n": cnt(np.ones(lab.size)), "l": cnt(lab.astype(float)), "h": cnt(h)}


def category_names(data: ItemData) -> list[str]:
    """Labels of the verdict categories (the verdict, or the number of positive votes)."""
    if data.n_judges == 1:
        return ["judged negative", "judged positive"]
    return [f"{i} of {data.n_judges} positive" for i in range(data.n_judges + 1)]
