r"""Were the items labelled at random within the design's cells?  (labelled against unlabelled)

Every estimator of the items design assumes that, within each cell of the labelling
design (system x stratum x the judge's verdict), which items the humans labelled did not
depend on anything else about them: the design may select on the verdict and the stated
strata (or carry known weights), and then the labelled items' (human, verdict) pairs
with the unlabelled items' verdicts are the whole likelihood.  Labelling that follows
what the judge's errors follow (short answers are cheaper to read, labels taken in the
first weeks of a log whose judge drifts) breaks that, and the intervals are too narrow
around a biased estimate.

Two checks compare labelled with unlabelled items within every cell, one row per
column:

* ``labelling``: the row order (or the column ``order=`` names: when each item was
  judged) and the columns named by ``design_columns=``; every fit of the study assumes
  that labelling does not depend on them.
* ``labelling_covariates``: the study's ``covariates=``; the covariate model conditions
  on them (labelling that depends on them is ignorable there), every other fit does not.

A numeric column gets van Elteren's stratified rank-sum test (the cells' Wilcoxon
statistics, each weighted by 1 / (cell size + 1), ties by mid-ranks), a categorical one
the sum of the cells' chi-square statistics of labelled x category (degrees of freedom
summed).  ``observed`` is the labelled items' mean rank minus the unlabelled ones' as a
share of the cell (-1 to 1, 0 when labelling is random), averaged over the cells by
their labelled counts (numeric), or the largest difference in a category's share
(categorical).  With several systems and no ``item=``, each system gets its own rows
(Holm holds however the systems' rows depend on each other).  With ``item=`` (or
``cluster=``) whole prompts are often labelled at once,
on every system that answered them: the rows' statistics are then summed with a variance
over items (a score test; on LLMBar's paired systems with 30% of prompts labelled at random
the row-order test flagged 4.5% of draws at 0.01 without it, none of 200 with it).  A
study with design weights (``weights=``) is labelled with known
unequal probabilities and is not tested.  :func:`remedy` says what remains valid.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.checks.base import Check, holm, register

__all__ = [
    "COVARIATES",
    "ORDER",
    "by_verdict",
    "columns_of",
    "flags",
    "relevant_flags",
    "remedy",
]

#: the row label of the row order
ORDER = "row order"
#: the check of the study's covariates
COVARIATES = "labelling_covariates"
#: in the name of a spline term's cubic columns (its first column is the covariate)
SPLINE = " (spline "
#: between a column and its system in a row of a study with several systems
BY_SYSTEM = " | system "


def columns_of(data, covariates: bool) -> dict[str, np.ndarray]:
    """The columns a check compares: the study's covariates, or the order and the
    ``design_columns`` (name -> values over the items).
    """
    if covariates:
        if data.covariates is None:
            return {}
        pairs = zip(data.covariate_names, data.covariates.T, strict=True)
        return {c: x for c, x in pairs if SPLINE not in c}  # a spline's column once
    out = {} if data.order is None else {data.columns.get("order") or ORDER: data.order}
    return out | dict(data.design)


def _ranks(x: np.ndarray, cell: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mid-ranks of ``x`` within each cell (in the rows' order), and per cell the summed
    :math:`t^3 - t` of its ties (one sort by cell and value).
    """
    k = int(cell.max()) + 1 if cell.size else 0
    if np.all(x[1:] > x[:-1]):  # the row order: sorted without ties, one sort by cell
        order = np.argsort(cell.astype(np.uint16) if k < 2**16 else cell, kind="stable")
    else:
        order = np.lexsort((x, cell))
    xs, cs = x[order], cell[order]
    first = np.empty(xs.size, bool)
    first[0] = True
    np.not_equal(cs[1:], cs[:-1], out=first[1:])
    tie = first.copy()
    tie[1:] |= xs[1:] != xs[:-1]
    pos = np.arange(xs.size, dtype=float)
    start = np.maximum.accumulate(np.where(first, pos, 0.0))
    lo = pos[tie]
    hi = np.append(lo[1:], xs.size) - 1
    rank = np.empty(xs.size)
    rank[order] = ((lo + hi) / 2)[np.cumsum(tie) - 1] - start + 1
    t = hi - lo + 1
    return rank, np.bincount(cs[tie], weights=t**3 - t, minlength=k)


