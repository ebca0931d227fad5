"""Posterior trees: a fit's ``InferenceData`` built from draws or point values (lazily
where it can wait), and the JSON forms of its attributes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, is_dataclass
from typing import Any

import numpy as np
import xarray as xr

from judgebayes import __version__
from judgebayes.errors import InputError


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    """``alpha`` as a float in (0, 1), or an :class:`InputError` naming it."""
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.floating | np.integer):
        raise InputError(
            f"{name} must be a number in (0, 1); got {alpha!r}", field=name, value=alpha
        )
    if not 0 < float(alpha) < 1:
        raise InputError(
            f"{name} must lie in (0, 1); got {float(alpha):g}", field=name, value=float(alpha)
        )
    return float(alpha)


def tree(
    groups: dict[str, dict[str, Any]],
    coords: dict[str, Any] | None = None,
    dims: dict[str, Sequence[str]] | None = None,
):
    """An ArviZ ``DataTree`` from arrays: ``groups`` maps a group name (``posterior``,
    ``posterior_predictive``, ``observed_data``, ``log_likelihood``, ...) to its variables.

    Sample groups (any name without ``data``) carry leading ``(chain, draw)`` axes; each
    variable's other axes are named by ``dims`` (ArviZ's convention, as ``az.from_dict``)
    and labelled by ``coords``.  Built with xarray directly: ``az.from_dict`` costs several
    times more, which shows in closed-form fits.
    """
    coords, dims = dict(coords or {}), dict(dims or {})
    out = {}
    for group, variables in groups.items():
        lead = () if "data" in group else ("chain", "draw")
        data_vars: dict[str, Any] = {}
        used: set[str] = set()
        for name, value in variables.items():
            arr = np.asarray(value)
            own = tuple(dims.get(name, ()))
            rest = arr.ndim - len(lead) - len(own)
            if rest < 0:
                raise ValueError(f"{group}.{name}: {arr.shape} does not fit dims {lead + own}")
            names = lead + own + tuple(f"{name}_dim_{i}" for i in range(rest))
            data_vars[name] = (names, arr)
            used.update(names)
        c = {k: v for k, v in coords.items() if k in used}
        for d in ("chain", "draw"):
            if d in used and d not in c:
                size = next(a.shape[lead.index(d)] for _, a in data_vars.values())
                c[d] = np.arange(size)
        out[group] = xr.Dataset(data_vars, coords=c)
    return xr.DataTree.from_dict(out)


def to_json(value: Any) -> Any:
    """``value`` made JSON-ready: dataclasses as dicts, numpy arrays as lists, numpy scalars
    as Python numbers, tuples as lists, NaN as None, anything else as its ``str``.
    """
    if is_dataclass(value) and not isinstance(value, type):
        value = asdict(value)
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_json(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def to_attrs(value: Any) -> str:
    """A JSON string of ``value`` (:func:`to_json`) for a DataTree's attrs."""
    return json.dumps(to_json(value), sort_keys=True)


def stamp(idata, attrs: dict[str, Any]):
    """``idata`` with ``attrs`` (JSON strings but for ``method`` and ``family``) written on
    the root and on the posterior group (which travels alone to netCDF); returns it.
    """
    text = {k: v if k in ("method", "family") else to_attrs(v) for k, v in attrs.items()}
    text["version"] = __version__
    idata.attrs.update(text)
    idata["posterior"].attrs.update(text)
    return idata


class LazyTree:
    """A fit's ``DataTree``, built on first use.

    Building the xarray objects costs more than a closed-form estimate itself or a small
    Newton fit, so a method may hand its fit a
    ``LazyTree``: ``fit.estimate()``, ``fit.interval()`` (equal-tailed) and ``fit.units``
    of the reported quantity are answered from ``values``; ``fit.tree`` builds the tree
    once (this holder keeps it; the fit itself never changes).

    Parameters
    ----------
    factory : callable
        No arguments; returns the ``DataTree``.
    unit : str
        The reported quantity's dim.
    units : sequence of str
        Its labels.
    values : dict of str to ndarray
        The variables answered without building: one atom per unit (``point``), or draws
        shaped (chain, draw, unit).
    point : bool
        Whether the posterior is one atom (a point method).
    """

    __slots__ = ("_built", "factory", "point", "unit", "units", "values")

    def __init__(self, factory: Callable[[], Any], unit: str, units, values: dict, point=True):
        self.factory, self.unit, self.units = factory, unit, tuple(units)
        self.values, self.point = values, point
        self._built = None

    @property
    def built(self) -> bool:
        """True once the tree exists."""
        return self._built is not None

    def get(self):
        """The tree (built on the first call)."""
        if self._built is None:
            self._built = self.factory()
        return self._built

    def then(self, fn: Callable[[Any], Any]) -> LazyTree:
        """A new holder whose tree is ``fn`` of this one's."""
        inner = self.factory
        return LazyTree(lambda: fn(inner()), self.unit, self.units, self.values, self.point)

    def __reduce__(self):
        # a closure does not pickle: the tree is built and travels instead
        return (_built_tree, (self.get(), self.unit, self.units, self.values, self.point))


