"""Counts from frames: the test and calibration frames, the K-class frames, and the
calibration split of one labelled frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy.counts import CalibrationCounts, MulticlassCounts, TestCounts
from judgebayes.data.accuracy.labels import ALL, is_missing, normalize_labels
from judgebayes.data.frames import as_pandas, group_labels
from judgebayes.errors import (
    EmptyClassError,
    InputError,
    LabelError,
)


# ------------------------------------------------------------------ frames -> counts
def require_columns(df: pd.DataFrame, cols: dict[str, str | None], frame: str) -> None:
    """Every column named in ``cols`` (role -> column; None: not used) is in ``df``, or a
    typed error naming the role, the column and the frame's columns.
    """
    for role, col in cols.items():
        if col is not None and col not in df.columns:
            raise InputError(
                f"{frame} frame has no column {col!r} (the {role} column); "
                f"columns are {list(map(str, df.columns))}",
                field=role,
                value=col,
            )


def _group_labels(df: pd.DataFrame, col: str | None) -> np.ndarray:
    if col is None:
        return np.full(len(df), ALL, dtype=object)
    return group_labels(df[col], col, col).to_numpy(dtype=object)


def counts_from_test_frame(
    df: pd.DataFrame,
    *,
    judge: str = "judge",
    system: str | None = None,
    stratum: str | None = None,
    positive: Any = None,
    negative: Any = None,
) -> TestCounts:
    """Aggregate an item-level test frame (one row per judged item) into counts.

    Rows whose verdict is missing are counted in ``n_missing`` and excluded.
    """
    df = as_pandas(df, "test")
    require_columns(df, {"judge": judge, "system": system, "stratum": stratum}, "test")
    if len(df) == 0:
        raise InputError("test frame has no rows", field="test", value=0)
    lab = normalize_labels(df[judge], column=judge, positive=positive, negative=negative)
    sys_lab = _group_labels(df, system)
    str_lab = _group_labels(df, stratum)
    systems = tuple(dict.fromkeys(sys_lab))
    strata = tuple(dict.fromkeys(str_lab))
    si = {s: i for i, s in enumerate(systems)}
    ti = {s: i for i, s in enumerate(strata)}
    rows = np.fromiter((si[s] for s in sys_lab), dtype=np.int64, count=len(df))
    cols = np.fromiter((ti[s] for s in str_lab), dtype=np.int64, count=len(df))
    shape = (len(systems), len(strata))
    miss = lab.missing
    k = np.zeros(shape, np.int64)
    n = np.zeros(shape, np.int64)
    nm = np.zeros(shape, np.int64)
    np.add.at(k, (rows[~miss], cols[~miss]), lab.values[~miss].astype(np.int64))
    np.add.at(n, (rows[~miss], cols[~miss]), 1)
    np.add.at(nm, (rows[miss], cols[miss]), 1)
    return TestCounts(k=k, n=n, n_missing=nm, systems=systems, strata=strata)


def counts_from_calibration_frame(
    df: pd.DataFrame,
    *,
    human: str = "human",
    judge: str = "judge",
    stratum: str | None = None,
    positive: Any = None,
    negative: Any = None,
    allow_empty_classes: bool = False,
) -> CalibrationCounts:
    """Aggregate an item-level calibration frame (human label and judge verdict per row).

    A row with a missing human label or a missing verdict is counted in ``n_missing`` and
    excluded.  ``stratum`` may name a stratum or a source column; the result's ``dim`` is
    the column name.

    Raises
    ------
    EmptyClassError
        If a stratum has no truly positive or no truly negative example (with
        ``allow_empty_classes=True``, for partially pooled strata: only if no stratum has).
    """
    df = as_pandas(df, "calibration")
    require_columns(df, {"human": human, "judge": judge, "stratum": stratum}, "calibration")
    if len(df) == 0:
        raise InputError("calibration frame has no rows", field="calibration", value=0)
    h = normalize_labels(df[human], column=human, positive=positive, negative=negative)
    j = normalize_labels(df[judge], column=judge, positive=positive, negative=negative)
    g = _group_labels(df, stratum)
    strata = tuple(dict.fromkeys(g))
    miss = h.missing | j.missing
    tp, m1, tn, m0, nm = (np.zeros(len(strata), np.int64) for _ in range(5))
    for i, s in enumerate(strata):
        sel = g == s
        ok = sel & ~miss
        hv, jv = h.values[ok], j.values[ok]
        m1[i] = int((hv == 1).sum())
        m0[i] = int((hv == 0).sum())
        tp[i] = int(((hv == 1) & (jv == 1)).sum())
        tn[i] = int(((hv == 0) & (jv == 0)).sum())
        nm[i] = int((sel & miss).sum())
    checks = (
        [(ALL, m1.sum(), m0.sum())]
        if allow_empty_classes
        else list(zip(strata, m1, m0, strict=True))
    )
    for s, t1, t0 in checks:
        for cls_name, tot in (("truly positive (m1)", t1), ("truly negative (m0)", t0)):
            if tot == 0:
                where = "" if s == ALL else f" in {stratum} {s!r}"
                raise EmptyClassError(
                    f"column {human!r}: the calibration set has no {cls_name} example{where}; "
                    f"the judge's error rate on that class cannot be estimated",
                    field=human,
                    value=s,
                )
    return CalibrationCounts(
        tp=tp,
        m1=m1,
        tn=tn,
        m0=m0,
        n_missing=nm,
        strata=strata,
        dim=stratum or "stratum",
        allow_empty_classes=allow_empty_classes,
        by=stratum,
    )


def counts_from_frames(
    test_df: pd.DataFrame,
    calibration_df: pd.DataFrame,
    *,
    judge: str = "judge",
    human: str = "human",
    system: str | None = None,
    stratum: str | None = None,
    positive: Any = None,
    item: str | None = None,
) -> tuple[TestCounts, CalibrationCounts]:
    """The two frames' counts (:func:`counts_from_test_frame`,
    :func:`counts_from_calibration_frame`): with ``stratum``, the calibration's strata may
    lack a class (the pooled-strata model) and the test strata follow the calibration's.

    No item may be in both frames (its verdict would count in the test rate and in the
    judge's calibration): the same frame passed twice is refused, and ``item`` (an id
    column of both frames) makes the check item by item.
    """
    same = test_df is calibration_df
    test_df = as_pandas(test_df, "test_df")
    calibration_df = as_pandas(calibration_df, "calibration_df")
    if same:
        raise InputError(
            "the test and calibration frames are the same frame: every labelled item "
            "would count twice (in the judge's test rate and in its calibration). Pass "
            "the unlabelled items as the test frame and the labelled ones as calibration, "
            "or the one frame to AccuracyStudy.from_items (blank human label = unlabelled)",
            field="calibration_df",
            value="same frame as test_df",
        )
    if item is not None:
        _refuse_shared_items(test_df, calibration_df, item)
    test = counts_from_test_frame(
        test_df, judge=judge, system=system, stratum=stratum, positive=positive
    )
    cal = counts_from_calibration_frame(
        calibration_df,
        human=human,
        judge=judge,
        stratum=stratum,
        positive=positive,
        allow_empty_classes=stratum is not None,
    )
    if stratum is not None:
        test = _align_strata(test, cal, stratum)
    return test, cal


def _refuse_shared_items(test_df, calibration_df, item: str) -> None:
    for name, df in (("test_df", test_df), ("calibration_df", calibration_df)):
        if item not in df.columns:
            raise InputError(f"{name} has no item id column {item!r}", field=item, value=None)
    both = set(test_df[item]) & set(calibration_df[item])
    if both:
        first = sorted(map(str, both))[0]
        raise InputError(
            f"{len(both)} item(s) are in both the test and the calibration frame "
            f"(e.g. {item}={first!r}): each item belongs to one of them",
            field=item,
            value=first,
        )


def _align_strata(test: TestCounts, cal: CalibrationCounts, stratum: str) -> TestCounts:
    """The test strata in the calibration's order; a stratum missing from the test set gets
    zero counts (weight 0), one missing from calibration is an error.
    """
    missing = [s for s in test.strata if s not in cal.strata]
    if missing:
        raise InputError(
            f"stratum {missing[0]!r} appears in the test frame but not in the calibration frame",
            field=stratum,
            value=missing[0],
        )
    order = [test.strata.index(s) if s in test.strata else -1 for s in cal.strata]

    def take(a):
        out = np.zeros((a.shape[0], len(order)), np.int64)
        for j, i in enumerate(order):
            if i >= 0:
                out[:, j] = a[:, i]
        return out

    return TestCounts(
        k=take(test.k),
        n=take(test.n),
        n_missing=take(test.n_missing),
        systems=test.systems,
        strata=cal.strata,
    )


def _class_key(value) -> str:
    """A class label as text, whole numbers without ``.0`` (``2.0`` and ``2`` are one)."""
    key = str(value).strip()
    if key.endswith(".0") and key[:-2].lstrip("-").isdigit():
        key = key[:-2]
    return key


def _class_labels(series: pd.Series, classes: tuple[str, ...], column: str) -> np.ndarray:
    """Index of each label in ``classes`` (-1 where missing); unknown labels raise."""
    idx = {c: i for i, c in enumerate(classes)}
    out = np.full(len(series), -1, dtype=np.int64)
    unknown: dict[str, int] = {}
    for i, v in enumerate(series.tolist()):
        if is_missing(v):
            continue
        key = _class_key(v)
        if key in idx:
            out[i] = idx[key]
        else:
            unknown[key] = unknown.get(key, 0) + 1
    if unknown:
        val, cnt = max(unknown.items(), key=lambda t: t[1])
        raise LabelError(column, val, cnt, f"one of the classes {list(classes)}")
    return out


def counts_from_multiclass_frames(
    test_df: pd.DataFrame,
    calibration_df: pd.DataFrame,
    *,
    judge: str = "judge",
    human: str = "human",
    system: str | None = None,
    classes: Sequence[Any] | None = None,
) -> MulticlassCounts:
    """Aggregate item-level K-class frames; missing labels are counted and excluded.

    ``classes`` defaults to the sorted labels seen in the calibration frame's human column.
    """
    test_df = as_pandas(test_df, "test_df")
    calibration_df = as_pandas(calibration_df, "calibration_df")
    require_columns(calibration_df, {"human": human, "judge": judge}, "calibration")
    require_columns(test_df, {"judge": judge, "system": system}, "test")
    if classes is None:
        classes = sorted(set(calibration_df[human].dropna().map(_class_key)))
    classes = tuple(dict.fromkeys(_class_key(c) for c in classes))
    kk = len(classes)
    h = _class_labels(calibration_df[human], classes, human)
    j = _class_labels(calibration_df[judge], classes, judge)
    ok = (h >= 0) & (j >= 0)
    conf = np.zeros((kk, kk), np.int64)
    np.add.at(conf, (h[ok], j[ok]), 1)
    sys_lab = _group_labels(test_df, system)
    systems = tuple(dict.fromkeys(sys_lab))
    tj = _class_labels(test_df[judge], classes, judge)
    test = np.zeros((len(systems), kk), np.int64)
    miss = np.zeros(len(systems), np.int64)
    for si, s in enumerate(systems):
        sel = sys_lab == s
        test[si] = np.bincount(tj[sel & (tj >= 0)], minlength=kk)
        miss[si] = int((sel & (tj < 0)).sum())
    return MulticlassCounts(
        confusion=conf,
        test=test,
        classes=classes,
        systems=systems,
        n_missing_test=miss,
        n_missing_calibration=int((~ok).sum()),
    )


# ------------------------------------------------------------------ splits
def calibration_mask(
    human: np.ndarray, fraction: float, rng: np.random.Generator, *, stratify: bool = True
) -> np.ndarray:
    """Boolean calibration membership of one random split (the rule of
    :func:`calibration_split`; no checks).  Missing labels (not 0/1) are never drawn.
    """
    h = np.asarray(human)
    idx = np.arange(h.size)
    cal_pos: list[np.ndarray] = []
    if stratify:
        for cls in (0, 1):
            members = idx[h == cls]
            size = int(np.clip(np.floor(fraction * members.size + 0.5), 1, members.size - 1))
            cal_pos.append(rng.choice(members, size=size, replace=False))
    else:
        members = idx[(h == 0) | (h == 1)]
        size = int(np.floor(fraction * members.size + 0.5))
        cal_pos.append(rng.choice(members, size=size, replace=False))
    is_cal = np.zeros(h.size, bool)
    is_cal[np.concatenate(cal_pos)] = True
    return is_cal


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

    items = as_pandas(items, "items")
    h = items[human].to_numpy()
    if stratify:
        for cls in (0, 1):
            size = int((h == cls).sum())
            if size < 2:
                raise InputError(
                    f"column {human!r}: class {cls} has {size} item(s); a stratified "
                    "split needs at least 2",
                    field=human,
                    value=cls,
                )
    is_cal = calibration_mask(h, fraction, np.random.default_rng(random_seed), stratify=stratify)
    return items[~is_cal].reset_index(drop=True), items[is_cal].reset_index(drop=True)


def split_labels(items, judge: str, human: str, group: str | None):
    """(human, judge) of an item-level frame as 1.0 / 0.0 / NaN arrays, and its ``group``
    column (None without one): what the split protocol splits.
    """
    items = as_pandas(items, "items")
    require_columns(items, {"judge": judge, "human": human, "group": group}, "items")
    h = normalize_labels(items[human], column=human).values
    j = normalize_labels(items[judge], column=judge).values
    return h, j, items[group] if group else None


def judged_rows(items: pd.DataFrame, stratum: str, judge: str, human: str) -> pd.DataFrame:
    """Rows with both labels, normalised to 0/1 (schema's label vocabulary)."""
    require_columns(items, {"stratum": stratum, "judge": judge, "human": human}, "items")
    j = normalize_labels(items[judge], column=judge).values
    h = normalize_labels(items[human], column=human).values
    ok = ~np.isnan(j) & ~np.isnan(h)
    return items.loc[ok].assign(**{judge: j[ok].astype(int), human: h[ok].astype(int)})
