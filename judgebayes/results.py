"""The one result contract of every family and method, the comparison table, and plots.

Every fit — closed form, exact, Laplace, NUTS, the panel regression and votes, Newton MAP
— is a :class:`Fit` (or a family's subclass of it: ``AccuracyFit``, ``PanelFit``,
``RankingFit``, which add summaries and never rename a member) holding an
``arviz.InferenceData`` with a ``posterior`` group.  A point method's posterior has one
chain and one draw (one atom); it may carry its own frequentist interval
(Lang-Reiczigel, delta method), which :meth:`Fit.interval` returns for either ``kind``;
a point method without an interval gives NaN there and says why in :attr:`Fit.notes`.
Sampling methods (Laplace, exact, NUTS) report the posterior mean and an equal-tailed or
HDI interval of their draws.

>>> fit = study.fit("nuts", random_seed=0)
>>> fit.method, fit.family, fit.quantity, fit.unit
('nuts', 'accuracy', 'theta', 'system')
>>> fit.interval(alpha=0.05, kind="hdi")  # DataFrame indexed by the unit
>>> compare([fit_a, fit_b])  # one tidy table
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgebayes import __version__
from judgebayes.errors import InputError

__all__ = [
    "COMPARISON_COLUMNS",
    "FIT_CLASSES",
    "KINDS",
    "SAVED_ALPHAS",
    "Fit",
    "LazyTree",
    "check_alpha",
    "compare",
    "interval_summary",
    "lazy_tree",
    "plot_check",
    "plot_forest",
    "plot_intervals",
    "point_tree",
    "saved_interval",
    "stamp",
    "to_attrs",
    "to_json",
    "tree",
]

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

KINDS = ("equal_tailed", "hdi")

IntervalFn = Callable[[float], tuple[np.ndarray, np.ndarray]]


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
    and labelled by ``coords``.  Built with xarray directly: ``az.from_dict`` costs 3x
    more, which shows in closed-form fits that take well under a millisecond.
    """
    coords, dims = dict(coords or {}), dict(dims or {})
    out = {}
    for group, variables in groups.items():
        lead = () if "data" in group else ("chain", "draw")
        data_vars, used = {}, set()
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

    Building the xarray objects costs more than a closed-form estimate itself (about 0.5 ms
    against 0.2 ms on 5,000 items) or a small Newton fit, so a method may hand its fit a
    ``LazyTree``: ``fit.estimate()``, ``fit.interval()`` (equal-tailed) and ``fit.units``
    of the reported quantity are answered from ``values``; ``fit.idata`` builds the tree
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


class _TreeField:
    """The ``idata`` field of :class:`Fit`: stores a ``DataTree`` or a :class:`LazyTree`
    and always reads as a ``DataTree`` (a lazy one is built by its holder, so the fit's
    own state never changes).
    """

    def __set_name__(self, owner, name):
        self.slot = f"_{name}"

    def __get__(self, obj, objtype=None):
        if obj is None:
            raise AttributeError("idata has no default")  # a required field
        value = obj.__dict__[self.slot]
        return value.get() if isinstance(value, LazyTree) else value

    def __set__(self, obj, value):
        if self.slot in obj.__dict__:
            raise AttributeError("a Fit is never changed after it is made")
        obj.__dict__[self.slot] = value


#: the interval table's columns, built once (pandas' string labels cost 50 us to build)
_INTERVAL_COLUMNS = pd.Index(["estimate", "lower", "upper"])


@functools.lru_cache(maxsize=256)
def _unit_index(unit: str, units: tuple[str, ...]) -> pd.Index:
    """The index of a fit's units (an index never changes: one object serves every fit)."""
    return pd.Index(list(units), name=unit)


#: every fit class by name (a family's subclass registers itself), for :func:`judgebayes.load_fit`
FIT_CLASSES: dict[str, type] = {}

#: levels at which a saved point fit keeps its own interval (a closure does not save)
SAVED_ALPHAS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.32, 0.5)


