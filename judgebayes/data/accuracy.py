"""Input validation and normalisation: labels, counts and item-level frames.

Everything that enters judgebayes from a user passes through this module and leaves it
as a typed container (:class:`TestCounts`, :class:`CalibrationCounts`) or a clear,
typed error that names the field and the offending value.  Missing verdicts are never
dropped silently: they are counted and carried on every container as ``n_missing``.

Label vocabulary (case-insensitive, surrounding white space ignored)
--------------------------------------------------------------------
positive (1): ``True``, ``1``, ``1.0``, "1", "correct", "valid", "pass", "yes", "true"
negative (0): ``False``, ``0``, ``0.0``, "0", "incorrect", "invalid", "fail", "no", "false"
missing: ``None``, ``NaN``, ``pd.NA``, "" (or only white space)

``positive=`` overrides the vocabulary: the given value(s) map to 1 and every other
non-missing value maps to 0 (or, if ``negative=`` is also given, only those map to 0 and
anything else is an unknown label).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import as_pandas, group_labels
from judgebayes.errors import (
    CountError,
    EmptyClassError,
    InputError,
    LabelError,
    LengthMismatchError,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "ALL",
    "CalibrationCounts",
    "MulticlassCounts",
    "NormalizedLabels",
    "TestCounts",
    "calibration_mask",
    "calibration_split",
    "check_counts",
    "counts_from_calibration_frame",
    "counts_from_multiclass_frames",
    "counts_from_test_frame",
    "normalize_labels",
]

#: Label used for the single group when no system / stratum / source column is given.
ALL = "all"

_POSITIVE_WORDS = frozenset({"1", "1.0", "correct", "valid", "pass", "yes", "true"})
_NEGATIVE_WORDS = frozenset({"0", "0.0", "incorrect", "invalid", "fail", "no", "false"})


# ------------------------------------------------------------------ label handling
@dataclass(frozen=True)
class NormalizedLabels:
    """Binary labels after normalisation.

    Attributes
    ----------
    values : ndarray of float
        1.0, 0.0, or NaN where the input was missing; same length as the input.
    column : str
        Name used in messages.
    """

    values: np.ndarray
    column: str

    @property
    def missing(self) -> np.ndarray:
        """Boolean mask of missing entries."""
        return np.isnan(self.values)

    @property
    def n_missing(self) -> int:
        """How many entries were missing."""
        return int(self.missing.sum())

    @property
    def n(self) -> int:
        """How many entries are present (not missing)."""
        return int(self.values.size - self.n_missing)

    @property
    def n_positive(self) -> int:
        """How many entries are positive."""
        return int(np.nansum(self.values))


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, str) and not v.strip():
        return True
    try:  # pd.NA, pd.NaT, numpy NaN scalars
        res = pd.isna(v)
        return bool(res) if np.ndim(res) == 0 else False
    except (TypeError, ValueError):
        return False


def _key(v: Any) -> Any:
    """Canonical key of a label for vocabulary and override look-ups."""
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return str(int(v)) if float(v).is_integer() else str(float(v))
    if isinstance(v, str):
        s = v.strip().lower()
        try:
            f = float(s)
        except ValueError:
            return s
        return str(int(f)) if f.is_integer() else s
    return v


def _as_set(x: Any) -> set:
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        x = [x]
    return {_key(v) for v in x}


def normalize_labels(
    values: Sequence[Any] | np.ndarray | pd.Series,
    *,
    column: str = "label",
    positive: Any = None,
    negative: Any = None,
) -> NormalizedLabels:
    """Map binary labels of any common spelling to 1.0 / 0.0 / NaN (missing).

    Parameters
    ----------
    values : sequence
        Labels: bools, 0/1 numbers, or strings of the vocabulary in the module docstring.
    column : str
        Name of the field, used in error messages.
    positive, negative : scalar or iterable, optional
        Override the vocabulary.  With only ``positive``, every other non-missing value
        is negative; with both, a value in neither raises :class:`LabelError`.  A column
        none of whose values is ``positive`` and all of whose values are in the usual
        vocabulary is read by the vocabulary: ``positive=10`` for a 1-10 judge leaves the
        0/1 human column beside it as it is, instead of making every label negative.

    Returns
    -------
    NormalizedLabels

    Raises
    ------
    LabelError
        For a label outside the vocabulary; names the column, the value and how many
        rows carry it.
    """
    raw = list(values.tolist() if hasattr(values, "tolist") else values)
    pos = _as_set(positive) if positive is not None else None
    neg = _as_set(negative) if negative is not None else None
    if pos is not None and neg is not None and pos & neg:
        both = sorted(map(str, pos & neg))
        raise InputError(
            f"column {column!r}: labels {both} are both positive and negative",
            field=column,
            value=both,
        )
    if pos is not None and neg is None:
        keys = {_key(v) for v in raw if not _is_missing(v)}
        if not keys & pos and keys <= _POSITIVE_WORDS | _NEGATIVE_WORDS:
            pos = None  # the usual vocabulary: positive= names another column's value
    out = np.empty(len(raw), dtype=float)
    unknown: dict[Any, list] = {}
    for i, v in enumerate(raw):
        if _is_missing(v):
            out[i] = np.nan
            continue
        k = _key(v)
        if pos is not None:
            if k in pos:
                out[i] = 1.0
            elif neg is None or k in neg:
                out[i] = 0.0
            else:
                unknown.setdefault(k, [v, 0])[1] += 1
                out[i] = np.nan
        elif k in _POSITIVE_WORDS:
            out[i] = 1.0
        elif k in _NEGATIVE_WORDS:
            out[i] = 0.0
        else:
            unknown.setdefault(k, [v, 0])[1] += 1
            out[i] = np.nan
    if unknown:
        # report the most frequent unknown label; the message says how many rows carry it
        first_val, count = max(unknown.values(), key=lambda t: t[1])
        if pos is not None:
            allowed = f"positive {sorted(map(str, pos))} or negative {sorted(map(str, neg))}"
        else:
            allowed = "bool, 0/1, correct/incorrect, valid/invalid, pass/fail, yes/no, true/false"
        raise LabelError(column, first_val, count, allowed)
    return NormalizedLabels(values=out, column=column)


# ------------------------------------------------------------------ count checks
#: the largest count the engines hold exactly (float64 integers)
MAX_COUNT = 2.0**53


def check_counts(
    name: str, count: Any, total: Any, *, total_name: str = "total", allow_zero_total: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``0 <= count <= total`` element-wise for integer-valued arrays.

    Returns the two arrays broadcast to a common shape, as float arrays.

    Raises
    ------
    CountError, EmptyClassError, LengthMismatchError
    """
    for nm, v in ((name, count), (total_name, total)):
        if np.asarray(v).dtype == bool:  # True would silently count as 1
            shown = np.asarray(v).tolist()
            raise CountError(
                f"{nm} must be a count (a whole number); got the boolean {shown!r}",
                field=nm,
                value=shown,
            )
    c = np.asarray(count, dtype=float)
    t = np.asarray(total, dtype=float)
    try:
        c, t = np.broadcast_arrays(c, t)
    except ValueError as exc:
        raise LengthMismatchError(
            f"{name} has shape {np.shape(count)} but {total_name} has shape {np.shape(total)}",
            field=name,
            value=np.shape(count),
        ) from exc
    for nm, arr in ((name, c), (total_name, t)):
        bad = ~np.isfinite(arr) & ~np.isposinf(arr) if nm == total_name else ~np.isfinite(arr)
        if np.any(bad):
            raise CountError(f"{nm} must be finite; got {arr[bad].flat[0]!r}", field=nm)
        if np.any(arr < 0):
            v = arr[arr < 0].flat[0]
            raise CountError(f"{nm} must be non-negative; got {v:g}", field=nm, value=v)
        fin = arr[np.isfinite(arr)]
        if np.any(fin != np.round(fin)):
            v = fin[fin != np.round(fin)].flat[0]
            raise CountError(f"{nm} must be a whole number; got {v:g}", field=nm, value=v)
        if np.any(fin > MAX_COUNT):
            v = fin[fin > MAX_COUNT].flat[0]
            raise CountError(
                f"{nm} must be at most 2**53 (a count beyond that is not exact); got {v:g}",
                field=nm,
                value=v,
            )
    if np.any(c > t):
        i = np.argmax(c > t)
        raise CountError(
            f"{name}={c.flat[i]:g} is larger than {total_name}={t.flat[i]:g}",
            field=name,
            value=c.flat[i],
        )
    if not allow_zero_total and np.any(t == 0):
        raise EmptyClassError(
            f"{total_name} is 0: the calibration set has no example of this class, so the "
            f"judge's error rate on it cannot be estimated",
            field=total_name,
            value=0,
        )
    return c, t


