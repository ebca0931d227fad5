"""One reader per role of a scores frame: the judges' scores (numbers, or a
probability per level), the human labels and their scale, the periods.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import (
    column_names,
    finite_values,
    group_labels,
    label_probabilities,
    numeric_column,
    require_column,
    time_periods,
)
from judgebayes.data.items.roles import (
    LABELLED_BY_BINS,
    design_values,
    strata_by,
    strata_columns,
)
from judgebayes.errors import InputError, unknown_keyword


@dataclass(frozen=True, kw_only=True)
class ScoreRoles:
    """The columns of a scores frame and how to read them: what
    :func:`~judgebayes.data.scores.frame.scores_from_frame` takes (``ScoreStudy.from_items``
    passes its keywords here).

    Parameters
    ----------
    score : str, list of str or dict
        The judge's score column; several judges' columns (a row without every judge's
        score is excluded and counted); or ``{judge: [p_1, ..., p_K]}``: a judge that
        gives a probability over the levels ``levels`` (default 1..K), read as its
        expected level.
    human : str or list of str
        The human label (blank = unlabelled), or several raters' columns (averaged over
        the raters who rated the row; a row with none is unlabelled).
    system, item, cluster : str, optional
        The system that produced the output; the prompt it answers (the same value across
        systems pairs their contrasts; one row per (item, system)); clusters of
        correlated rows (several outputs for one prompt).
    scale : (low, high), optional
        The judge's scale (e.g. ``(1, 10)``); a score outside it is an error.  Default:
        the observed range.
    human_scale : (low, high), optional
        The human label's scale; default the observed range ((0, 1) for passes).
    threshold : float, optional
        A Likert human label at or above it is a pass (1), below it a fail (0): the
        quantity becomes a pass rate.
    levels : sequence of float, optional
        The levels of a probability-vector judge.
    time, freq : str, optional
        The period of each row (numbers, timestamps and text in time order:
        :func:`~judgebayes.data.frames.period_codes`); ``freq`` (``"D"``, ``"W"``,
        ``"M"``) buckets timestamps.  Not with ``item=``.
    label_prob : str, optional
        Each row's probability of being drawn for a human label, known to the user (labels
        drawn more often on some scores, systems or periods); the residual means are then
        weighted by its inverse.  With ``item=`` the contrasts are paired (an item's rows
        may be drawn together or apart); with ``cluster=`` the process variance is
        cluster-robust (:mod:`judgebayes.inference.scores.weighted`).
    labelled_by : str, list of str or dict, optional
        Columns the labelling followed at rates the user does not know (the judge's score,
        a length, a source): each system's rows are cut into strata by them (a text
        column's values; five quantile bins of a numeric one, or ``{column: bins}``), the
        labels are taken as random within a stratum, and the residual means are weighted
        by each stratum's rows over its labels.  Not with ``label_prob=``, ``item=`` or
        ``cluster=``.
    """

    score: str | list[str] | dict = "score"
    human: str | list[str] = "human"
    system: str | None = None
    item: str | None = None
    cluster: str | None = None
    scale: tuple[float, float] | None = None
    human_scale: tuple[float, float] | None = None
    threshold: float | None = None
    levels: Any = None
    time: str | None = None
    freq: str | None = None
    label_prob: str | None = None
    labelled_by: str | list[str] | dict | None = None

    @classmethod
    def of(cls, where: str, keywords: Mapping[str, Any]) -> ScoreRoles:
        """The roles given as ``keywords``; one the frame has not is an
        :class:`~judgebayes.errors.InputError` naming it and listing the roles.
        """
        unknown_keyword(where, keywords, {f.name for f in fields(cls)})
        return cls(**keywords)


def named_columns(value, field: str) -> tuple[str, ...]:
    """The column names ``value`` gives for ``field`` (one name or several), each text."""
    names = column_names(value, field)
    if not all(isinstance(n, str) for n in names):
        raise InputError(f"{field} must name columns; got {value!r}", field=field, value=value)
    return names


def require_scores_column(df, col, what: str, field: str) -> None:
    """An error naming ``col`` (``what`` it holds, the keyword ``field``) when the
    scores frame lacks it.
    """
    require_column(df, col, what, field, frame="scores")


def require_in_scale(x: np.ndarray, scale, name: str, param: str) -> None:
    """An :class:`InputError` naming the column ``name`` when a value of ``x`` (blanks
    aside) lies outside ``scale`` (the argument ``param``).
    """
    out = ~np.isnan(x) & ((x < scale[0]) | (x > scale[1]))
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise InputError(
            f"{name}: {x[i]:g} in row {i} is outside {param}={tuple(scale)}",
            field=name,
            value=float(x[i]),
        )


def observed_scale(labels: np.ndarray) -> tuple[float, float]:
    """The human labels' observed (low, high), widened to include 0 and 1 when they all
    agree (a scale needs a span).
    """
    lo, hi = float(labels.min()), float(labels.max())
    return (min(lo, 0.0), max(hi, 1.0)) if lo == hi else (lo, hi)


def read_scale(value, field: str) -> tuple[float, float] | None:
    """A scale keyword ``field`` as (low, high) with low < high, or None when not given."""
    if value is None:
        return None
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InputError(
            f"{field} must be (low, high), two numbers; got {value!r}", field=field, value=value
        ) from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InputError(
            f"{field} must be (low, high) with low < high; got {value!r}",
            field=field,
            value=value,
        )
    return lo, hi


def _probability_judge(df, name: str, cols, levels) -> tuple[np.ndarray, np.ndarray]:
    cols = named_columns(cols, "score")
    for c in cols:
        require_scores_column(df, c, f"judge {name!r}'s probability of a level", "score")
    p = np.column_stack([numeric_column(df[c], c) for c in cols])
    lv = np.arange(1, len(cols) + 1, dtype=float) if levels is None else np.asarray(levels, float)
    if lv.shape != (len(cols),) or not np.all(np.diff(lv) > 0):
        raise InputError(
            f"levels must be {len(cols)} increasing numbers, one per probability column of "
            f"judge {name!r}; got {levels!r}",
            field="levels",
            value=levels,
        )
    ok = ~np.isnan(p).any(1)
    bad = ok & ((p < -1e-9).any(1) | (np.abs(p.sum(1) - 1) > 0.02))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"judge {name!r}: row {i}'s probabilities {p[i].round(4).tolist()} are not a "
            f"distribution over the levels (each >= 0, summing to 1 within 0.02; "
            f"{int(bad.sum())} such row(s))",
            field="score",
            value=name,
        )
    p = np.where(ok[:, None], np.clip(p, 0, None), np.nan)
    p = p / p.sum(1, keepdims=True)
    return lv, p


def read_periods(df, time, freq, item, keep, labelled, system, systems):
    """``time=``: the period codes of the kept rows and the periods' names; not with
    ``item=``, and each (system, period) with rows holds 2 labelled rows or more.
    """
    periods = time_periods(df, time, freq, frame="scores")
    if periods is None:
        return None, ()
    if item is not None:
        raise InputError(
            f"time={time!r} and item={item!r} together: paired contrasts across periods are "
            "not built; give one of them",
            field="time",
            value=time,
        )
    codes, names = periods[0][keep], periods[1]
    ns = len(systems)
    cell = codes * ns + system
    rows = np.bincount(cell, minlength=len(names) * ns)
    labs = np.bincount(cell[labelled], minlength=len(names) * ns)
    short = np.flatnonzero((rows > 0) & (labs < 2))
    if short.size:
        p, k = divmod(int(short[0]), ns)
        raise InputError(
            f"column {time!r}: system {systems[k]!r} has {int(labs[short[0]])} labelled row(s) "
            f"in period {names[p]!r} ({short.size} such (system, period) cell(s)); the "
            "calibration is fitted within each period and needs 2 or more: label more rows "
            "there, or use a coarser freq=",
            field=time,
            value=names[p],
        )
    return codes, tuple(names)


@dataclass(frozen=True)
class JudgedScores:
    """The score role: each row's score from each judge (NaN: missing), the judges' names,
    the frame's columns they were read from, and the judges that gave a probability per
    level (their levels and probabilities; the score is their expectation).
    """

    scores: np.ndarray
    judges: tuple[str, ...]
    columns: tuple[str, ...]
    probabilities: dict


def read_scores(df, score, levels) -> JudgedScores:
    """``score=``: a column, several judges' columns, or ``{judge: column or probability
    columns}``.
    """
    if not isinstance(score, dict):
        judges = named_columns(score, "score")
        for j in judges:
            require_scores_column(df, j, "a judge's score", "score")
        return JudgedScores(
            np.column_stack([numeric_column(df[j], j) for j in judges]), judges, judges, {}
        )
    if not score:
        raise InputError("score must name a judge's column(s); got {}", field="score", value={})
    cols, names, columns, probabilities = [], [], [], {}
    for name, pcols in score.items():
        columns += [pcols] if isinstance(pcols, str) else list(pcols)
        if isinstance(pcols, str):
            require_scores_column(df, pcols, f"judge {name!r}'s score", "score")
            cols.append(numeric_column(df[pcols], pcols))
        else:
            lv, p = _probability_judge(df, str(name), pcols, levels)
            probabilities[str(name)] = (lv, p)
            cols.append(p @ lv)
        names.append(str(name))
    return JudgedScores(np.column_stack(cols), tuple(names), tuple(columns), probabilities)


def read_labels(df, raters: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The human label of each row (the raters' mean; NaN: none) and how many rated it."""
    hm = np.column_stack([numeric_column(df[r], r) for r in raters])
    n_raters = (~np.isnan(hm)).sum(1)
    h = np.where(n_raters > 0, np.nansum(hm, 1) / np.maximum(n_raters, 1), np.nan)
    return h, n_raters


