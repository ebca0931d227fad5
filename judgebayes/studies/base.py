r"""One study contract, written once: ``fit``, ``compare`` and ``check`` for every family.

A study holds validated data and priors and keeps no fit.  Each model variant is a class
(``AccuracyStudy`` -> ``BinaryAccuracy``, ``ItemStudy`` -> ``PairedItems``, ...) whose
method table inherits its parent's: a variant adds a method, overrides one or refuses one
it cannot serve, and the factories (``from_counts``, ``from_items``, ...) pick the class
from the data.  A method is a registered callable::

    @AccuracyStudy.methods.register("laplace", engine="laplace", summary="MAP + Laplace")
    def _laplace(study, *, random_seed=None, draws=4000, importance=True) -> FitParts: ...

The keywords a method takes are its keyword-only parameters (``random_seed`` aside), so
``study.fit("laplace", drows=10)`` is an :class:`~judgebayes.errors.InputError` that lists
``draws`` and ``importance``.  A method that cannot serve valid data raises
:class:`~judgebayes.errors.MethodRefused` (or is registered as a refusal), which
:meth:`Study.compare` shows as a row with its reason.  :meth:`Study.fit` completes the
method's :class:`FitParts` once: timing, the study's own info and notes, the attributes
written into the tree.  The fit is never changed after.

Every concrete study class has a ``key`` (``"items.paired"``) and is listed in
:data:`STUDIES`; checks name the keys of the classes they apply to
(:mod:`judgebayes.checks`), and :meth:`Study.check` runs every one that applies.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from judgebayes.checks import CheckReport, checks_for
from judgebayes.errors import InputError, MethodRefused
from judgebayes.inference.laplace import fit_laplace
from judgebayes.inference.nuts import sample_nuts
from judgebayes.inference.registry import (
    MIN_DRAWS,
    check_count,
    check_seed,
    normalise_method,
    resolve_sampler,
)
from judgebayes.results import COMPARISON_COLUMNS, Fit, LazyTree, check_alpha, plot_forest, stamp
from judgebayes.studies.methods import Method, Methods

__all__ = ["STUDIES", "FitParts", "Method", "Methods", "Study", "register_bayes"]


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


#: every concrete study class by its key (``Study.key``), for the CLI, archives and tests
STUDIES: dict[str, type[Study]] = {}


class Study:
    """Validated data and priors of one study; fits by any registered method.

    Subclasses set ``family``, ``key`` (the variant's name: ``"accuracy.binary"``),
    ``fit_type``, ``default_method`` and ``default_methods`` (what :meth:`compare` fits
    when none are named) and register methods in the table each class gets (it inherits
    its parent's).  The hooks :meth:`_prepare`, :meth:`_info`, :meth:`_notes` and
    :meth:`_attrs` add what is common to a study's fits.
    """

    family: ClassVar[str] = ""
    key: ClassVar[str] = ""
    fit_type: ClassVar[type[Fit]] = Fit
    methods: ClassVar[Methods]
    default_method: ClassVar[str] = "nuts"
    default_methods: ClassVar[tuple[str, ...]] = ()
    #: a family's door (or a class between it and its variants): constructing it, or
    #: calling its factories, returns the variant :meth:`variant_for` picks from the data
    abstract: ClassVar[bool] = False
    #: the order in which :meth:`variant_for` asks a family's variants (the lowest first)
    priority: ClassVar[int] = 100
    priors: Any = None
    #: why the variant was chosen from the data (None: asked for by its class)
    chosen: str | None = None
    #: the Bayesian model's name, for a family whose models are classes (the command
    #: line's ``--variant`` / ``--model``); empty: not one of them
    model_name: ClassVar[str] = ""

    def __new__(cls, *args: Any, **kwargs: Any):
        """The variant the data call for (:meth:`variant_for`): a family's door returns one
        of its variants, and a variant returns itself or a variant below it (unpickling,
        which passes no data, keeps the class it is given).
        """
        chosen = None
        if cls.__dict__.get("abstract", False) or ((args or kwargs) and cls.variants()):
            data = cls._variant_data(*args, **kwargs)
            variant = cls.variant_for(data)
            if variant is not cls:
                chosen = variant.why(data)
            cls = variant
        study = super().__new__(cls)
        study.chosen = chosen
        return study

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "methods" not in cls.__dict__:
            parent = next((b.methods for b in cls.__mro__[1:] if "methods" in b.__dict__), None)
            cls.methods = Methods(cls.__name__, parent)
        if "key" in cls.__dict__ and cls.key:
            if cls.key in STUDIES and STUDIES[cls.key].__qualname__ != cls.__qualname__:
                raise TypeError(f"study key {cls.key!r} is taken by {STUDIES[cls.key]}")
            STUDIES[cls.key] = cls

    # ----------------------------------------------------------------- variants
    @classmethod
    def matches(cls, data: Any) -> bool:
        """Whether ``data`` (what :meth:`_variant_data` returns) call for this variant.

        :meth:`variant_for` asks the variants that define it, by :attr:`priority`; a
        variant that does not is reached by its class alone (``PooledPanel.from_frames``).
        """
        return False

    @classmethod
    def why(cls, data: Any) -> str:
        """Why :meth:`variant_for` chose this variant for ``data`` (kept as
        :attr:`chosen`; the panel's fits say it in a note).
        """
        return f"{cls.__name__}, the variant these data call for"

    @classmethod
    def _variant_data(cls, data: Any = None, *args: Any, **kwargs: Any) -> Any:
        """What the constructor's arguments give :meth:`matches` (default: the data)."""
        return data

    @classmethod
    def variants(cls) -> tuple[type[Study], ...]:
        """The registered variants below this class (itself included) that
        :meth:`variant_for` asks (those that define :meth:`matches`), in the order it asks
        them.
        """
        found = [
            s
            for s in STUDIES.values()
            if issubclass(s, cls) and not s.__dict__.get("abstract") and "matches" in s.__dict__
        ]
        return tuple(sorted(found, key=lambda s: s.priority))

    @classmethod
    def variant_for(cls, data: Any) -> type[Study]:
        """The first of :meth:`variants` whose :meth:`matches` holds for ``data``; when
        none does, this class itself (a variant asked for by its class), or an
        :class:`~judgebayes.errors.InputError` for a family's door.
        """
        for variant in cls.variants():
            if variant.matches(data):
                return variant
        if not cls.__dict__.get("abstract", False):
            return cls
        raise InputError(
            f"no {cls.__name__} variant takes these data ({type(data).__name__}); the "
            f"variants: {[v.__name__ for v in cls.variants()]}",
            field="data",
            value=type(data).__name__,
        )

    @classmethod
    def models(cls) -> tuple[type[Study], ...]:
        """Every registered model class below this one (those with a :attr:`model_name`),
        in :attr:`priority` order.
        """
        found = [c for c in STUDIES.values() if issubclass(c, cls) and c.model_name]
        return tuple(sorted(found, key=lambda c: c.priority))

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The keys of this class and its parents (what checks match on)."""
        return tuple(dict.fromkeys(k for b in cls.__mro__ if (k := b.__dict__.get("key"))))

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

        Raises
        ------
        MethodRefused
            The method cannot serve these data (its reason names what can).
        """
        m = self.methods.resolve(self.default_method if method is None else method)
        m.check_options(options)
        if "draws" in options:
            options["draws"] = check_count(options["draws"], "draws", MIN_DRAWS)
        seed = check_seed(random_seed)
        self._prepare(m)
        t0 = time.perf_counter()
        try:
            parts = m.fn(self, random_seed=seed, **options)
        except MethodRefused as e:
            e.method = e.method or m.name
            raise
        info = {**self._info(m, parts), **parts.info}
        notes = (*parts.notes, *self._notes(m, parts, info))
        if parts.diagnostics is not None and not parts.diagnostics.passed:
            notes = (parts.diagnostics.message(), *notes)  # kept with the fit, saved with it
        attrs = {
            "method": m.name,
            "family": self.family,
            "study": type(self).__name__,
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
    def _bayes_spec(self, engine: str):
        """The model spec of the generic ``laplace`` and ``nuts`` (:func:`register_bayes`)."""
        return self.model_spec()

    def _bayes_done(self, parts: FitParts, random_seed) -> FitParts:
        """What a variant adds to a generic Bayesian fit (default: nothing)."""
        return parts

    def _nuts(
        self,
        spec,
        sampler: Any,
        random_seed,
        *,
        log_likelihood=None,
        prior_draws=0,
        posterior_predictive=False,
    ) -> FitParts:
        """NUTS on ``spec`` with its own default sampler updated by ``sampler`` (the gate
        runs; the tree gets ``observed_data``, and on request ``log_likelihood`` (or a list
        of the observed variables to keep), ``prior_draws`` draws of the prior and prior
        predictive, and the ``posterior_predictive`` group).
        """
        cfg = resolve_sampler(spec.sampler, sampler)
        idata, diag, info = sample_nuts(
            spec,
            random_seed=random_seed,
            sampler=cfg,
            log_likelihood=log_likelihood,
            prior_draws=prior_draws,
            posterior_predictive=posterior_predictive,
        )
        return FitParts(idata, diagnostics=diag, info={**info, "sampler": cfg})

    def _laplace(self, spec, random_seed, *, draws: int, importance: bool, **kw) -> FitParts:
        """MAP + Laplace draws of ``spec`` (the importance check refuses a poor fit)."""
        idata, info = fit_laplace(
            spec, draws=draws, random_seed=random_seed, importance=importance, **kw
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

        A method that refuses these data (:class:`~judgebayes.errors.MethodRefused`:
        Laplace's importance check, a model the variant does not have) is a row of its
        own, NaN numbers and the reason in ``note``; the other methods still fit.  Bad
        input (an unknown method, a keyword a method does not take) is an
        :class:`~judgebayes.errors.InputError`.  ``options`` maps a method to its keywords
        (e.g. ``{"nuts": {"sampler": {"draws": 500}}}``); ``plot=True`` also returns the
        fits' forest plot.  Nothing is kept on the study.
        """
        methods = tuple(self.default_methods if methods is None else methods)
        options = {normalise_method(k): v for k, v in (options or {}).items()}
        names = [normalise_method(m) for m in methods]
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise InputError(
                f"options for {unknown[0]!r}, which is not among methods {methods}",
                field="options",
                value=unknown[0],
            )
        check_alpha(alpha)
        fits, rows = [], []
        for name in names:
            try:
                fit = self.fit(name, random_seed=random_seed, **options.get(name, {}))
            except MethodRefused as e:
                rows.append(self._refused_row(name, e, alpha))
                continue
            fits.append(fit)
            rows += fit.summary_rows(alpha, kind)
        table = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
        if plot:
            return table, plot_forest(fits, alpha=alpha) if fits else None
        return table

    def _refused_row(self, name: str, error: MethodRefused, alpha: float) -> dict:
        row = dict.fromkeys(COMPARISON_COLUMNS, np.nan)
        row.update(
            method=name,
            family=self.family,
            quantity=self.quantity,
            estimand="",
            unit="",
            level=1 - alpha,
            note=f"refused: {error}",
        )
        return row

    # ----------------------------------------------------------------- checking
    def check(self, fit: Fit | None = None, *, alpha: float = 0.01) -> CheckReport:
        """Every registered check that applies to this study (and to ``fit``'s draws),
        as a :class:`~judgebayes.checks.CheckReport`: one result per check, ``table``
        with all their rows, ``passed`` and ``failures`` for the checks of assumptions
        ``fit``'s model makes.  An empty report means no check applies, not a pass.
        """
        alpha = check_alpha(alpha)
        if fit is not None:
            self._own_fit(fit)
        return CheckReport([c(self, fit, alpha=alpha) for c in checks_for(self, fit)])

    def _own_fit(self, fit: Fit) -> None:
        """A fit of this study's family and units, or an :class:`InputError` (a check
        would otherwise read another study's draws against these data).
        """
        if not isinstance(fit, Fit) or fit.family != self.family:
            raise InputError(
                f"check() takes a fit of this {self.family} study; got "
                f"{getattr(fit, 'family', type(fit).__name__)!r}",
                field="fit",
                value=type(fit).__name__,
            )
        systems = getattr(self, "systems", None)
        try:
            units = tuple(fit.units) if fit.unit == "system" else None
        except (KeyError, ValueError):  # a fit without a system dim (one system)
            units = None
        if units is not None and systems is not None and units != tuple(systems):
            raise InputError(
                f"check() takes a fit of this study: the fit's systems {list(units)[:5]} "
                f"are not this study's {list(systems)[:5]}",
                field="fit",
                value=list(units)[:5],
            )


def register_bayes(cls: type[Study]) -> None:
    """Register the generic ``laplace`` and ``nuts`` methods on ``cls``: each fits
    ``study._bayes_spec(engine)`` and hands its parts to ``study._bayes_done``.
    """

    @cls.methods.register("laplace", engine="laplace", summary="MAP + Laplace draws")
    def _laplace(study, *, random_seed=None, draws: int = 4000, importance: bool = True):
        """``draws`` Laplace draws; ``importance`` checks them by PSIS (False: the plain
        Gaussian).
        """
        spec = study._bayes_spec("laplace")
        parts = study._laplace(spec, random_seed, draws=draws, importance=importance)
        return study._bayes_done(parts, random_seed)

    @cls.methods.register("nuts", engine="nuts", summary="NUTS with the gate", mcmc=True)
    def _nuts(
        study,
        *,
        random_seed=None,
        sampler=None,
        log_likelihood: bool = False,
        prior_draws: int = 0,
        posterior_predictive: bool = False,
    ):
        """NUTS (``sampler``: a SamplerConfig or a mapping of its fields);
        ``log_likelihood``, ``prior_draws`` and ``posterior_predictive`` add those groups.
        """
        parts = study._nuts(
            study._bayes_spec("nuts"),
            sampler,
            random_seed,
            log_likelihood=log_likelihood,
            prior_draws=prior_draws,
            posterior_predictive=posterior_predictive,
        )
        return study._bayes_done(parts, random_seed)