def _robust(terms: np.ndarray, groups: np.ndarray) -> float:
    """Two-sided p-value of the summed ``terms`` (n,) or (n, K) against 0, with their
    variance summed over ``groups`` (the items or clusters labelled together): the
    score test that stays valid when whole prompts were labelled at once.
    """
    _, g = np.unique(groups, return_inverse=True)
    t2 = terms.reshape(terms.shape[0], -1)
    sums = np.stack([np.bincount(g, weights=c) for c in t2.T], axis=1)
    u = t2.sum(0)
    v = sums.T @ sums
    if t2.shape[1] == 1:
        return math.erfc(abs(u[0]) / math.sqrt(2 * v[0, 0])) if v[0, 0] > 0 else math.nan
    stat = float(u @ np.linalg.pinv(v) @ u)
    rank = np.linalg.matrix_rank(v)
    return float(stats.chi2.sf(stat, rank)) if rank else math.nan


def _numeric(x: np.ndarray, lab: np.ndarray, cell: np.ndarray, groups=None) -> dict | None:
    """Van Elteren's stratified rank-sum test of ``x`` between labelled and not (numpy:
    one sort by cell and value, mid-ranks for ties; fast enough to run with every fit).
    With ``groups`` its variance is summed over them (:func:`_robust`).
    """
    k = int(cell.max()) + 1 if cell.size else 0
    size = np.bincount(cell, minlength=k).astype(float)
    n1 = np.bincount(cell, weights=lab, minlength=k)
    use = (n1 > 0) & (n1 < size)
    if not use.any():
        return None
    rank, ties_all = _ranks(x, cell)
    w = np.bincount(cell, weights=rank * lab, minlength=k)[use]
    ties = ties_all[use]
    n, m = size[use], n1[use]
    n0 = n - m
    var = m * n0 / 12 * ((n + 1) - ties / (n * (n - 1)))
    wt = 1 / (n + 1)
    v = float(np.sum(wt**2 * var))
    if not v > 0:
        return None
    z = float(np.sum(wt * (w - m * (n + 1) / 2)) / np.sqrt(v))
    p = math.erfc(abs(z) / math.sqrt(2))
    if groups is not None:
        ok = use[cell]
        c = cell[ok]
        pi = (n1 / np.maximum(size, 1))[c]
        terms = (lab[ok] - pi) * (rank[ok] - (size[c] + 1) / 2) / (size[c] + 1)
        p = _robust(terms, groups[ok])
    # mean rank of the labelled minus the unlabelled, as a share of the cell's size
    gap = (w / m - (n * (n + 1) / 2 - w) / n0) / n
    return {
        "observed": float(np.sum(m * gap) / np.sum(m)),
        "p_raw": p,
        "n": int(np.sum(m)),
        "test": "van Elteren rank sum" + (", variance over items" if groups is not None else ""),
    }


def _linear(x: np.ndarray, lab: np.ndarray, cell: np.ndarray, groups=None) -> dict | None:
    """The labelled items' summed position against its permutation distribution within
    the cells (exact mean and variance, normal tail): for the order, whose values are
    positions already, no sort is needed.
    """
    k = int(cell.max()) + 1 if cell.size else 0
    # one key per (cell, labelled): three passes give the counts and both sums split by
    # labelled, instead of five over the cells
    key = 2 * cell + lab
    c = np.bincount(key, minlength=2 * k).reshape(k, 2).astype(float)
    sx = np.bincount(key, weights=x, minlength=2 * k).reshape(k, 2)
    n, m = c.sum(1), c[:, 1]
    s1, lx = sx.sum(1), sx[:, 1]
    s2 = np.bincount(cell, weights=x * x, minlength=k)
    use = (m > 0) & (m < n)
    if not use.any():
        return None
    if groups is not None:  # the same sums' score terms, their variance over the groups
        ok = use[cell]
        c = cell[ok]
        terms = (lab[ok] - m[c] / n[c]) * (x[ok] - s1[c] / n[c])
    n, m, s1, s2, lx = n[use], m[use], s1[use], s2[use], lx[use]
    var = m * (n - m) / (n * (n - 1)) * (s2 - s1 * s1 / n)
    v = float(var.sum())
    if not v > 0:
        return None
    z = float((lx - m * s1 / n).sum()) / math.sqrt(v)
    p = math.erfc(abs(z) / math.sqrt(2)) if groups is None else _robust(terms, groups[ok])
    gap = (lx / m - (s1 - lx) / (n - m)) / (x.max() - x.min())
    return {
        "observed": float(np.sum(m * gap) / np.sum(m)),
        "p_raw": p,
        "n": int(m.sum()),
        "test": "permutation z of the summed order"
        + (", variance over items" if groups is not None else ""),
    }