def check_scores(s: np.ndarray, judges: tuple[str, ...], scale) -> None:
    """Every score finite (or missing) and, with ``scale=``, inside it."""
    finite = np.isfinite(s) | np.isnan(s)
    if not finite.all():
        i = int(np.flatnonzero(~finite.all(1))[0])
        raise InputError(
            f"score: row {i} is not finite ({s[i].tolist()})", field="score", value=str(s[i])
        )
    if scale is not None:
        out = ~np.isnan(s) & ((s < scale[0]) | (s > scale[1]))
        if out.any():
            i, k = (int(v[0]) for v in np.nonzero(out))
            raise InputError(
                f"score {judges[k]!r}: {s[i, k]:g} in row {i} is outside scale={scale} "
                f"({int(out.sum())} such value(s)); a failure code is not a score: blank "
                "those rows (they are then counted as missing)",
                field="score",
                value=float(s[i, k]),
            )


def passes(h: np.ndarray, threshold, human_scale) -> tuple[np.ndarray, tuple[float, float]]:
    """The labels as passes (label >= ``threshold``: 1) on the scale (0, 1)."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise InputError(
            f"threshold must be a number; got {threshold!r}", field="threshold", value=threshold
        )
    seen = ~np.isnan(h)
    span = human_scale or (observed_scale(h[seen]) if seen.any() else None)
    if span is not None and not span[0] < threshold <= span[1]:
        raise InputError(
            f"threshold={threshold:g} lies outside the human labels' scale {span} "
            f"({'given' if human_scale else 'observed'}): every label would be one class. A "
            "pass is a label >= threshold; give human_scale= if the scale is wider than seen",
            field="threshold",
            value=threshold,
        )
    return np.where(np.isnan(h), np.nan, (h >= threshold).astype(float)), (0.0, 1.0)


def score_scale(kept: np.ndarray, scale, n_judges: int) -> np.ndarray:
    """Each judge's (low, high): ``scale=``, or the kept scores' range."""
    if scale is not None:
        return np.tile(np.asarray(scale, float), (n_judges, 1))
    lo, hi = np.nanmin(kept, 0), np.nanmax(kept, 0)
    return np.column_stack([lo, np.where(hi > lo, hi, lo + 1)])


def kept_codes(df, col: str | None, role: str, keep: np.ndarray) -> np.ndarray | None:
    """A grouping column's codes on the kept rows (None without the column)."""
    if col is None:
        return None
    c, _ = pd.factorize(group_labels(df[col], col, role)[keep], sort=False)
    return c.astype(np.int64)


