r"""Judges that give scores: one frame, every item scored, some rated by humans.

The scores design is the items design (:mod:`judgebayes.data.items`) with a number where
the verdict was: a judge's 1-10 grade, a probability-weighted grade from its logprobs, a
reward model's score.  The human label of a labelled row is 0/1, a Likert level or a
number (several raters' columns are averaged); a blank human label means *unlabelled*.
The quantity is each system's mean human label (a pass rate when the labels are 0/1, or
when ``threshold=`` turns Likert levels into passes).

Rows without a score from every judge are not evaluated items: they are counted per
system in ``n_missing`` and reported by every fit, never dropped silently.  A score
outside the declared ``scale`` (an error code averaged into a grade) is an error that
names it: blank it, and it is counted as missing.

With ``time=`` (a period or timestamp column, ``freq=`` to bucket timestamps) every
(system, period) that has rows needs 2 labelled rows or more: the closed form calibrates
within each period, since a judge's score can mean something else after a version change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import (
    as_pandas,
    column_names,
    distinct_roles,
    group_labels,
    numeric_column,
    require_column,
    time_periods,
)
from judgebayes.errors import InputError

__all__ = ["ScoreData", "scores_from_frame"]


@dataclass(frozen=True)
class ScoreData:
    """Validated item-level data of the scores design.

    Attributes
    ----------
    score : ndarray of float, shape (N, J)
        Each judge's score (a probability vector's expected level).
    human : ndarray of float, shape (N,)
        The human label (the raters' mean, or 0/1 after ``threshold``); NaN = unlabelled.
    system : ndarray of int, shape (N,)
        Codes into :attr:`systems`.
    item, cluster : ndarray of int, shape (N,), or None
        The prompt each row answers (pairs systems) and clusters of correlated rows.
    period : ndarray of int, shape (N,), or None
        Codes into :attr:`periods` (``time=``), in time order.
    systems, judges : tuple of str
    score_scale : ndarray, shape (J, 2)
        Each judge's (low, high): ``scale=`` or the observed range.
    human_scale : tuple of float
        The human label's (low, high): ``human_scale=``, (0, 1) after ``threshold``, or
        the observed range.
    n_missing : ndarray of int
        Rows per system without every judge's score (excluded).
    n_raters : ndarray of int, shape (N,)
        Human ratings behind each label (0 on unlabelled rows).
    probabilities : dict
        Judge name -> (levels, (N, K) probabilities) for judges given as a probability
        vector over levels.
    columns : dict
        Column names given, for messages.
    rows : ndarray
        The frame's index labels of the kept rows.
    """

    score: np.ndarray
    human: np.ndarray
    system: np.ndarray
    systems: tuple[str, ...]
    judges: tuple[str, ...]
    score_scale: np.ndarray
    human_scale: tuple[float, float]
    n_missing: np.ndarray
    n_raters: np.ndarray
    columns: dict
    rows: np.ndarray
    item: np.ndarray | None = None
    cluster: np.ndarray | None = None
    probabilities: Any = None
    threshold: float | None = None
    period: np.ndarray | None = None
    periods: tuple[str, ...] = ()

    @property
    def labelled(self) -> np.ndarray:
        """Rows with a human label."""
        return ~np.isnan(self.human)

    @property
    def n_judges(self) -> int:
        """How many judges scored each row."""
        return self.score.shape[1]

    @property
    def binary(self) -> bool:
        """Whether the human label is 0/1 (a pass rate)."""
        h = self.human[self.labelled]
        return bool(np.all((h == 0) | (h == 1)))

    def summary(self) -> pd.DataFrame:
        """Items, labelled items, mean score per judge, mean human label, missing rows."""
        lab = self.labelled
        ns = len(self.systems)
        n = np.bincount(self.system, minlength=ns)
        nl = np.bincount(self.system[lab], minlength=ns)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = {
                "n_items": n,
                "n_labelled": nl,
                **{
                    f"mean_score[{j}]": np.bincount(
                        self.system, weights=self.score[:, k], minlength=ns
                    )
                    / n
                    for k, j in enumerate(self.judges)
                },
                "mean_human_labelled": np.bincount(
                    self.system[lab], weights=self.human[lab], minlength=ns
                )
                / nl,
                "n_missing": self.n_missing,
            }
        return pd.DataFrame(out, index=pd.Index(self.systems, name="system"))


def _names(value, field: str) -> tuple[str, ...]:
    names = column_names(value, field)
    if not all(isinstance(n, str) for n in names):
        raise InputError(f"{field} must name columns; got {value!r}", field=field, value=value)
    return names


def _column(df, col, what: str, field: str) -> None:
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


def _scale(value, field: str) -> tuple[float, float] | None:
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
    cols = _names(cols, "score")
    for c in cols:
        _column(df, c, f"judge {name!r}'s probability of a level", "score")
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


def scores_from_frame(
    items,
    *,
    score: str | list[str] | dict = "score",
    human: str | list[str] = "human",
    system: str | None = None,
    item: str | None = None,
    cluster: str | None = None,
    scale: tuple[float, float] | None = None,
    human_scale: tuple[float, float] | None = None,
    threshold: float | None = None,
    levels: Any = None,
    time: str | None = None,
    freq: str | None = None,
) -> ScoreData:
    """Validate one scores frame (module docstring) into :class:`ScoreData`.

    Parameters
    ----------
    items : pandas.DataFrame or polars.DataFrame
        One row per judged output.
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
        The period of each row (numbers and timestamps in time order, text sorted);
        ``freq`` (``"D"``, ``"W"``, ``"M"``) buckets timestamps.  Not with ``item=``.

    Raises
    ------
    InputError
        A missing column, a value that is not a number, a score outside ``scale``, a blank
        group value, a repeated (item, system), no labelled row, or with ``time=`` a
        blank period or a (system, period) with rows and fewer than 2 labelled ones.
    """
    df = as_pandas(items, "items")
    if len(df) == 0:
        raise InputError("the scores frame has no rows", field="items", value=0)
    probabilities = {}
    if isinstance(score, dict):
        if not score:
            raise InputError("score must name a judge's column(s); got {}", field="score", value={})
        cols, names, score_cols = [], [], []
        for name, pcols in score.items():
            score_cols += [pcols] if isinstance(pcols, str) else list(pcols)
            if isinstance(pcols, str):
                _column(df, pcols, f"judge {name!r}'s score", "score")
                cols.append(numeric_column(df[pcols], pcols))
            else:
                lv, p = _probability_judge(df, str(name), pcols, levels)
                probabilities[str(name)] = (lv, p)
                cols.append(p @ lv)
            names.append(str(name))
        s = np.column_stack(cols)
        judges = tuple(names)
    else:
        judges = score_cols = _names(score, "score")
        for j in judges:
            _column(df, j, "a judge's score", "score")
        s = np.column_stack([numeric_column(df[j], j) for j in judges])
    raters = _names(human, "human")
    for r in raters:
        _column(df, r, "a human label", "human")
    roles = {"system": system, "item": item, "cluster": cluster}
    extra_cols = {"time": time} if time is not None else {}
    for role, col in roles.items():
        if col is not None:
            _column(df, col, f"the {role} column", role)
    distinct_roles({"score": score_cols, "human": raters}, {**roles, "time": time})
    hm = np.column_stack([numeric_column(df[r], r) for r in raters])
    n_raters = (~np.isnan(hm)).sum(1)
    h = np.where(n_raters > 0, np.nansum(hm, 1) / np.maximum(n_raters, 1), np.nan)
    sc = _scale(scale, "scale")
    finite = np.isfinite(s) | np.isnan(s)
    if not finite.all():
        i = int(np.flatnonzero(~finite.all(1))[0])
        raise InputError(
            f"score: row {i} is not finite ({s[i].tolist()})", field="score", value=str(s[i])
        )
    if sc is not None:
        out = ~np.isnan(s) & ((s < sc[0]) | (s > sc[1]))
        if out.any():
            i, k = (int(v[0]) for v in np.nonzero(out))
            raise InputError(
                f"score {judges[k]!r}: {s[i, k]:g} in row {i} is outside scale={sc} "
                f"({int(out.sum())} such value(s)); a failure code is not a score: blank "
                "those rows (they are then counted as missing)",
                field="score",
                value=float(s[i, k]),
            )
    hs = _scale(human_scale, "human_scale")
    if hs is not None:
        require_in_scale(h, hs, "human", "human_scale")
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise InputError(
                f"threshold must be a number; got {threshold!r}",
                field="threshold",
                value=threshold,
            )
        span = hs or (observed_scale(h[~np.isnan(h)]) if (~np.isnan(h)).any() else None)
        if span is not None and not span[0] < threshold <= span[1]:
            raise InputError(
                f"threshold={threshold:g} lies outside the human labels' scale {span} "
                f"({'given' if hs else 'observed'}): every label would be one class. A pass "
                "is a label >= threshold; give human_scale= if the scale is wider than seen",
                field="threshold",
                value=threshold,
            )
        h = np.where(np.isnan(h), np.nan, (h >= threshold).astype(float))
        hs = (0.0, 1.0)
    sys_series = (
        pd.Series(["all"] * len(df), index=df.index)
        if system is None
        else group_labels(df[system], system, "system")
    )
    sys_codes, systems = pd.factorize(sys_series, sort=False)
    systems = tuple(map(str, systems))
    keep = ~np.isnan(s).any(1)
    n_missing = np.bincount(sys_codes[~keep], minlength=len(systems)).astype(np.int64)
    if not keep.any():
        raise InputError("no row has every judge's score", field="score", value=list(judges))
    lab = ~np.isnan(h) & keep
    if not lab.any():
        raise InputError(
            f"no scored row has a human label in {list(raters)}: the judge's scores cannot "
            "be calibrated to humans without some",
            field="human",
            value=list(raters),
        )
    if hs is None:
        hs = observed_scale(h[lab])
    if sc is None:
        lo, hi = np.nanmin(s[keep], 0), np.nanmax(s[keep], 0)
        score_scale = np.column_stack([lo, np.where(hi > lo, hi, lo + 1)])
    else:
        score_scale = np.tile(np.asarray(sc, float), (len(judges), 1))
    codes = {}
    for role in ("item", "cluster"):
        col = roles[role]
        if col is None:
            codes[role] = None
            continue
        c, _ = pd.factorize(group_labels(df[col], col, role)[keep], sort=False)
        codes[role] = c.astype(np.int64)
    if codes["item"] is not None:
        pair = codes["item"] * len(systems) + sys_codes[keep]
        dup = pd.Series(pair).duplicated().to_numpy()
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise InputError(
                f"column {item!r}: item {df[item].to_numpy()[keep][i]!r} appears twice for "
                f"one system (one row per item and system; average repeated judgements first)",
                field="item",
                value=str(df[item].to_numpy()[keep][i]),
            )
    period, periods = _periods(df, time, freq, item, keep, lab[keep], sys_codes[keep], systems)
    return ScoreData(
        score=s[keep],
        human=h[keep],
        system=sys_codes[keep].astype(np.int64),
        systems=systems,
        judges=judges,
        score_scale=score_scale,
        human_scale=(float(hs[0]), float(hs[1])),
        n_missing=n_missing,
        n_raters=n_raters[keep],
        columns={"score": score, "human": human, **roles, **extra_cols},
        rows=df.index.to_numpy()[keep],
        item=codes["item"],
        cluster=codes["cluster"],
        probabilities={k: (lv, p[keep]) for k, (lv, p) in probabilities.items()} or None,
        threshold=None if threshold is None else float(threshold),
        period=period,
        periods=periods,
    )


def _periods(df, time, freq, item, keep, labelled, system, systems):
    """Period codes of the kept rows and the periods' names (``time=``), checked."""
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