def _categorical(x: np.ndarray, lab: np.ndarray, cell: np.ndarray, groups=None) -> dict | None:
    """Summed per-cell chi-square tests of labelled x category; with ``groups``, the score
    test of the labelled share by category with its variance summed over them.
    """
    code, cats = pd.factorize(x)
    cells, cell = np.unique(cell, return_inverse=True)
    tab = np.zeros((cells.size, 2, len(cats)))
    np.add.at(tab, (cell, lab.astype(int), code), 1)
    chi2, dof, far, n = 0.0, 0, 0.0, 0
    for t in tab:
        t = t[:, t.sum(0) > 0]
        if t.shape[1] < 2 or not t.sum(1).all():
            continue
        res = stats.chi2_contingency(t, correction=False)
        chi2, dof = chi2 + res.statistic, dof + res.dof
        share = t / t.sum(1, keepdims=True)
        far = max(far, float(np.max(np.abs(share[1] - share[0]))))
        n += int(t[1].sum())
    if dof == 0:
        return None
    p = float(stats.chi2.sf(chi2, dof))
    if groups is not None:
        size = np.bincount(cell).astype(float)
        pi = (np.bincount(cell, weights=lab) / size)[cell]
        onehot = np.eye(len(cats))[code]
        share = np.stack([np.bincount(cell, weights=o) for o in onehot.T], 1) / size[:, None]
        p = _robust((lab - pi)[:, None] * (onehot - share[cell]), groups)
    return {
        "observed": far,
        "p_raw": p,
        "n": n,
        "test": "chi-square, summed over cells"
        + (", variance over items" if groups is not None else ""),
    }


def _rows(covariates: bool):
    def run(study, fit=None, *, alpha: float) -> list[dict]:
        d = study.data
        columns = {} if d.weights is not None else columns_of(d, covariates)
        if not columns:
            return []
        lab, cell = d.labelled, d.cell
        groups = d.item if d.item is not None else d.cluster
        orders = {d.columns.get("order") or ORDER}
        # several systems whose rows may answer the same prompts, unsaid: one row per
        # system (Holm over them holds whatever the dependence between systems)
        parts = [(None, None)]  # None: every row
        if groups is None and len(d.systems) > 1:
            parts = [(s, d.system == i) for i, s in enumerate(d.systems)]
        rows = []
        for name, x in columns.items():
            x = np.asarray(x)
            numeric = x.dtype.kind in "fiub"
            test = _categorical if not numeric else _linear if name in orders else _numeric
            # integers are never missing; with nothing missing the rows are used as they are
            # (the row order, on every fit: no mask, no copies)
            given = None if x.dtype.kind in "iub" else np.isfinite(x) if numeric else pd.notna(x)
            for system, part in parts:
                ok = given if part is None else part if given is None else part & given
                if ok is None or ok.all():
                    res = test(x, lab, cell, groups)
                else:
                    res = test(x[ok], lab[ok], cell[ok], None if groups is None else groups[ok])
                if res is not None:
                    unit = name if system is None else f"{name}{BY_SYSTEM}{system!r}"
                    rows.append({"unit": unit, "expected": 0.0, **res})
        return rows

    return run


def _conditions_on_covariates(study, fit) -> bool:
    return fit.method in ("laplace", "nuts") and study.data.covariates is not None


CHECK = register(
    Check(
        "labelling",
        _rows(covariates=False),
        applies_to=("items",),
        assumption="labelled items are a random choice within each system x stratum x "
        "verdict cell: labelling did not follow the row order (when each item was judged) "
        "or the columns named by design_columns=",
    )
)
CHECK_COVARIATES = register(
    Check(
        COVARIATES,
        _rows(covariates=True),
        applies_to=("items",),
        assumption="labelled items are a random choice within each system x stratum x "
        "verdict cell with respect to the covariates (the covariate model conditions on "
        "them: for it, labelling may depend on them)",
        tests=lambda study, fit: not _conditions_on_covariates(study, fit),
    )
)