def read_label_prob(df, col: str | None, labelled: np.ndarray) -> np.ndarray | None:
    """Each labelled row's inverse labelling probability from column ``col`` (``None``
    without it; NaN on unlabelled rows): the probability, known to the user, with which the
    row was drawn for a human label, in (0, 1] on every labelled row.
    """
    if col is None:
        return None
    require_scores_column(df, col, "the labelling probability", "label_prob")
    p = label_probabilities(df[col], col, labelled)
    return np.where(labelled, 1.0 / np.where(labelled, p, 1.0), np.nan)


def read_labelled_by(df, labelled_by, labelled: np.ndarray, keep: np.ndarray, group, name):
    """``labelled_by=``: the labelling followed these columns, at rates the user does not
    know.  Each group's rows (a system, or a system in a period) are cut into strata (a
    text column's values, quintiles of a numeric one, or ``{column: bins}``), labels are
    taken as random within a stratum, and each labelled row weighs its stratum's rows over
    its labels, :math:`N_s / n_s`.  Where the quintiles leave a stratum without a label,
    4, 3 and then 2 bins are tried (the bins used are returned).

    ``group`` holds each row's group code (all rows), ``name(code)`` names a group.
    Returns (inverse probabilities, NaN off the labelled rows; stratum codes of the kept
    rows; the numeric columns on the kept rows, a blank filled with its group's mean, or
    None; the bins of the numeric columns).  A stratum with rows and no label at the
    fewest bins, or at the bins given, is an error.
    """
    names = list(dict.fromkeys(strata_columns(labelled_by)))
    for c in names:
        require_column(df, c, "a labelled_by column", "labelled_by")
    cols = {c: design_values(df[c], c) for c in names}
    for c, v in cols.items():
        if v.dtype != object:  # a blank is a stratum of its own; an infinity is no value
            finite_values(np.where(np.isnan(v), 0.0, v), c)
    numeric = [c for c, v in cols.items() if v.dtype != object]
    tries = [labelled_by] if isinstance(labelled_by, dict) or not numeric else []
    tries += [{c: k for c in cols} for k in range(LABELLED_BY_BINS, 1, -1) if not tries]
    for spec in tries:
        w, codes, empty = _stratum_weights(df, spec, labelled, keep, group)
        if empty is None:
            break
    else:
        names, s, n = empty
        row = int(np.flatnonzero(keep & (codes == s))[0])
        raise InputError(
            f"labelled_by={labelled_by!r}: the stratum {names[row]!r} of {name(group[row])} "
            f"has {n} row(s) and no human label, so its residual mean cannot be estimated; "
            "give fewer bins, e.g. labelled_by={column: 2}, or label a row in each",
            field="labelled_by",
            value=names[row],
        )
    x = [cols[c][keep].astype(float) for c in numeric]
    covariates = _filled(np.column_stack(x), group[keep]) if x else None
    bins = {c: int(spec.get(c, LABELLED_BY_BINS)) for c in numeric}
    return w, codes, covariates, bins


