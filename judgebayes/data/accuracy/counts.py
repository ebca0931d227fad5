"""The validated counts of the accuracy models: a test set's judged positives, a
calibration set's confusion cells, and a K-class judge's counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.data.accuracy.labels import ALL
from judgebayes.errors import (
    CountError,
    EmptyClassError,
    InputError,
    LengthMismatchError,
)

if TYPE_CHECKING:  # pragma: no cover
    pass


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
    by : str, optional
        The column the counts were split by (a frame's ``stratum=``): the study is then
        the pooled-strata model, however many strata the column holds.
    """

    tp: np.ndarray
    m1: np.ndarray
    tn: np.ndarray
    m0: np.ndarray
    n_missing: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    strata: tuple[str, ...] = (ALL,)
    dim: str = "stratum"
    allow_empty_classes: bool = False
    by: str | None = None

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
            tp=np.array([self.tp.sum()]),
            m1=np.array([self.m1.sum()]),
            tn=np.array([self.tn.sum()]),
            m0=np.array([self.m0.sum()]),
            n_missing=np.array([self.n_missing.sum()]),
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