@dataclass(frozen=True, eq=False)
class Fit:
    """Result of one method on one study: the same members for every family.

    Attributes
    ----------
    method : str
        The method that made it (``"closed_form"``, ``"laplace"``, ``"exact"``,
        ``"nuts"``, ``"regression"``, ``"veto"``, ``"naive"``, ...).
    idata : xarray.DataTree
        ArviZ's data: ``posterior`` of every model variable (one chain x one draw for point
        methods); NUTS fits also ``sample_stats``, ``observed_data``, ``log_likelihood``
        and, when asked for, ``prior`` and ``prior_predictive``.  ``idata.attrs`` carry
        ``method``, ``family``, ``random_seed``, ``version``, ``priors`` and ``sampler``
        (JSON strings).
    family : {"accuracy", "panel", "ranking"}
    quantity : str
        The reported posterior variable: ``theta`` (accuracy; ``theta_items`` for the rate
        over the items evaluated), ``g`` (panel: each generator's precision), ``theta``
        (ranking: item quality).
    unit : str
        Its dim: ``system``, ``generator``, ``item``.
    diagnostics : Diagnostics or None
        The convergence gate's numbers for MCMC fits; None otherwise.
    seconds : float
        Wall time of the fit, compile time included.
    info : dict
        Method settings and engine details.
    notes : tuple of str
        What a reader must know (e.g. why an interval is NaN).

    Notes
    -----
    A fit is made complete by its study and never changed: the dataclass is frozen, its
    ``idata`` field refuses a second assignment, and the package writes nothing into a
    fit's tree after it is made.  A point method's tree may be built on first use
    (:class:`LazyTree`).  ``fit.save(path)`` writes it (netCDF, or zarr for a ``.zarr``
    path) and :func:`judgebayes.load_fit` reads it back as a fit of the same class.
    """

    method: str
    idata: Any = _TreeField()
    family: str = "accuracy"
    quantity: str = "theta"
    unit: str = "system"
    diagnostics: Any = None
    seconds: float = float("nan")
    info: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    interval_fn: IntervalFn | None = field(default=None, repr=False, compare=False)
    estimate_override: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        FIT_CLASSES[cls.__name__] = cls

    def _lazy(self, var: str | None = None) -> LazyTree | None:
        """The unbuilt lazy tree answering ``var`` (None once built or for other fits)."""
        lazy = self.__dict__["_idata"]
        if not isinstance(lazy, LazyTree) or lazy.built:
            return None
        return lazy if var is None or var in lazy.values else None

    # --------------------------------------------------------------- identity
    @property
    def label(self) -> str:
        """Method with its variant, e.g. ``"nuts/horseshoe"`` (used as the row name)."""
        return str(self.info.get("label", self.method))

    @property
    def is_point(self) -> bool:
        """True when the posterior has a single atom."""
        lazy = self.__dict__["_idata"]
        if isinstance(lazy, LazyTree):
            return lazy.point
        post = self.idata.posterior
        return post.sizes["chain"] * post.sizes["draw"] == 1

    @property
    def units(self) -> tuple[str, ...]:
        """Labels of the reported units."""
        lazy = self._lazy(self.quantity)
        if lazy is not None:
            return lazy.units
        return tuple(str(v) for v in self.idata.posterior[self.unit].values)

    # --------------------------------------------------------------- draws
    def draws(self, var: str | None = None) -> xr.DataArray:
        """Posterior draws of ``var`` (default: the reported quantity), dims (sample, ...)."""
        var = var or self.quantity
        if var not in self.idata.posterior:
            raise InputError(
                f"the {self.method!r} fit has no variable {var!r}; it has "
                f"{sorted(self.idata.posterior.data_vars)}",
                field="var",
                value=var,
            )
        da = self.idata.posterior[var]
        return da.stack(sample=("chain", "draw")).transpose("sample", ...)

    def _require_draws(self, what: str) -> None:
        if self.is_point:
            raise InputError(
                f"{what} needs posterior draws; method {self.method!r} gives a point",
                field="method",
                value=self.method,
            )

    def _index(self, var: str):
        lazy = self._lazy(var)
        if lazy is not None:
            return _unit_index(lazy.unit, lazy.units)
        da = self.idata.posterior[var]
        dims = [d for d in da.dims if d not in ("chain", "draw")]
        if not dims:
            return pd.Index([var], name="quantity")
        if len(dims) == 1:
            return pd.Index([str(v) for v in da[dims[0]].values], name=dims[0])
        return pd.MultiIndex.from_product(
            [[str(v) for v in da[d].values] for d in dims], names=dims
        )

    def estimate(self, var: str | None = None) -> np.ndarray:
        """Point estimate: the atom, the method's own point (MAP, exact mean), or the
        posterior mean, flattened over the variable's dims.
        """
        var = var or self.quantity
        if self.estimate_override is not None and var == self.quantity:
            return np.ravel(self.estimate_override)
        lazy = self._lazy(var)
        if lazy is not None:
            x = np.asarray(lazy.values[var], float)
            return np.ravel(x if lazy.point else x.reshape(-1, x.shape[-1]).mean(0))
        if self.is_point:  # the atom itself (no stacking of a 1 x 1 sample)
            return np.ravel(self.idata.posterior[var].values[0, 0])
        return np.ravel(self.draws(var).mean("sample").values)

    def interval(
        self, alpha: float = 0.05, kind: str = "equal_tailed", var: str | None = None
    ) -> pd.DataFrame:
        """Estimate and ``1 - alpha`` interval per unit.

        Parameters
        ----------
        alpha : float
            1 - level, in (0, 1).
        kind : {"equal_tailed", "hdi"}
            For methods with draws, quantiles or the highest-density interval (ArviZ).
            A point method returns its own interval for both kinds, or NaN (see
            :attr:`notes`).
        var : str, optional
            Variable to summarise (default: the reported quantity).

        Returns
        -------
        DataFrame
            Indexed by the variable's dims (the unit for the quantity): ``estimate,
            lower, upper``.
        """
        if kind not in KINDS:
            raise InputError(f"kind must be one of {KINDS}; got {kind!r}", field="kind", value=kind)
        alpha = check_alpha(alpha)
        var = var or self.quantity
        index = self._index(var)
        est = self.estimate(var)
        if (
            self.interval_fn is not None
            and var == self.quantity
            and (self.is_point or kind == "equal_tailed")
        ):
            lo, hi = self.interval_fn(alpha)
        elif self.is_point:
            lo = hi = np.full(est.shape, np.nan)
        elif kind == "equal_tailed":
            lazy = self._lazy(var)
            if lazy is not None:  # the draws themselves, before any tree is built
                x = np.asarray(lazy.values[var], float)
                d = x.reshape(-1, x.shape[-1])
            else:
                d = self.draws(var).values.reshape(-1, est.size)
            with warnings.catch_warnings():
                # a unit without a posterior (NaN draws, counted in notes) has a NaN interval
                warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
                lo, hi = np.quantile(d, [alpha / 2, 1 - alpha / 2], axis=0)
        else:
            import arviz as az

            h = az.hdi(self.idata, var_names=[var], prob=1 - alpha)[var]
            lo = np.ravel(h.sel(ci_bound="lower").values)
            hi = np.ravel(h.sel(ci_bound="upper").values)
        return pd.DataFrame(  # one float block (a dict of columns costs 1.5x)
            np.column_stack([est, np.ravel(lo), np.ravel(hi)]).astype(float),
            index=index,
            columns=_INTERVAL_COLUMNS,
        )

    def summary(self, var_names: Sequence[str] | None = None) -> pd.DataFrame:
        """``arviz.summary`` of ``var_names`` (default: the reported quantity)."""
        import arviz as az

        names = list(var_names) if var_names else [self.quantity]
        return az.summary(self.idata, var_names=names, kind="all" if self.diagnostics else "stats")

    def summary_rows(self, alpha: float = 0.05, kind: str = "equal_tailed") -> list[dict]:
        """Rows of the comparison table for this fit (columns :data:`COMPARISON_COLUMNS`)."""
        tab = self.interval(alpha, kind)
        diag = self.diagnostics
        common = {
            "method": self.label,
            "family": self.family,
            "quantity": self.quantity,
            "estimand": self.info.get("estimand", ""),
            "level": 1 - alpha,
            "r_hat": diag.r_hat_max if diag else np.nan,
            "ess_bulk": diag.ess_bulk_min if diag else np.nan,
            "ess_tail": diag.ess_tail_min if diag else np.nan,
            "divergences": diag.divergences if diag else np.nan,
            "seconds": self.seconds,
            "note": "",
        }
        return [
            {
                **common,
                "unit": "/".join(map(str, idx)) if isinstance(idx, tuple) else str(idx),
                "estimate": r["estimate"],
                "lower": r["lower"],
                "upper": r["upper"],
                "width": r["upper"] - r["lower"],
            }
            for idx, r in tab.iterrows()
        ]

    # --------------------------------------------------------------- saving
    def archive(self):
        """The fit as one ``DataTree``: its ``idata`` plus, in the root's
        ``judgebayes_fit`` attribute, what :func:`judgebayes.load_fit` needs to make the fit
        again (class, members, the diagnostics) and, for a method with its own interval
        (closed forms, the exact engine), an ``interval`` group holding it at
        :data:`SAVED_ALPHAS`.
        """
        t = self.idata.copy()
        own = {}
        for f in fields(self):
            if f.name in ("idata", "interval_fn", "estimate_override"):
                continue
            v = getattr(self, f.name)
            if hasattr(v, "to_dataset"):  # a family's data container
                t[f"judgebayes_{f.name}"] = v.to_dataset()
                own[f.name] = {"__dataset__": type(v).__name__}
            elif f.name == "map_result":
                continue  # the Newton engine's mode and Hessian: not kept
            else:
                own[f.name] = to_json(v)
        own["class"] = type(self).__name__
        if self.estimate_override is not None:
            own["estimate_override"] = to_json(np.ravel(self.estimate_override))
        if self.interval_fn is not None:
            bounds = [self.interval_fn(a) for a in SAVED_ALPHAS]
            units = list(self._index(self.quantity))
            t["interval"] = xr.Dataset(
                {
                    "lower": (("alpha", "unit"), np.array([np.ravel(b[0]) for b in bounds])),
                    "upper": (("alpha", "unit"), np.array([np.ravel(b[1]) for b in bounds])),
                },
                coords={"alpha": list(SAVED_ALPHAS), "unit": [str(u) for u in units]},
            )
        t.attrs["judgebayes_fit"] = json.dumps(own, sort_keys=True)
        return t

    def save(self, path) -> None:
        """Write the fit (:meth:`archive`) to ``path``: zarr when it ends in ``.zarr``,
        netCDF otherwise.
        """
        from pathlib import Path

        where = Path(path)
        if not where.parent.is_dir():
            raise InputError(
                f"cannot save to {str(where)!r}: the folder {str(where.parent)!r} does not "
                "exist (create it first)",
                field="path",
                value=str(where),
            )
        if where.is_dir() and where.suffix != ".zarr":
            raise InputError(
                f"cannot save to {str(where)!r}: it is a directory; give a file name (netCDF) "
                "or a path ending in .zarr",
                field="path",
                value=str(where),
            )
        t = self.archive()
        try:
            if where.suffix == ".zarr":
                t.to_zarr(str(where), mode="w", consolidated=False)  # zarr 3 warns on consolidated
            else:
                t.to_netcdf(str(where))
        except OSError as e:
            raise InputError(
                f"cannot save to {str(where)!r}: {e.strerror or e}", field="path", value=str(where)
            ) from None