def _stratum_weights(df, spec, labelled, keep, group):
    """Weights and stratum codes (kept rows) of one cut, or the first empty stratum:
    (names, its code, its rows), with the codes of every row in place of the kept ones.
    """
    names = [str(v) for v in strata_by(df, None, spec, keep)]
    _, part = np.unique(np.array(names, dtype=object), return_inverse=True)
    code = np.asarray(group, dtype=np.int64) * (int(part.max()) + 1) + part
    n = np.bincount(code[keep], minlength=code.max() + 1)
    n_lab = np.bincount(code[keep & labelled], minlength=code.max() + 1)
    empty = np.flatnonzero((n > 0) & (n_lab == 0))
    if empty.size:
        return None, code, (names, int(empty[0]), int(n[empty[0]]))
    _, codes = np.unique(code[keep], return_inverse=True)
    w = np.where(labelled, n[code] / np.maximum(n_lab[code], 1), np.nan)
    return w, codes.astype(np.int64), None


def _filled(x: np.ndarray, group: np.ndarray) -> np.ndarray:
    """``x`` with each blank replaced by its group's mean (0 where the group has none)."""
    out = x.copy()
    for j in range(x.shape[1]):
        bad = np.isnan(x[:, j])
        if bad.any():
            ok = ~bad
            n = np.bincount(group[ok], minlength=group.max() + 1)
            m = np.bincount(group[ok], weights=x[ok, j], minlength=group.max() + 1)
            out[bad, j] = np.where(n > 0, m / np.maximum(n, 1), 0.0)[group[bad]]
    return out