def _built_tree(t, unit, units, values, point=True) -> LazyTree:
    lazy = LazyTree(lambda: t, unit, units, values, point)
    lazy._built = t
    return lazy


def lazy_tree(
    groups: dict[str, dict[str, Any]], unit: str, units, *, answer: str, coords=None, dims=None
) -> LazyTree:
    """The :func:`tree` of ``groups``, built on first use; the posterior's ``answer``
    (draws shaped (chain, draw, unit)) answers ``estimate``, ``interval`` and ``units``
    before that.
    """
    post = groups["posterior"]
    return LazyTree(
        lambda: tree(groups, coords={unit: list(units), **(coords or {})}, dims=dims),
        unit,
        units,
        {answer: post[answer]},
        point=False,
    )


def point_tree(values: dict[str, Any], unit: str, units, *, dims=None, coords=None) -> LazyTree:
    """A one-atom posterior (one chain, one draw) of ``values``, built when first used.

    ``values`` maps each variable to its value; the reported quantity's values are one per
    label of ``units`` along dim ``unit``.  ``dims`` names the dims of the others
    (default: ``unit`` for variables with one value per unit, none for scalars);
    ``coords`` labels further dims.
    """
    units = [str(u) for u in units]
    dims = dict(dims or {})
    for name, v in values.items():
        if name not in dims:
            dims[name] = [unit] if np.ndim(v) == 1 and np.size(v) == len(units) else []

    def build():
        post = {k: np.asarray(v, float)[None, None, ...] for k, v in values.items()}
        return tree({"posterior": post}, coords={unit: units, **(coords or {})}, dims=dims)

    answer = {k: v for k, v in values.items() if dims[k] == [unit]}
    return LazyTree(build, unit, units, answer)


#: the confidence draws of a point method's tree (:func:`confidence_tree`): chains x draws
CONFIDENCE_DRAWS = (4, 100)


def confidence_tree(point, quantity: str, interval_fn: Callable[[float], tuple]):
    r"""A point method's tree as ArviZ can summarise it: draws of ``quantity`` from the
    confidence distribution of the method's own interval.

    The :math:`S` draws of each unit sit at the levels :math:`u_s = (s + 1/2)/S`: below
    :math:`1/2` the lower end of the method's :math:`1 - 2u` interval, above it the upper
    end of its :math:`2u - 1` interval, so every equal-tailed interval of the draws at a
    level :math:`1 - 2u_s` is the method's own (a confidence distribution, Xie and Singh
    2013), shuffled over ``CONFIDENCE_DRAWS`` chains x draws with a fixed seed.  They are
    not a posterior: the ``posterior`` group's attrs say ``draws = "confidence"``, and the
    one-draw estimates of every variable stay in the ``point`` group.
    """
    chains, draws = CONFIDENCE_DRAWS
    size = chains * draws
    levels = (np.arange(size // 2) + 0.5) / size
    atom = point["posterior"].to_dataset()
    n = atom[quantity].shape[2:]
    out = np.empty((size, *n))
    for i, u in enumerate(levels):
        lo, hi = interval_fn(2 * u)
        out[i], out[size - 1 - i] = np.reshape(lo, n), np.reshape(hi, n)
    out = out[np.random.default_rng(0).permutation(size)].reshape(chains, draws, *n)
    dims = atom[quantity].dims
    post = xr.Dataset(
        {quantity: (dims, out)},
        coords={
            "chain": np.arange(chains),
            "draw": np.arange(draws),
            **{d: atom[d].values for d in dims[2:] if d in atom.coords},
        },
        attrs={
            **atom.attrs,
            "draws": "confidence",
            "note": "draws from the confidence distribution of the method's own interval "
            "(its equal-tailed intervals at every level are the method's), not a posterior; "
            "the estimates are in the 'point' group",
        },
    )
    view = point.copy()
    view["point"] = xr.DataTree(atom)
    view["posterior"] = xr.DataTree(post)
    return view
