"""The panel's data (:class:`PanelData`) and its reader from arrays."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.errors import CountError, InputError

if TYPE_CHECKING:  # pragma: no cover
    pass


@dataclass(frozen=True)
class PanelData:
    """Validated panel counts (arrays are generator x validator).

    Attributes
    ----------
    generators, validators : tuple of str
    n_judged, n_valid, n_missing : ndarray of int, shape (G, V)
    tp, fn, tn, fp : ndarray of int, shape (G, V)
        Confusion counts of the verdicts on human-annotated outputs (0 where there are
        none).  Verdicts counted here are *not* also in the "unannotated" remainder
        ``n_judged - (tp + fn + tn + fp)``.
    n_annotated, n_valid_human : ndarray of int, shape (G,)
        Human annotations per generator (0 when not annotated).
    self_judge : ndarray of bool, shape (G, V)
    items : DataFrame or None
        Item-level verdicts (output, generator, validator, verdict in {0, 1, NaN},
        human in {0, 1, NaN}) when the panel was built from items.
    """

    generators: tuple[str, ...]
    validators: tuple[str, ...]
    n_judged: np.ndarray
    n_valid: np.ndarray
    n_missing: np.ndarray
    tp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    fp: np.ndarray
    n_annotated: np.ndarray
    n_valid_human: np.ndarray
    self_judge: np.ndarray
    items: Any = field(default=None, compare=False)
    #: the human annotations are of outputs that are *not* in the cells (declared by the
    #: user); otherwise an annotated generator needs confusion counts (see
    #: :attr:`annotation_overlap`)
    annotations_disjoint: bool = False
    #: memo of derived quantities that human labels do not change (vote counts); kept by
    #: :meth:`calibrate_on`, so leave-s-out does not recount the verdicts per subset
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        """(G, V)."""
        return self.n_judged.shape

    @property
    def annotated(self) -> np.ndarray:
        """Indices of human-annotated generators."""
        return np.flatnonzero(self.n_annotated > 0)

    @property
    def human_precision(self) -> np.ndarray:
        """Human precision per generator (NaN when not annotated)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n_annotated > 0, self.n_valid_human / self.n_annotated, np.nan)

    @property
    def rate(self) -> np.ndarray:
        """Observed share of "valid" verdicts per cell (NaN for a missing cell)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n_judged > 0, self.n_valid / self.n_judged, np.nan)

    @property
    def annotation_overlap(self) -> tuple[str, ...]:
        """Annotated generators whose annotations would count the same outputs twice.

        An annotated generator without confusion counts in any of its cells: its annotated
        outputs (if they are among the judged ones, the usual case) would inform the
        precision once through the human counts and again through the cells, and the
        confusion counts, the most informative data for the TNR, would be lost.  Empty
        when the panel was declared ``annotations_disjoint``.
        """
        if self.annotations_disjoint:
            return ()
        conf = self.has_confusion.any(axis=1)
        return tuple(self.generators[i] for i in self.annotated if not conf[i])

    @property
    def has_confusion(self) -> np.ndarray:
        """Cells with confusion counts."""
        return (self.tp + self.fn + self.tn + self.fp) > 0

    def calibrate_on(self, generators: Sequence[int]) -> PanelData:
        """The same panel with human information kept only for ``generators`` (indices).

        Used by leave-s-out evaluation: the other generators' human counts and confusion
        counts are hidden (their verdicts stay, as unannotated outputs).
        """
        keep = np.zeros(self.shape[0], dtype=bool)
        keep[list(generators)] = True
        z = np.zeros_like(self.tp)
        hide = ~keep[:, None]
        return replace(
            self,
            tp=np.where(hide, z, self.tp),
            fn=np.where(hide, z, self.fn),
            tn=np.where(hide, z, self.tn),
            fp=np.where(hide, z, self.fp),
            n_annotated=np.where(keep, self.n_annotated, 0),
            n_valid_human=np.where(keep, self.n_valid_human, 0),
            items=None
            if self.items is None
            else self.items.assign(
                human=self.items["human"].where(
                    self.items["generator"].isin([self.generators[i] for i in generators])
                )
            ),
        )


def _int_array(values, name: str, shape) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.shape != shape:
        raise InputError(
            f"{name} has shape {arr.shape}, expected {shape}", field=name, value=arr.shape
        )
    bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.round(arr))
    if bad.any():
        v = arr[bad][0]
        raise CountError(f"{name}: {v!r} is not a non-negative whole number", field=name, value=v)
    return arr.astype(np.int64)


def panel_from_arrays(
    n_judged,
    n_valid,
    *,
    generators: Sequence[str] | None = None,
    validators: Sequence[str] | None = None,
    n_annotated=None,
    n_valid_human=None,
    tp=None,
    fn=None,
    tn=None,
    fp=None,
    n_missing=None,
    self_judge=None,
    items=None,
) -> PanelData:
    """Validate panel arrays (generator x validator) and return :class:`PanelData`."""
    nj = np.asarray(n_judged, dtype=float)
    if nj.ndim != 2:
        raise InputError(
            f"n_judged must be 2-d (generator x validator), got {nj.shape}",
            field="n_judged",
            value=nj.shape,
        )
    G, V = nj.shape
    shape = (G, V)
    nj = _int_array(nj, "n_judged", shape)
    nv = _int_array(n_valid, "n_valid", shape)
    gens = tuple(str(g) for g in (generators if generators is not None else range(G)))
    vals = tuple(str(v) for v in (validators if validators is not None else range(V)))
    if len(gens) != G or len(vals) != V:
        raise InputError(
            "names do not match the array shape", field="generators", value=(len(gens), len(vals))
        )
    if V < 2:
        raise InputError(
            f"a panel needs at least two validators, got {V} ({list(vals)})",
            field="validator",
            value=V,
        )
    over = nv > nj
    if over.any():
        i, j = np.argwhere(over)[0]
        raise CountError(
            f"n_valid {nv[i, j]} > n_judged {nj[i, j]} for generator {gens[i]!r}, "
            f"validator {vals[j]!r}",
            field="n_valid",
            value=int(nv[i, j]),
        )
    empty = nj.sum(axis=1) == 0
    if empty.any():
        g = gens[int(np.flatnonzero(empty)[0])]
        raise InputError(
            f"generator {g!r} has no judged outputs in any cell", field="generator", value=g
        )
    zero = np.zeros(shape, dtype=np.int64)
    conf = [
        zero if x is None else _int_array(x, name, shape)
        for x, name in ((tp, "tp"), (fn, "fn"), (tn, "tn"), (fp, "fp"))
    ]
    _check_confusion(conf, nj, nv, gens, vals)
    na = (
        np.zeros(G, dtype=np.int64)
        if n_annotated is None
        else _int_array(n_annotated, "n_annotated", (G,))
    )
    nh = (
        np.zeros(G, dtype=np.int64)
        if n_valid_human is None
        else _int_array(n_valid_human, "n_valid_human", (G,))
    )
    if np.any(nh > na):
        at = int(np.flatnonzero(nh > na)[0])
        raise CountError(
            f"n_valid_human {nh[at]} > n_annotated {na[at]} for generator {gens[at]!r}",
            field="n_valid_human",
            value=int(nh[at]),
        )
    nm = zero if n_missing is None else _int_array(n_missing, "n_missing", shape)
    sj = np.zeros(shape, dtype=bool) if self_judge is None else np.asarray(self_judge, dtype=bool)
    return PanelData(gens, vals, nj, nv, nm, conf[0], conf[1], conf[2], conf[3], na, nh, sj, items)


def _check_confusion(conf, nj, nv, gens, vals) -> None:
    """The confusion counts (tp, fn, tn, fp) of each cell fit its judged and valid counts."""
    tot = sum(conf)
    bad = tot > nj
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise CountError(
            f"confusion counts add to {tot[i, j]} > n_judged {nj[i, j]} for generator "
            f"{gens[i]!r}, validator {vals[j]!r}",
            field="tp",
            value=int(tot[i, j]),
        )
    has = tot > 0
    called_valid = conf[0] + conf[3]
    rest_valid = nv - called_valid
    rest_n = nj - tot
    bad = has & ((rest_valid < 0) | (rest_valid > rest_n))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise CountError(
            f"confusion counts (tp + fp = {called_valid[i, j]}) do not fit n_valid "
            f"{nv[i, j]} of n_judged {nj[i, j]} for generator {gens[i]!r}, validator "
            f"{vals[j]!r}",
            field="n_valid",
            value=int(nv[i, j]),
        )
    # where every judged output was annotated, the verdicts must agree with n_valid
    full = has & (tot == nj)
    if np.any(full & (called_valid != nv)):
        i, j = np.argwhere(full & (called_valid != nv))[0]
        raise CountError(
            f"tp + fp = {called_valid[i, j]} but n_valid = {nv[i, j]} for generator "
            f"{gens[i]!r}, validator {vals[j]!r}",
            field="n_valid",
            value=int(nv[i, j]),
        )
