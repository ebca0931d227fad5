r"""One study contract, written once: ``fit``, ``compare`` and ``check`` for every family.

A study holds validated data and priors and keeps no fit.  Its methods are registered
callables, one per method name, in the study class's own :class:`Methods` table::

    @AccuracyStudy.methods.register("laplace", engine="laplace", summary="MAP + Laplace")
    def _laplace(study, *, random_seed=None, draws=4000, importance=True) -> FitParts: ...

The keywords a method takes are its keyword-only parameters (``random_seed`` aside), so
``study.fit("laplace", drows=10)`` is an :class:`~judgebayes.errors.InputError` that lists
``draws`` and ``importance``; there is no second list to keep in step.  A method returns
:class:`FitParts`, and :meth:`Study.fit` completes them into the study's ``Fit`` class
once: timing, the study's own info and notes, the attributes written into the tree (method,
seed, version, priors, sampler).  The fit is made complete and is never changed after.

Checks are registered the same way (:class:`Checks`): ``study.check(fit)`` runs every
check that applies and returns one table, so a gate (or a user) reads one place to see
whether an assumption failed.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from judgebayes.errors import InputError, JudgeBayesError, LaplaceError, unknown_keyword
from judgebayes.inference.laplace import fit_laplace
from judgebayes.inference.nuts import sample_nuts
from judgebayes.inference.registry import (
    MIN_DRAWS,
    check_count,
    check_seed,
    normalise_method,
    resolve_sampler,
)
from judgebayes.results import (
    COMPARISON_COLUMNS,
    Fit,
    LazyTree,
    check_alpha,
    plot_forest,
    stamp,
)

__all__ = [
    "CHECK_COLUMNS",
    "Check",
    "Checks",
    "FitParts",
    "Method",
    "Methods",
    "Study",
    "bonferroni",
]

#: the columns every check table has (a check may add its own after them)
CHECK_COLUMNS = ("check", "unit", "observed", "expected", "p_value", "flagged")


def bonferroni(rows: Sequence[Mapping[str, Any]], alpha: float) -> pd.DataFrame:
    """A check's rows (``unit, observed, expected, p_raw, n``) as its table: each raw
    p-value times the number of rows (Bonferroni, capped at 1) as ``p_value``, and
    ``flagged`` below ``alpha``.  No rows is an empty table with those columns.
    """
    out = pd.DataFrame(list(rows), columns=["unit", "observed", "expected", "p_raw", "n"])
    out["p_value"] = np.minimum(1.0, out["p_raw"].to_numpy(float) * max(len(out), 1))
    out["flagged"] = out["p_value"] < alpha
    return out


@dataclass
class FitParts:
    """What a method returns; :meth:`Study.fit` completes it into a fit.

    Attributes
    ----------
    idata : DataTree or LazyTree
        The posterior (and any other groups).
    quantity : str, optional
        The reported variable, when not the study's default.
    diagnostics : Diagnostics, optional
        The convergence gate's numbers (MCMC).
    info, notes
        Method details and what a reader must know.
    interval_fn : callable, optional
        ``alpha -> (lower, upper)``: the method's own interval (closed forms, exact).
    point : ndarray, optional
        The method's own point estimate (MAP, exact mean) instead of the draws' mean.
    extra : dict
        Members of the family's fit class beyond :class:`~judgebayes.results.Fit`'s.
    """

    idata: Any
    quantity: str | None = None
    diagnostics: Any = None
    info: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    interval_fn: Callable | None = None
    point: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


@functools.cache
def _keywords(fn: Callable, what: str) -> tuple[str, ...]:
    """The keyword-only parameters of ``fn`` after its first (the study or the fit)."""
    params = list(inspect.signature(fn).parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if not params or params[0].kind not in positional:
        raise TypeError(f"{what} {fn.__qualname__} must take the study first")
    bad = [p.name for p in params[1:] if p.kind != p.KEYWORD_ONLY]
    if bad:
        raise TypeError(f"{what} {fn.__qualname__}: options must be keyword-only; {bad} are not")
    return tuple(p.name for p in params[1:])


@dataclass(frozen=True)
class Method:
    """One method of one study class: its name, the callable that fits, and what it is.

    ``options`` (the keywords ``fit`` accepts for it) are read from the callable's
    signature: its keyword-only parameters, ``random_seed`` aside.
    """

    name: str
    fn: Callable[..., FitParts]
    engine: str
    summary: str = ""
    mcmc: bool = False

    @property
    def options(self) -> tuple[str, ...]:
        """The keywords this method takes besides ``random_seed``."""
        return tuple(k for k in _keywords(self.fn, "method") if k != "random_seed")

    def check_options(self, options: Mapping[str, Any]) -> None:
        """An :class:`InputError` naming a keyword this method does not take."""
        unknown_keyword(f"method {self.name!r}", options, {"random_seed", *self.options})


class _Table(Mapping):
    """A study class's registered callables, by name."""

    def __init__(self, owner: str):
        self.owner = owner
        self._table: dict[str, Any] = {}

    def __getitem__(self, name: str):
        return self._table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