FIT_CLASSES[Fit.__name__] = Fit


def saved_interval(table) -> IntervalFn:
    """The interval function of a loaded point fit: the saved levels only."""

    def fn(alpha: float):
        a = float(alpha)
        hit = np.flatnonzero(np.isclose(table["alpha"].values, a, rtol=0, atol=1e-12))
        if not hit.size:
            raise InputError(
                f"this fit was loaded from a file, which keeps its own interval at alpha in "
                f"{list(SAVED_ALPHAS)} only; got {a:g}",
                field="alpha",
                value=a,
            )
        return table["lower"].values[hit[0]], table["upper"].values[hit[0]]

    return fn


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


def plot_forest(fits: Sequence[Fit], alpha: float = 0.05, var: str | None = None, **kwargs):
    """Every fit's own estimate and interval of its reported quantity, side by side
    (``arviz.plot_forest``, one colour per fit).

    The intervals drawn are the fits' own (:meth:`Fit.interval`): the thin line the
    ``1 - alpha`` interval, the thick one the 50% interval, the dot the estimate, so a
    closed-form interval (Lang-Reiczigel, PPI) stands beside credible intervals, and a
    point method without an interval shows as its estimate only.  Works for every family;
    extra keywords go to ``arviz.plot_forest``.

    Returns
    -------
    arviz_plots.PlotCollection
        ``.savefig(path)``; the matplotlib figure is ``.viz["figure"].item()``.
    """
    import arviz as az

    fits = list(fits)
    alpha = check_alpha(alpha)
    quantity = var or _common_quantity(fits)
    labels = _unique_labels(fits)

    def intervals(a):
        per = [f.interval(a, var=quantity) for f in fits]
        unit = per[0].index.name or "unit"
        units = [str(u) for u in per[0].index]
        est = np.stack([p["estimate"].to_numpy(float) for p in per])
        ci = np.stack([p[["lower", "upper"]].to_numpy(float) for p in per])
        return unit, units, est, ci

    unit, units, est, twig = intervals(alpha)
    _, _, _, trunk = intervals(0.5)
    coords = {"model": labels, unit: units}

    def ds(values, dims, extra=None):
        c = coords | (extra or {})
        return xr.Dataset({quantity: (dims, values)}, coords=c)

    bound = {"ci_bound": ["lower", "upper"]}
    # the drawn elements all come from ``stats``; the distribution only lays the rows
    # out, so each fit gives its estimate as one draw (equal shapes: nothing to align)
    dist = {
        label: tree(
            {"posterior": {quantity: e.reshape(1, 1, -1)}},
            coords={unit: units},
            dims={quantity: [unit]},
        )
        for label, e in zip(labels, est, strict=True)
    }
    pc = az.plot_forest(
        dist,
        var_names=[quantity],
        combined=True,
        stats={
            "twig": ds(twig, ("model", unit, "ci_bound"), bound),
            "trunk": ds(trunk, ("model", unit, "ci_bound"), bound),
            "point_estimate": ds(est, ("model", unit)),
        },
        backend="matplotlib",
        **kwargs,
    )
    pc.add_legend("model")
    fig = pc.viz["figure"].item()
    fig.suptitle(f"{quantity}: {100 * (1 - alpha):g}% intervals by method")
    return pc