def flags(study, alpha: float = 0.01) -> dict[str, list[tuple[str, float]]]:
    """(column, Holm p-value) of every column each labelling check flags on ``study``
    (the checks' rows without their tables: this runs with every fit).
    """
    out = {}
    for check in (CHECK, CHECK_COVARIATES):
        rows = check.run(study, alpha=alpha)
        p = holm([r["p_raw"] for r in rows])
        out[check.name] = [(r["unit"], float(q)) for r, q in zip(rows, p, strict=True) if q < alpha]
    return out


def relevant_flags(study, flagged: dict, method: str) -> list[tuple[str, float]]:
    """The flags of :func:`flags` that bear on a fit by ``method``."""
    out = list(flagged.get(CHECK.name, []))
    if not (method in ("laplace", "nuts") and study.data.covariates is not None):
        out += flagged.get(COVARIATES, [])
    return out


def remedy(study, flagged: list[tuple[str, float]], method: str) -> str:
    """The note a fit carries when labelling followed ``flagged`` columns."""
    d = study.data
    names = list(dict.fromkeys(c.split(BY_SYSTEM)[0] for c, _ in flagged))
    said = ", ".join(f"{c} (p = {p:.2g})" for c, p in flagged)
    cols = [c for c in names if c != ORDER]
    if ORDER in names:  # the row order is no column: name one that holds it
        cols.append("position")
    ok = [f"labelled_by={cols!r} (strata by the columns' quintiles: every method)"]
    if ORDER in names:
        ok[0] += (
            "; the row order as a column: frame.assign(position=range(len(frame))), or a "
            "column of when each item was judged"
        )
    numeric = [c for c in names if c in d.covariate_names or c in d.design]
    if numeric and not (method in ("laplace", "nuts") and d.covariates is not None):
        ok.append(f"covariates={numeric!r} (the covariate model, NUTS)")
    return (
        f"labelling is not at random within the system x stratum x verdict cells: "
        f"labelled and unlabelled items differ in {said}; method {method!r} assumes they do "
        f"not, so its interval may miss. Valid under this design: {'; '.join(ok)}"
    )


def by_verdict(data) -> tuple[float, str]:
    """Did the labelling depend on the verdict?  Holm's smallest adjusted p-value over the
    system x stratum cells of an exact test of labelled x verdict category (Fisher's for
    two categories, else the chi-square), and the cell whose labelled shares differ most,
    in words (estimators that take labels as a simple random sample within strata, PPI
    and the labels' mean, are biased when it did).  Exact, because a few labels drawn at
    random from a cell with few items of one verdict give the chi-square false alarms.
    """
    n_cat = data.n_judges + 1
    cell = data.system * len(data.strata) + data.stratum
    k = int(cell.max()) + 1
    code = cell * n_cat + data.category
    n = np.bincount(code, minlength=k * n_cat).reshape(k, n_cat).astype(float)
    m = np.bincount(code, weights=data.labelled, minlength=k * n_cat).reshape(k, n_cat)
    ps, worst, words = [], 0.0, ""
    for c in range(k):
        keep = n[c] > 0
        if keep.sum() < 2 or not 0 < m[c].sum() < n[c].sum():
            continue
        table = np.stack([m[c][keep], n[c][keep] - m[c][keep]])
        if table.shape[1] == 2:
            ps.append(float(stats.fisher_exact(table.astype(np.int64)).pvalue))
        else:
            ps.append(float(stats.chi2_contingency(table, correction=False).pvalue))
        share = m[c][keep] / n[c][keep]
        if share.max() - share.min() > worst:
            worst = share.max() - share.min()
            s, t = divmod(c, len(data.strata))
            where = f"system {data.systems[s]!r}" + (
                f", stratum {data.strata[t]!r}" if len(data.strata) > 1 else ""
            )
            cats = np.flatnonzero(keep)
            words = f"{where}: " + ", ".join(
                f"{share[j]:.0%} of verdict {cats[j]}" for j in range(share.size)
            )
    return (float(np.min(holm(ps))) if ps else 1.0), words