class Methods(_Table):
    """The methods of one study class, by name (``-`` and ``_`` spell the same)."""

    def __init__(self, owner: str):
        super().__init__(owner)
        #: methods users may expect that this study refuses, with the measured reason
        self.refused: dict[str, str] = {}

    def register(self, name: str, *, engine: str, summary: str = "", mcmc: bool = False):
        """Decorator: register ``fn(study, *, random_seed=None, **options) -> FitParts``."""

        def deco(fn):
            if "random_seed" not in _keywords(fn, "method"):
                raise TypeError(f"method {fn.__qualname__} must take random_seed")
            self._table[name] = Method(name, fn, engine, summary, mcmc)
            return fn

        return deco

    def refuse(self, name: str, reason: str) -> None:
        """``name`` is not offered, and ``reason`` says why and what to use."""
        self.refused[name] = reason

    def resolve(self, method: Any) -> Method:
        """The method of that name, or an :class:`InputError` listing the valid ones (or
        saying why a refused one is not offered).
        """
        name = normalise_method(method)
        if name in self.refused:
            raise InputError(self.refused[name], field="method", value=method)
        if name not in self._table:
            raise InputError(
                f"method must be one of {tuple(self._table)} ({self.owner}); got {method!r}",
                field="method",
                value=method,
            )
        return self._table[name]

    def describe(self) -> str:
        """One line per method: name, summary, engine, options."""
        return "\n".join(
            f"{m.name}: {m.summary} [{m.engine}] options: {', '.join(m.options) or '-'}"
            for m in self._table.values()
        )


@dataclass(frozen=True)
class Check:
    """One check of a study's assumptions: ``fn(study, fit, **options) -> DataFrame`` with
    :data:`CHECK_COLUMNS`; ``needs`` says which fits it reads (``"none"``: the data alone,
    ``"draws"``: a fit with posterior draws).
    """

    name: str
    fn: Callable[..., pd.DataFrame]
    needs: str = "none"
    summary: str = ""

    def applies(self, fit: Fit | None) -> bool:
        """Whether this check can run on ``fit`` (None: no fit given)."""
        if self.needs == "none":
            return True
        return fit is not None and not fit.is_point and self._accepts(fit)

    def _accepts(self, fit: Fit) -> bool:
        accept = getattr(self.fn, "accepts", None)
        return accept is None or accept(fit)


class Checks(_Table):
    """The checks of one study class, by name."""

    def register(self, name: str, *, needs: str = "none", summary: str = "", accepts=None):
        """Decorator: register ``fn(study, fit, *, alpha, **options) -> DataFrame``.

        ``accepts(fit) -> bool`` narrows the fits it reads (e.g. the cell model's).
        """

        def deco(fn):
            if accepts is not None:
                fn.accepts = accepts
            self._table[name] = Check(name, fn, needs, summary)
            return fn

        return deco