def _unique_labels(fits: Sequence[Fit]) -> list[str]:
    """The fits' labels, numbered where two fits share one (``nuts``, ``nuts#2``)."""
    seen: dict[str, int] = {}
    out = []
    for f in fits:
        seen[f.label] = seen.get(f.label, 0) + 1
        out.append(f.label if seen[f.label] == 1 else f"{f.label}#{seen[f.label]}")
    return out


def plot_check(idata, var: str | None = None, kind: str = "pit", **kwargs):
    r"""A predictive check through ArviZ: ``idata``'s posterior predictive against its
    observed data.

    ``idata`` comes from :meth:`judgebayes.ValidatorPanel.predictive` (each cell's count
    against its posterior predictive) or
    :meth:`judgebayes.AccuracyStudy.transfer_predictive` (calibrated rates carried to
    another stratum or to the test set).  ``kind="pit"`` (default,
    ``arviz.plot_ppc_pit``) plots the ECDF of the per-count predictive probabilities
    :math:`P(y^{rep}_i \le y_i)` against the uniform with a simultaneous band: counts the
    model predicts well follow the diagonal, a pile at 0 or 1 is counts it cannot
    reproduce (a shifted rate).  ``kind="tstat"`` (``arviz.plot_ppc_tstat``) compares
    the replicates' median with the observed one.

    Returns
    -------
    arviz_plots.PlotCollection
    """
    import arviz as az

    names = list(idata["observed_data"].data_vars)
    var = var or names[0]
    if var not in names:
        raise InputError(f"var must be one of {names}; got {var!r}", field="var", value=var)
    plots = {"pit": az.plot_ppc_pit, "tstat": az.plot_ppc_tstat}
    if kind not in plots:
        raise InputError(
            f"kind must be one of {tuple(plots)}; got {kind!r}", field="kind", value=kind
        )
    pc = plots[kind](idata, var_names=[var], backend="matplotlib", **kwargs)
    pc.viz["figure"].item().suptitle(
        f"{var}: predictive {kind} ({idata['observed_data'][var].size} counts)"
    )
    return pc