# ------------------------------------------------------------------ containers
def _as_index(labels: Sequence[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in labels)


@dataclass(frozen=True)
class TestCounts:
    r"""Judge verdicts on a test set, aggregated per system and stratum.

    ``k[s, t]`` of the ``n[s, t]`` judged items of system ``s`` in stratum ``t`` were
    judged positive; ``n_missing[s, t]`` items had no usable verdict and were excluded.

    Attributes
    ----------
    k, n, n_missing : ndarray of int, shape (n_systems, n_strata)
    systems, strata : tuple of str
    """

    __test__ = False  # not a pytest test class despite the name

    k: np.ndarray
    n: np.ndarray
    n_missing: np.ndarray
    systems: tuple[str, ...] = (ALL,)
    strata: tuple[str, ...] = (ALL,)

    def __post_init__(self):
        k = np.atleast_2d(np.asarray(self.k))
        n = np.atleast_2d(np.asarray(self.n))
        miss = np.atleast_2d(np.asarray(self.n_missing))
        shape = (len(self.systems), len(self.strata))
        for nm, arr in (("k", k), ("n", n), ("n_missing", miss)):
            if arr.shape != shape:
                raise LengthMismatchError(
                    f"{nm} has shape {arr.shape}, expected {shape} (systems x strata)",
                    field=nm,
                    value=arr.shape,
                )
        check_counts("k", k, n, total_name="n")
        check_counts("n_missing", miss, np.inf, total_name="n_missing")
        object.__setattr__(self, "k", k.astype(np.int64))
        object.__setattr__(self, "n", n.astype(np.int64))
        object.__setattr__(self, "n_missing", miss.astype(np.int64))

    @classmethod
    def from_arrays(cls, k, n, n_missing=0, systems=None) -> TestCounts:
        """One stratum; ``k``, ``n`` scalars or 1-D arrays over systems."""
        k = np.atleast_1d(np.asarray(k))
        n = np.atleast_1d(np.asarray(n))
        k, n = check_counts("k", k, n, total_name="n")
        miss = np.broadcast_to(np.asarray(n_missing), k.shape)
        systems = _as_index(systems) if systems is not None else _default_names(k.size)
        return cls(k[:, None], n[:, None], miss[:, None], systems=systems)

    def per_system(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Totals over strata: ``(k, n, n_missing)`` each of shape (n_systems,)."""
        return self.k.sum(1), self.n.sum(1), self.n_missing.sum(1)


def _default_names(size: int) -> tuple[str, ...]:
    return (ALL,) if size == 1 else tuple(f"system_{i}" for i in range(size))


@dataclass(frozen=True)
class CalibrationCounts:
    r"""Human-labelled calibration set, aggregated per stratum.

    Of ``m1`` truly positive items the judge called ``tp`` positive; of ``m0`` truly
    negative items it called ``tn`` negative, so that
    :math:`\hat q_1 = tp/m_1` (sensitivity) and :math:`\hat q_0 = tn/m_0` (specificity).

    Attributes
    ----------
    tp, m1, tn, m0 : ndarray of int, shape (n_strata,)
    n_missing : ndarray of int, shape (n_strata,)
        Rows excluded because the human label or the judge verdict was missing.
    strata : tuple of str
    dim : str
        Name of the grouping ("stratum" or "source").
    """

    tp: np.ndarray
    m1: np.ndarray
    tn: np.ndarray
    m0: np.ndarray
    n_missing: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    strata: tuple[str, ...] = (ALL,)
    dim: str = "stratum"
    allow_empty_classes: bool = False

    def __post_init__(self):
        arrs = {}
        for nm in ("tp", "m1", "tn", "m0", "n_missing"):
            a = np.atleast_1d(np.asarray(getattr(self, nm)))
            if nm == "n_missing" and a.size == 1 and len(self.strata) > 1:
                a = np.broadcast_to(a, (len(self.strata),))
            if a.shape != (len(self.strata),):
                raise LengthMismatchError(
                    f"{nm} has shape {a.shape}, expected ({len(self.strata)},) "
                    f"(one per {self.dim})",
                    field=nm,
                    value=a.shape,
                )
            arrs[nm] = a
        # a stratum may lack a class when its rates are pooled; the total never may
        zero_ok = self.allow_empty_classes
        check_counts("tp", arrs["tp"], arrs["m1"], total_name="m1", allow_zero_total=zero_ok)
        check_counts("tn", arrs["tn"], arrs["m0"], total_name="m0", allow_zero_total=zero_ok)
        if self.allow_empty_classes:
            check_counts(
                "tp",
                arrs["tp"].sum(),
                arrs["m1"].sum(),
                total_name="m1 (all strata)",
                allow_zero_total=False,
            )
            check_counts(
                "tn",
                arrs["tn"].sum(),
                arrs["m0"].sum(),
                total_name="m0 (all strata)",
                allow_zero_total=False,
            )
        check_counts("n_missing", arrs["n_missing"], np.inf, total_name="n_missing")
        for nm, a in arrs.items():
            object.__setattr__(self, nm, a.astype(np.int64))

    @property
    def m(self) -> np.ndarray:
        """Calibration size per stratum."""
        return self.m0 + self.m1

    @property
    def fp(self) -> np.ndarray:
        """Truly negative items the judge called positive."""
        return self.m0 - self.tn

    @property
    def fn(self) -> np.ndarray:
        """Truly positive items the judge called negative."""
        return self.m1 - self.tp

    def pooled(self) -> CalibrationCounts:
        """All strata added together (complete pooling)."""
        return CalibrationCounts(
            tp=[self.tp.sum()],
            m1=[self.m1.sum()],
            tn=[self.tn.sum()],
            m0=[self.m0.sum()],
            n_missing=[self.n_missing.sum()],
        )


# ------------------------------------------------------------------ frames -> counts
def _require_columns(df: pd.DataFrame, cols: dict[str, str | None], frame: str) -> None:
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
    _require_columns(df, {"judge": judge, "system": system, "stratum": stratum}, "test")
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
    _require_columns(df, {"human": human, "judge": judge, "stratum": stratum}, "calibration")
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
    )


@dataclass(frozen=True)
class MulticlassCounts:
    """K-class judge: calibration confusion counts and judged-class counts on the test set.

    Attributes
    ----------
    confusion : ndarray of int, shape (K, K)
        Rows: true (human) class; columns: judged class.
    test : ndarray of int, shape (n_systems, K)
        Judged-class counts per system.
    classes, systems : tuple of str
    n_missing_test : ndarray of int, shape (n_systems,)
    n_missing_calibration : int
    """

    confusion: np.ndarray
    test: np.ndarray
    classes: tuple[str, ...]
    systems: tuple[str, ...] = (ALL,)
    n_missing_test: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    n_missing_calibration: int = 0

    def __post_init__(self):
        kk = len(self.classes)
        if kk < 2:
            raise InputError("a K-class judge needs at least 2 classes", field="classes", value=kk)
        conf = np.asarray(self.confusion)
        test = np.atleast_2d(np.asarray(self.test))
        if conf.shape != (kk, kk):
            raise LengthMismatchError(
                f"confusion has shape {conf.shape}, expected ({kk}, {kk})",
                field="confusion",
                value=conf.shape,
            )
        if test.shape != (len(self.systems), kk):
            raise LengthMismatchError(
                f"test has shape {test.shape}, expected ({len(self.systems)}, {kk})",
                field="test",
                value=test.shape,
            )
        for nm, arr in (("confusion", conf), ("test", test)):
            check_counts(nm, arr, np.inf, total_name=f"{nm} total")
        empty = np.flatnonzero(conf.sum(1) == 0)
        if empty.size:
            raise EmptyClassError(
                f"the calibration set has no example of true class {self.classes[empty[0]]!r}",
                field="confusion",
                value=self.classes[empty[0]],
            )
        miss = np.broadcast_to(np.asarray(self.n_missing_test), (len(self.systems),))
        object.__setattr__(self, "confusion", conf.astype(np.int64))
        object.__setattr__(self, "test", test.astype(np.int64))
        object.__setattr__(self, "n_missing_test", np.asarray(miss, dtype=np.int64))


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
        if _is_missing(v):
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
    _require_columns(calibration_df, {"human": human, "judge": judge}, "calibration")
    _require_columns(test_df, {"judge": judge, "system": system}, "test")
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