class Study:
    """Validated data and priors of one study; fits by any registered method.

    Subclasses set ``family``, ``fit_type``, ``default_method``, ``default_methods``
    (what :meth:`compare` fits when none are named) and register their methods and checks
    in the tables each subclass gets of its own.  The hooks :meth:`_prepare`,
    :meth:`_info`, :meth:`_notes` and :meth:`_attrs` add what is common to a study's fits.
    """

    family: ClassVar[str] = ""
    fit_type: ClassVar[type[Fit]] = Fit
    methods: ClassVar[Methods]
    checks: ClassVar[Checks]
    default_method: ClassVar[str] = "nuts"
    default_methods: ClassVar[tuple[str, ...]] = ()
    priors: Any = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "methods" not in cls.__dict__:
            cls.methods = Methods(cls.__name__)
        if "checks" not in cls.__dict__:
            cls.checks = Checks(cls.__name__)

    # ----------------------------------------------------------------- facts
    @property
    def quantity(self) -> str:
        """The variable the study's fits report by default."""
        return self.fit_type.quantity

    # ----------------------------------------------------------------- fitting
    def fit(self, method: str | None = None, *, random_seed: int | None = None, **options: Any):
        """Fit by ``method`` (default :attr:`default_method`).

        Parameters
        ----------
        method : str, optional
            A name of :attr:`methods` (``study.methods.describe()`` lists them with their
            options; ``closed-form`` and ``closed_form`` are one method).
        random_seed : int, optional
            Same seed, same numbers.
        **options
            What the method takes, and nothing else: an unknown keyword is an
            :class:`~judgebayes.errors.InputError` that lists the valid ones.

        Returns
        -------
        Fit
            Of the study's family (:attr:`fit_type`), complete.
        """
        m = self.methods.resolve(self.default_method if method is None else method)
        m.check_options(options)
        if "draws" in options:
            options["draws"] = check_count(options["draws"], "draws", MIN_DRAWS)
        seed = check_seed(random_seed)
        self._prepare(m)
        t0 = time.perf_counter()
        parts = m.fn(self, random_seed=seed, **options)
        info = {**self._info(m, parts), **parts.info}
        notes = (*parts.notes, *self._notes(m, parts, info))
        attrs = {
            "method": m.name,
            "family": self.family,
            "random_seed": seed,
            "priors": self.priors if self._uses_priors(m) else None,
            "sampler": info.get("sampler"),
            **self._attrs(m, parts),
        }
        idata = parts.idata
        if isinstance(idata, LazyTree):
            idata = idata.then(lambda t: stamp(t, attrs))
        else:
            stamp(idata, attrs)
        return self.fit_type(
            m.name,
            idata,
            **({"quantity": parts.quantity} if parts.quantity else {}),
            diagnostics=parts.diagnostics,
            seconds=time.perf_counter() - t0,
            info=info,
            notes=tuple(dict.fromkeys(notes)),
            interval_fn=parts.interval_fn,
            estimate_override=parts.point,
            **parts.extra,
        )

    def _uses_priors(self, method: Method) -> bool:
        return method.engine in ("laplace", "nuts", "exact", "newton")

    def _prepare(self, method: Method) -> None:
        """Before a fit: refuse what this study's data cannot support (default: nothing)."""

    def _info(self, method: Method, parts: FitParts) -> dict:
        """Info common to the study's fits (the method's own info wins)."""
        return {}

    def _notes(self, method: Method, parts: FitParts, info: dict) -> tuple[str, ...]:
        """Notes common to the study's fits (after the method's own)."""
        return ()

    def _attrs(self, method: Method, parts: FitParts) -> dict:
        """Model facts written into the tree's attrs."""
        return {}

    # ----------------------------------------------------------------- engines
    def _nuts(
        self, spec, model: str, sampler: Any, random_seed, *, log_likelihood=None, prior_draws=0
    ) -> FitParts:
        """NUTS on ``spec`` with ``model``'s default sampler updated by ``sampler`` (the gate
        runs; the tree gets ``observed_data``, ``log_likelihood`` unless
        ``log_likelihood=False`` (or a list of the observed variables to keep), and
        ``prior_draws`` draws of the prior and prior predictive).
        """
        cfg = resolve_sampler(model, sampler)
        idata, diag, info = sample_nuts(
            spec,
            random_seed=random_seed,
            sampler=cfg,
            log_likelihood=log_likelihood,
            prior_draws=prior_draws,
        )
        return FitParts(idata, diagnostics=diag, info={**info, "sampler": cfg})

    def _laplace(self, spec, random_seed, *, draws: int, importance: bool, **kw) -> FitParts:
        """MAP + Laplace draws of ``spec`` (the importance check refuses a poor fit)."""
        idata, info = fit_laplace(
            spec,
            draws=draws,
            random_seed=random_seed,
            importance=importance,
            **kw,
        )
        return FitParts(idata, info=info)

    # ----------------------------------------------------------------- comparing
    def compare(
        self,
        methods: Sequence[str] | None = None,
        *,
        alpha: float = 0.05,
        kind: str = "equal_tailed",
        random_seed: int | None = 0,
        options: dict[str, dict[str, Any]] | None = None,
        plot: bool = False,
    ):
        """Fit each method and return :func:`~judgebayes.results.compare`'s table.

        A method that refuses these data (Laplace's importance check, a method the design
        does not support) is a row of its own, NaN numbers and the reason in ``note``; the
        other methods still fit.  ``options`` maps a method to its keywords (e.g.
        ``{"nuts": {"sampler": {"draws": 500}}}``); ``plot=True`` also returns the fits'
        forest plot.  Nothing is kept on the study: to keep the fits, call :meth:`fit` and
        :func:`~judgebayes.results.compare`.
        """
        methods = tuple(self.default_methods if methods is None else methods)
        options = dict(options or {})
        unknown = sorted(set(options) - set(methods))
        if unknown:
            raise InputError(
                f"options for {unknown[0]!r}, which is not among methods {methods}",
                field="options",
                value=unknown[0],
            )
        check_alpha(alpha)
        fits, rows = [], []
        for name in methods:
            m = self.methods.resolve(name)  # an unknown name is the caller's error
            try:
                fit = self.fit(name, random_seed=random_seed, **options.get(name, {}))
            except (LaplaceError, InputError) as e:
                if isinstance(e, InputError) and e.field not in _REFUSAL_FIELDS:
                    raise
                rows.append(self._refused_row(m, e, alpha))
                continue
            fits.append(fit)
            rows += fit.summary_rows(alpha, kind)
        table = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
        if plot:
            return table, plot_forest(fits, alpha=alpha) if fits else None
        return table

    def _refused_row(self, method: Method, error: JudgeBayesError, alpha: float) -> dict:
        row = dict.fromkeys(COMPARISON_COLUMNS, np.nan)
        row.update(
            method=method.name,
            family=self.family,
            quantity=self.quantity,
            estimand="",
            unit="",
            level=1 - alpha,
            note=f"refused: {error}",
        )
        return row

    # ----------------------------------------------------------------- checking
    def check(self, fit: Fit | None = None, *, alpha: float = 0.01) -> pd.DataFrame:
        """Every registered check that applies (to the data alone, or to ``fit``'s draws),
        as one table with :data:`CHECK_COLUMNS`: a row per checked count or statistic,
        ``flagged`` where its p-value is below ``alpha``.  An empty table means this study
        has no check for that fit; say so rather than read it as a pass.
        """
        alpha = check_alpha(alpha)
        tables = [
            c.fn(self, fit, alpha=alpha).assign(check=c.name)
            for c in self.checks.values()
            if c.applies(fit)
        ]
        if not tables:
            return pd.DataFrame(columns=list(CHECK_COLUMNS))
        out = pd.concat(tables, ignore_index=True)
        rest = [c for c in out.columns if c not in CHECK_COLUMNS]
        return out[[*CHECK_COLUMNS, *rest]]


#: InputError fields that mean "this method refuses these data" (a row in ``compare``)
_REFUSAL_FIELDS = ("method", "better_than_chance", "weights", "judge", "cluster", "stratum")