def _common_quantity(fits: Sequence[Fit]) -> str:
    """The first fit's quantity, or else the first reported quantity every fit has.

    (The items design's fits report ``theta_items`` or ``theta`` by estimand; its
    comparators only ``theta``, which every one of its fits also carries.)
    """
    for q in dict.fromkeys(f.quantity for f in fits):
        if all(q in f.idata.posterior for f in fits):
            return q
    raise InputError(
        "the fits report different quantities "
        f"{sorted({f.quantity for f in fits})} and share none; pass var=",
        field="var",
        value=None,
    )


def plot_intervals(table: pd.DataFrame, ax=None, truth: dict | None = None):
    """Each method's estimate and interval per unit, from :func:`compare`'s table.

    ``truth`` optionally maps unit names to known values (drawn as vertical ticks).
    """
    import matplotlib.pyplot as plt

    systems = list(dict.fromkeys(table["unit"]))
    methods = list(dict.fromkeys(table["method"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1 + 0.35 * len(systems) * len(methods)))
    y = 0
    ticks, labels = [], []
    for s in systems:
        for i, m in enumerate(methods):
            r = table[(table["unit"] == s) & (table["method"] == m)]
            if r.empty:
                continue
            r = r.iloc[0]
            ax.plot([r["lower"], r["upper"]], [y, y], color=f"C{i}", lw=2)
            ax.plot([r["estimate"]], [y], "o", color=f"C{i}")
            ticks.append(y)
            labels.append(f"{s}: {m}")
            y -= 1
        if truth and s in truth:
            ax.plot([truth[s]] * 2, [y + len(methods) + 0.5, y + 0.5], "k:", lw=1)
        y -= 0.5
    ax.set_yticks(ticks, labels)
    level = table["level"].iloc[0]
    ax.set_xlabel(f"{table['quantity'].iloc[0]} ({100 * level:g}% intervals)")
    return ax
