"""The one result contract: :class:`Fit`, its interval and summary tables, and the
registry of fit classes a saved fit is read back into.
"""

from __future__ import annotations

import functools
import json
import warnings
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgebayes.errors import InputError
from judgebayes.results.trees import LazyTree, check_alpha, to_json

KINDS = ("equal_tailed", "hdi")


IntervalFn = Callable[[float], tuple[np.ndarray, np.ndarray]]


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
        return obj.arviz_tree()

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


#: each point fit's tree as ArviZ reads it (:meth:`Fit.arviz_tree`), built once, kept for
#: as long as the fit lives
_ARVIZ_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

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
        ArviZ's data: ``posterior`` of every model variable; for a point method with an
        interval, draws of the reported quantity from the confidence distribution of that
        interval (attrs ``draws="confidence"``) and every variable's estimate in the
        ``point`` group (:meth:`arviz_tree`; :attr:`tree` is its one-draw tree).  NUTS
        fits also hold ``sample_stats``, ``observed_data``, ``log_likelihood`` and, when
        asked for, ``prior`` and ``prior_predictive``.  ``idata.attrs`` carry
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

    @property
    def tree(self):
        """The fit's own ``DataTree``: for a point method one chain x one draw of every
        variable (what the package reads and what :meth:`save` writes); for the others the
        same object as :attr:`idata`.
        """
        value = self.__dict__["_idata"]
        return value.get() if isinstance(value, LazyTree) else value

    def arviz_tree(self):
        """What :attr:`idata` reads as: the tree, or for a point method with an interval a
        tree ArviZ can summarise (:func:`judgebayes.results.trees.confidence_tree`): draws
        of the reported quantity from the confidence distribution of the method's own
        interval, whose equal-tailed intervals at every level are the method's, labelled as
        such, and the one-draw estimates of every variable in its ``point`` group.
        """
        if not self.is_point:
            return self.tree
        view = _ARVIZ_VIEWS.get(self)  # kept beside the fit, which never changes
        if view is None and self.interval_fn is None:  # a point and no interval: said so
            view = self.tree.copy()
            view["posterior"].attrs.update(
                draws="point",
                note="one draw: the method gives a point estimate and no interval (its sd "
                "in az.summary is NaN, not 0)",
            )
            _ARVIZ_VIEWS[self] = view
        if view is None:
            from judgebayes.results.trees import confidence_tree

            fn = self.interval_fn
            if hasattr(fn, "saved"):  # a loaded fit keeps a few levels
                fn = between_saved(fn, self.estimate())
            view = confidence_tree(self.tree, self.quantity, fn)
            _ARVIZ_VIEWS[self] = view
        return view

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
        post = self.tree.posterior
        return post.sizes["chain"] * post.sizes["draw"] == 1

    @property
    def units(self) -> tuple[str, ...]:
        """Labels of the reported units."""
        lazy = self._lazy(self.quantity)
        if lazy is not None:
            return lazy.units
        return tuple(str(v) for v in self.tree.posterior[self.unit].values)

    # --------------------------------------------------------------- draws
    def draws(self, var: str | None = None) -> xr.DataArray:
        """Posterior draws of ``var`` (default: the reported quantity), dims (sample, ...)."""
        var = var or self.quantity
        if var not in self.tree.posterior:
            raise InputError(
                f"the {self.method!r} fit has no variable {var!r}; it has "
                f"{sorted(self.tree.posterior.data_vars)}",
                field="var",
                value=var,
            )
        da = self.tree.posterior[var]
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
        da = self.tree.posterior[var]
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
            return np.ravel(self.tree.posterior[var].values[0, 0])
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

            h = az.hdi(self.tree, var_names=[var], prob=1 - alpha)[var]
            lo = np.ravel(h.sel(ci_bound="lower").values)
            hi = np.ravel(h.sel(ci_bound="upper").values)
        return pd.DataFrame(  # one float block (a dict of columns costs more)
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
        t = self.tree.copy()
        own = {}
        for f in fields(self):
            if f.name in ("idata", "interval_fn", "estimate_override"):
                continue
            if f.metadata.get("saved") is False:  # a family's member not kept (a function)
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

    fn.saved = table  # type: ignore[attr-defined]  # read by between_saved
    return fn


def between_saved(fn: IntervalFn, estimate: np.ndarray) -> IntervalFn:
    """A loaded point fit's interval at any level for its confidence draws: the ends
    interpolated linearly in alpha between the saved levels (and the estimate at alpha 1),
    held at the widest saved one beyond it.
    """
    table = fn.saved  # type: ignore[attr-defined]
    alphas = np.asarray(table["alpha"].values, float)
    order = np.argsort(alphas)
    a = np.append(alphas[order], 1.0)
    lower = np.vstack([np.stack(table["lower"].values)[order], estimate])
    upper = np.vstack([np.stack(table["upper"].values)[order], estimate])

    def interp(alpha: float):
        x = float(np.clip(alpha, a[0], 1.0))
        k = int(np.clip(np.searchsorted(a, x) - 1, 0, len(a) - 2))
        w = (x - a[k]) / (a[k + 1] - a[k])
        return (1 - w) * lower[k] + w * lower[k + 1], (1 - w) * upper[k] + w * upper[k + 1]

    return interp
