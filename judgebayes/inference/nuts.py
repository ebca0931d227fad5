"""NUTS engine: nutpie with a compile cache and data swapping, and a convergence gate.

A :class:`ModelSpec` names a builder from :mod:`judgebayes.models`, its data arguments
and its structural arguments.  Models with the same structure (builder, structural
arguments, data shapes) are compiled once per process; a later fit swaps the data in
(nutpie's ``with_data``), which takes microseconds instead of the ~10 s of a compile.
nutpie compiles the model with the data of each dtype packed into one vector (its wrapper
costs a compile about 0.35 s per data variable); the model a fit reports is the one built.

After every fit :func:`convergence_diagnostics` runs the gate on every free variable of
the model (hyperparameters and non-centred offsets included, not only the reported
quantities): R-hat <= 1.01, bulk and tail ESS >= 400 (ArviZ, rank-normalised), no
divergent transition, E-BFMI >= 0.3 in every chain (below it the momentum resampling
cannot move the sampler across the energy levels of the posterior: a heavy tail or a
funnel), and at most 1% of the draws at the maximum tree depth (above it the trajectories
are cut short and the chain explores too slowly for its ESS to be trusted).  A fit that
fails emits a :class:`ConvergenceWarning` that lists the numbers, the worst variable and a
hint, and the diagnostics are stored on the result.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import threading
import time
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr

from judgebayes.errors import ConvergenceWarning, MethodRefused, MirrorWarning
from judgebayes.inference.executors import task_threads
from judgebayes.inference.progress import progress_enabled
from judgebayes.inference.registry import SamplerConfig, check_count
from judgebayes.results import tree

__all__ = [
    "BFMI_MIN",
    "ESS_MIN",
    "MAX_DEPTH_SHARE",
    "R_HAT_MAX",
    "ConvergenceWarning",
    "Diagnostics",
    "ModelSpec",
    "add_log_likelihood",
    "add_posterior_predictive",
    "check_convergence",
    "clear_compile_cache",
    "convergence_diagnostics",
    "interpreted",
    "quiet_engine_warnings",
    "sample_nuts",
]


@contextmanager
def interpreted():
    """Compile nothing inside: PyTensor functions made in this block run NumPy per node.

    Yields the compile keywords (``mode``).  PyTensor's FAST_COMPILE still builds C modules
    for the ops that have them and links inner graphs with them (about 1 s each on a
    machine whose cache is empty), and the default linker compiles with Numba (5-40 s per
    model structure); with no C compiler configured, neither happens.  The flag is
    process-wide while the block runs: a function another thread compiles meanwhile is
    interpreted too (slower, the same numbers).
    """
    import pytensor
    from pytensor.compile.mode import Mode

    with pytensor.config.change_flags(cxx=""):
        yield {"mode": Mode(linker="vm", optimizer="fast_compile")}


R_HAT_MAX = 1.01
ESS_MIN = 400
BFMI_MIN = 0.3
MAX_DEPTH_SHARE = 0.01


@contextmanager
def quiet_engine_warnings():
    """For the CLI and the demo: silence PyTensor's BLAS notice, the gate's and the mirror's
    warnings.

    Callers that use it report ``fit.diagnostics`` themselves (one line per failed fit),
    so a failed gate is still said, once, in their own format.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*BLAS.*")
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", MirrorWarning)  # in fit.notes / info["p_mirror"]
        yield


@dataclass(frozen=True)
class ModelSpec:
    """What to build: ``builder(**data, **structure)`` returns a ``pm.Model``.

    ``data`` holds the arguments that may change between fits without recompiling;
    ``structure`` the ones that define the model's graph (coords, design, priors).
    ``var_names`` are the reported variables (checked by the gate).  ``density``
    (optional) returns the same model's log density in numpy (``x0``, ``logp``, ``grad``,
    ``expand``, ``dims``, ``coords``: e.g.
    :class:`~judgebayes.models.accuracy.ItemsLogDensity`); the Laplace engine then uses
    it instead of compiling the PyTensor graph.  ``sampler`` is the model's own NUTS
    default (its variant states it with the measured reason); a fit's ``sampler=`` updates it.
    """

    builder: Callable[..., Any]
    data: dict[str, Any]
    structure: dict[str, Any]
    var_names: tuple[str, ...]
    init: dict[str, Any] | None = None
    density: Callable[[], Any] | None = None
    sampler: SamplerConfig = field(default_factory=SamplerConfig)

    def build(self):
        """A fresh ``pm.Model``."""
        return self.builder(**self.data, **self.structure)

    def key(self) -> tuple:
        """Hashable identity of the compiled graph."""
        return (
            self.builder.__module__,
            self.builder.__qualname__,
            tuple(sorted((k, repr(v)) for k, v in self.structure.items())),
            tuple(sorted((k, np.shape(v)) for k, v in self.data.items())),
        )


@dataclass
class _Compiled:
    nutpie_model: Any
    model: Any
    compile_seconds: float
    facts: _Facts
    packs: dict[str, tuple[tuple[str, tuple[int, ...]], ...]]
    known: set[str]

    @property
    def packed(self) -> set[str]:
        """The data variables read from a packed vector."""
        return {n for members in self.packs.values() for n, _ in members}


@dataclass(frozen=True)
class _Facts:
    """What a warm refit needs from a model structure, read once when it compiles.

    ``free`` and ``named``: the free variables (nutpie's order) and every variable kept in
    the posterior.  ``data``: the data variables' names and dtypes when every one of them
    is the spec's own array of that name (then a refit without start values swaps
    ``spec.data`` in without building the model), else None.
    """

    free: tuple[str, ...]
    named: frozenset[str]
    data: dict[str, Any] | None


def _facts(model, spec: ModelSpec, known: set[str]) -> _Facts:
    free = tuple(v.name for v in model.free_RVs)
    named = frozenset(free) | {v.name for v in model.deterministics}
    data: dict[str, Any] | None = {}
    for d in model.data_vars:
        if d.name not in known:
            continue
        v = d.get_value()
        mine = spec.data.get(d.name)
        if mine is None or np.shape(mine) != v.shape or not np.array_equal(mine, v):
            data = None
            break
        data[d.name] = v.dtype
    return _Facts(free, named, data)


_CACHE: dict[tuple, _Compiled] = {}
_CACHE_MAX = 32


def clear_compile_cache() -> None:
    """Forget every compiled model (the next fit compiles again)."""
    _CACHE.clear()


def _data_values(model, known: set[str] | None = None) -> dict[str, np.ndarray]:
    """The model's data by name; with ``known``, only those names (nutpie compiles away a
    data variable that neither the log density nor a kept deterministic reads).
    """
    return {d.name: d.get_value() for d in model.data_vars if known is None or d.name in known}


def _known_data(compiled, packs) -> set[str]:
    """The data variables nutpie kept (a packed vector stands for its members)."""
    names = {v.name for v in compiled.shared_var_keys}
    return (names - set(packs)) | {n for p in names & set(packs) for n, _ in packs[p]}


def _packed(model):
    """(model for nutpie, packs): every data variable of one dtype read from one vector.

    nutpie's compiled wrapper reads each shared variable through a load of its own, typed
    and inlined at every compile, cache hit or not: about 0.35 s of a compile per variable
    (measured on a toy model with 1, 4 and 8 data vectors; the items model's 7 counts
    packed into one: 6.5 s -> 5.1 s on a hit).  Each variable becomes a slice of its
    dtype's vector, reshaped to its shape; shapes are part of :meth:`ModelSpec.key`.
    ``packs`` maps a vector's name to its ``(variable, shape)`` in order; ``model`` is
    returned as it is when no dtype has two variables.
    """
    from pymc.model.fgraph import fgraph_from_model, model_from_fgraph
    from pytensor import shared
    from pytensor.graph import FunctionGraph
    from pytensor.graph.replace import clone_replace

    groups: dict[str, list] = {}
    for d in model.data_vars:
        groups.setdefault(str(d.dtype), []).append(d)
    groups = {k: v for k, v in groups.items() if len(v) > 1}
    if not groups:
        return model, {}
    starts = {rv.name: v for rv, v in model.rvs_to_initial_values.items() if v is not None}
    for rv in model.rvs_to_initial_values:
        model.rvs_to_initial_values[rv] = None
    try:
        fg, memo = fgraph_from_model(model)
    finally:
        for name, v in starts.items():
            model.rvs_to_initial_values[model[name]] = v
    swap, packs = {}, {}
    for dtype, ds in groups.items():
        values = [d.get_value() for d in ds]
        vec = shared(np.concatenate([np.ravel(v) for v in values]), name=f"_data_{dtype}")
        packs[vec.name] = tuple((d.name, v.shape) for d, v in zip(ds, values, strict=True))
        at = 0
        for d, v in zip(ds, values, strict=True):
            swap[memo[d].owner.inputs[0]] = vec[at : at + v.size].reshape(v.shape)
            at += v.size
    coords, lengths = fg._coords, fg._dim_lengths
    fg = FunctionGraph(outputs=clone_replace(fg.outputs, replace=swap), clone=False)
    fg._coords, fg._dim_lengths = coords, lengths
    out = model_from_fgraph(fg, mutate_fgraph=True)
    # the round trip lists variables in the graph's order: back to the model's (nutpie's
    # parameter vector, the start values and the log density's sum follow it)
    for kind in ("free_RVs", "observed_RVs", "potentials", "deterministics", "data_vars"):
        at = {v.name: i for i, v in enumerate(getattr(model, kind))}
        getattr(out, kind).sort(key=lambda v, at=at: at[v.name])
    for name, v in starts.items():
        out.set_initval(out[name], v)
    return out, packs


def _with_data(entry: _Compiled, values: dict[str, np.ndarray]):
    """``entry``'s nutpie model reading ``values`` (by data name), or None when a packed
    variable's shape is not the one compiled.
    """
    out = {k: v for k, v in values.items() if k not in entry.packed}
    for vec, members in entry.packs.items():
        if not all(n in values for n, _ in members):
            continue  # a vector nutpie compiled away
        if any(np.shape(values[n]) != shape for n, shape in members):
            return None
        out[vec] = np.concatenate([np.ravel(values[n]) for n, _ in members])
    return entry.nutpie_model.with_data(**out)


def _compiled(spec: ModelSpec) -> tuple[Any, Any, _Facts, bool, float]:
    """(nutpie model with this spec's data, pm.Model or None, the structure's facts, cache
    hit?, compile seconds).

    On a hit whose data are the spec's own arrays (``_Facts.data``) the model is not
    built: the data go to nutpie as they are (a build cost about a fifth of a warm refit
    of the binary model).
    """
    import nutpie
    import pytensor

    key = spec.key()
    entry = _CACHE.get(key)
    if entry is not None and entry.facts.data is not None:
        values = {
            name: np.asarray(spec.data[name], dtype=dtype)
            for name, dtype in entry.facts.data.items()
        }
        return _with_data(entry, values), None, entry.facts, True, 0.0
    model = spec.build()
    if entry is not None:
        swapped = _with_data(entry, _data_values(model, entry.known))
        if swapped is not None:
            return swapped, model, entry.facts, True, 0.0
    t0 = time.perf_counter()
    target, packs = _packed(model)
    # IEEE arithmetic, not fastmath: a fresh compile inlines the graph's kernels
    # into one function and LLVM may then fuse and reorder its floating-point
    # operations, while a load from PyTensor's cache links them apart; with
    # fastmath on, the same seed gave different draws in the process that compiled
    # first (measured: SBC ranks 89 against 106 from the same seed)
    with pytensor.config.change_flags(numba__fastmath=False):
        compiled = nutpie.compile_pymc_model(target)
    csec = time.perf_counter() - t0
    if key not in _CACHE and len(_CACHE) >= _CACHE_MAX:
        _CACHE.pop(next(iter(_CACHE)))
    known = _known_data(compiled, packs)
    _CACHE[key] = _Compiled(compiled, model, csec, _facts(model, spec, known), packs, known)
    return compiled, model, _CACHE[key].facts, False, csec


def _init_mean(model, init: dict[str, Any] | None) -> np.ndarray | None:
    """Unconstrained start vector (nutpie's order: ``model.free_RVs``) from constrained values.

    Starting near the moment estimates keeps every chain away from the mirror region
    q0 + q1 < 1 (same judge rates for theta and 1 - theta), where a chain can otherwise
    settle against theta in {0, 1} and never leave during tuning.
    """
    if not init:
        return None
    for name, value in init.items():
        if name in model.named_vars and model[name] in model.free_RVs:
            model.set_initval(model[name], np.asarray(value, dtype=float))
    ip = model.initial_point()
    return np.concatenate(
        [np.ravel(ip[model.rvs_to_values[rv].name]) for rv in model.free_RVs]
    ).astype(float)


def _keep_named(idata, names):
    """Drop unconstrained (transformed) variables from the posterior: keep ``names``."""
    post = idata["posterior"].to_dataset()
    post = post.drop_vars([v for v in post.data_vars if v not in names])
    used = {d for v in post.data_vars.values() for d in v.dims}
    # the transformed variables' own dims (``theta_logodds___dim_0``) go with them
    idata["posterior"] = post.drop_dims([d for d in post.dims if d not in used])
    return idata


@dataclass(frozen=True)
class Diagnostics:
    """Convergence numbers of one fit and whether they pass the gate.

    ``var_names`` are the variables checked (the reported ones and every other free
    variable); ``worst`` names the variable with the largest R-hat and the one with the
    smallest ESS.
    """

    r_hat_max: float
    ess_bulk_min: float
    ess_tail_min: float
    divergences: int
    r_hat_threshold: float = R_HAT_MAX
    ess_threshold: float = ESS_MIN
    var_names: tuple[str, ...] = field(default=())
    bfmi_min: float = float("nan")
    max_depth_share: float = 0.0
    worst: tuple[str, str] = ("", "")
    bfmi_threshold: float = BFMI_MIN
    depth_threshold: float = MAX_DEPTH_SHARE

    @property
    def passed(self) -> bool:
        """True when every criterion holds.

        A missing E-BFMI (no energy statistic) is not held against the fit.
        """
        return (
            self.r_hat_max <= self.r_hat_threshold
            and self.ess_bulk_min >= self.ess_threshold
            and self.ess_tail_min >= self.ess_threshold
            and self.divergences == 0
            and not self.bfmi_min < self.bfmi_threshold
            and self.max_depth_share <= self.depth_threshold
        )

    def message(self) -> str:
        """One paragraph: the numbers that failed and what to try."""
        bad = []
        if not self.r_hat_max <= self.r_hat_threshold:
            bad.append(f"R-hat {self.r_hat_max:.3f} > {self.r_hat_threshold} ({self.worst[0]})")
        if not self.ess_bulk_min >= self.ess_threshold:
            bad.append(
                f"bulk ESS {self.ess_bulk_min:.0f} < {self.ess_threshold:g} ({self.worst[1]})"
            )
        if not self.ess_tail_min >= self.ess_threshold:
            bad.append(f"tail ESS {self.ess_tail_min:.0f} < {self.ess_threshold:g}")
        if self.divergences:
            bad.append(f"{self.divergences} divergent transition(s)")
        if self.bfmi_min < self.bfmi_threshold:
            bad.append(f"E-BFMI {self.bfmi_min:.2f} < {self.bfmi_threshold}")
        if self.max_depth_share > self.depth_threshold:
            bad.append(f"{self.max_depth_share:.1%} of draws at the maximum tree depth")
        if not bad:
            return "converged"
        hint = (
            "raise target_accept towards 0.99 and check the priors"
            if self.divergences
            else "reparameterise or tighten the priors (the sampler cannot cross the posterior)"
            if self.bfmi_min < self.bfmi_threshold
            else "run more draws/tune or more chains"
        )
        return (
            f"NUTS did not pass the convergence gate on {len(self.var_names)} variable(s) "
            f"({', '.join(self.var_names[:8])}{', ...' if len(self.var_names) > 8 else ''}): "
            f"{'; '.join(bad)}. Do not report these numbers; {hint}."
        )


def convergence_diagnostics(
    idata, var_names, r_hat: float = R_HAT_MAX, ess: float = ESS_MIN
) -> Diagnostics:
    """The gate's numbers over ``var_names`` (R-hat max, bulk and tail ESS min, via ArviZ),
    divergences, E-BFMI (min over chains) and the share of draws at the maximum tree depth.
    """
    import arviz as az

    var_names = [v for v in dict.fromkeys(var_names) if v in idata.posterior]
    # a variable the data fix (a deterministic with constant draws) gives R-hat 0/0: numpy
    # warns, ArviZ returns NaN, and per_var below drops it (a constant cannot fail to mix)
    with np.errstate(invalid="ignore", divide="ignore"):
        rh = az.rhat(idata, var_names=var_names)
        eb = az.ess(idata, var_names=var_names, method="bulk")
        et = az.ess(idata, var_names=var_names, method="tail")

    def per_var(ds, fn):
        out = {}
        for v in ds.data_vars:
            vals = np.ravel(ds[v].values)
            vals = vals[np.isfinite(vals)]
            if vals.size:
                out[v] = float(fn(vals))
        return out

    r_by, eb_by = per_var(rh, np.max), per_var(eb, np.min)
    et_by = per_var(et, np.min)
    r = max(r_by.values(), default=float("nan"))
    stats = idata["sample_stats"] if "sample_stats" in idata.children else {}
    div = int(stats["diverging"].sum()) if "diverging" in stats else 0
    bfmi = float("nan")
    if "energy" in stats and stats["energy"].sizes.get("draw", 0) > 1:
        bfmi = float(np.min(az.bfmi(idata)["energy"].values))
    depth = 0.0
    for name in ("maxdepth_reached", "reached_max_treedepth"):
        if name in stats:
            depth = float(np.mean(stats[name].values))
    return Diagnostics(
        r_hat_max=r,
        ess_bulk_min=min(eb_by.values(), default=float("nan")),
        ess_tail_min=min(et_by.values(), default=float("nan")),
        divergences=div,
        r_hat_threshold=r_hat,
        ess_threshold=ess,
        var_names=tuple(var_names),
        bfmi_min=bfmi,
        max_depth_share=depth,
        worst=(
            max(r_by, key=r_by.get, default=""),
            min(eb_by, key=eb_by.get, default=""),
        ),
    )


def check_convergence(idata, var_names, **thresholds) -> Diagnostics:
    """:func:`convergence_diagnostics`, warning with :class:`ConvergenceWarning` on failure."""
    diag = convergence_diagnostics(idata, var_names, **thresholds)
    if not diag.passed:
        warnings.warn(diag.message(), ConvergenceWarning, stacklevel=3)
    return diag


_WAIT_SECONDS = 0.1  # the longest a Ctrl-C waits to be seen


def _sample_interruptibly(nutpie, compiled, **kwargs):
    """``nutpie.sample`` that a Ctrl-C always stops, returning the trace so far.

    nutpie's blocking wait aborts when a KeyboardInterrupt reaches it, but Python raises
    that exception wherever the main thread happens to be; raised inside a garbage
    collector callback (JAX registers one) it is printed and dropped, and the sampler runs
    on to the last draw (once in a fresh-clone suite: a 5M-draw fit went on past 120 s).
    In the main thread the press is therefore only recorded while nutpie samples in the
    background, and the sampler is aborted when it is seen; elsewhere (an executor's worker
    thread receives no signals) nutpie's own blocking wait is used.
    """
    previous = signal.getsignal(signal.SIGINT)  # None: set outside Python, not restorable
    if threading.current_thread() is not threading.main_thread() or previous is None:
        return nutpie.sample(compiled, **kwargs)
    pressed: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        sampler = nutpie.sample(compiled, blocking=False, **kwargs)
        try:
            while not pressed:
                try:  # returns the trace as soon as sampling ends
                    return sampler.wait(timeout=_WAIT_SECONDS)
                except TimeoutError:  # nutpie's "still sampling"
                    continue
        except BaseException:
            sampler.cancel()
            raise
        return sampler.abort()
    finally:
        signal.signal(signal.SIGINT, previous)


def sample_nuts(
    spec: ModelSpec,
    *,
    random_seed: int | None = None,
    sampler: SamplerConfig | None = None,
    log_likelihood: bool | list[str] | None = False,
    prior_draws: int = 0,
    posterior_predictive: bool = False,
) -> tuple[Any, Diagnostics, dict[str, Any]]:
    """Sample ``spec`` with NUTS and run the convergence gate.

    Parameters
    ----------
    spec : ModelSpec
        Model to sample (compiled once per structure).
    random_seed : int, optional
        Same seed, same numbers.
    sampler : SamplerConfig, optional
        Draws, tune, chains, target_accept and backend (default ``SamplerConfig()``);
        ``backend="pymc"`` uses ``pm.sample`` (no compile cache); nutpie falls back to it
        when it cannot be imported.
    log_likelihood : bool or list of str
        Add the ``log_likelihood`` group (every observed variable, or the ones named), for
        LOO.  Off by default: PyMC compiles and evaluates it per fit (0.2-0.5 s on the
        binary model, as long again as a warm refit).
    prior_draws : int
        Add ``prior`` and ``prior_predictive`` groups of this many draws (0: none;
        about 0.1 s once PyTensor's cache holds the forward sampler).
    posterior_predictive : bool
        Add the ``posterior_predictive`` group: one replicate of every observed variable
        per posterior draw (for ArviZ's ``plot_ppc_*``).  A model whose likelihood is a
        ``pm.Potential`` has nothing to replicate and is refused by name.

    Returns
    -------
    (idata, diagnostics, info)
        ``idata`` has ``posterior`` (the model's named variables), ``sample_stats``,
        ``observed_data`` and ``constant_data``, and the groups asked for; ``info`` has
        ``backend``, ``compile_seconds``, ``sample_seconds``, ``cache_hit``.
    """
    cfg = sampler or SamplerConfig()
    if posterior_predictive:
        _replicable(spec.build())  # refused before any sampling
    if prior_draws:
        _prior_drawable(spec.build())  # likewise
    draws, tune, chains = cfg.draws, cfg.tune, cfg.chains
    target_accept, backend = cfg.target_accept, cfg.backend
    seed = None if random_seed is None else int(random_seed)
    if backend == "nutpie":
        import nutpie

        compiled, model, facts, hit, csec = _compiled(spec)
        model = model if model is not None else spec.build()
        t0 = time.perf_counter()
        start = _init_mean(model, spec.init) if spec.init else None
        if start is not None:

            def initial_point(seed, _start=start):
                # moment-based start, jittered per chain (nutpie passes a per-chain seed)
                jit = np.random.default_rng(seed).uniform(-0.5, 0.5, _start.size)
                return np.ascontiguousarray(_start + jit, dtype=np.float64)

            compiled = dataclasses.replace(compiled, initial_point_func=initial_point)
        idata = _sample_interruptibly(
            nutpie,
            compiled,
            draws=draws,
            tune=tune,
            chains=chains,
            # an executor's task has one slot: its chains in sequence (same draws)
            cores=task_threads(),
            seed=seed,
            # nutpie's own display: HTML in Jupyter, a line on a terminal's stderr
            progress_bar=progress_enabled(),
            target_accept=target_accept,
            save_warmup=False,
        )
        ssec = time.perf_counter() - t0
        got = idata["posterior"].sizes.get("draw", 0) if "posterior" in idata.children else 0
        if got < draws:
            # nutpie answers Ctrl-C by returning the draws it has: a partial trace is not a
            # posterior, so the interrupt goes on to the caller (the CLI exits 130)
            raise KeyboardInterrupt(f"NUTS interrupted after {got} of {draws} draws")
        idata = _keep_named(idata, facts.named)
        _add_data_groups(idata, model)
        free = facts.free
    else:
        import pymc as pm

        model = spec.build()
        t0 = time.perf_counter()
        with model:
            idata = pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=task_threads(),
                random_seed=seed,
                target_accept=target_accept,
                progressbar=False,
                compute_convergence_checks=False,
                nuts_sampler="pymc",
            )
        ssec, csec, hit = time.perf_counter() - t0, 0.0, False
        free = tuple(v.name for v in model.free_RVs)
    # the gate runs on every free variable, not only the reported ones
    diag = check_convergence(idata, [*spec.var_names, *free])
    if log_likelihood:
        names = None if log_likelihood is True else list(log_likelihood)
        # a fresh model: PyMC cannot transform one whose start values were set
        add_log_likelihood(idata, spec.build(), names)
    if prior_draws:
        add_prior(idata, spec.build(), prior_draws, seed)
    if posterior_predictive:
        add_posterior_predictive(idata, spec.build(), seed)
    return (
        idata,
        diag,
        {
            "backend": backend,
            "compile_seconds": csec,
            "sample_seconds": ssec,
            "cache_hit": hit,
            "draws": draws,
            "tune": tune,
            "chains": chains,
            "target_accept": target_accept,
        },
    )


def _add_data_groups(idata, model) -> None:
    """``observed_data`` and ``constant_data`` of ``model`` (as ``pm.sample`` gives them)."""
    import pymc as pm
    from pymc.backends.arviz import (
        coords_and_dims_for_inferencedata,
        find_constants,
        find_observations,
    )

    coords, dims = coords_and_dims_for_inferencedata(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "could not extract" symbolic data
        obs = find_observations(model)
    for group, values in (("observed_data", obs), ("constant_data", find_constants(model))):
        if values:
            t = tree({group: values}, coords=coords, dims=dims)
            idata[group] = t[group]
            idata[group].attrs["inference_library"] = f"pymc {pm.__version__}"


def add_log_likelihood(idata, model, var_names: list[str] | None = None):
    """Add the pointwise log-likelihood of ``model``'s observed variables (for LOO).

    An entry whose log-likelihood is the same in every draw (to 1e-9: a beta-binomial of
    zero trials is 0 up to rounding) is no observation (a cell with no unannotated output):
    it adds a constant to every model's ELPD and nothing to their difference, and PSIS
    cannot smooth a constant tail, so such entries are left out (the variable's dims are
    then stacked into one ``<var>_obs`` dim labelled ``a|b``).
    """
    if isinstance(model, ModelSpec):
        model = model.build()
    ll = _pointwise_log_likelihood(idata, model, var_names)
    out = {}
    for name, da in ll.data_vars.items():
        obs = [d for d in da.dims if d not in ("chain", "draw")]
        spread = (da.max(("chain", "draw")) - da.min(("chain", "draw"))).values
        if not obs or (spread > 1e-9).all():
            out[name] = da
            continue
        dim = f"{name}_obs"
        flat = da.stack({dim: obs})
        keep = np.ravel(spread > 1e-9)
        labels = [
            "|".join(map(str, t)) if isinstance(t, tuple) else str(t) for t in flat[dim].values
        ]
        flat = flat.drop_vars([dim, *obs]).isel({dim: keep})
        out[name] = flat.assign_coords({dim: np.asarray(labels)[keep]})

    idata["log_likelihood"] = xr.Dataset(out, attrs=ll.attrs)
    return idata


def vectorisable(outputs: list) -> list:
    """``outputs`` with the elementwise ops that interpreted PyTensor runs one element at a
    time in Python (softplus, log1mexp: no NumPy function) written with NumPy's, to the
    same values (the covariate model's log density over 2,000 draws: 12 s before), and the
    ops defined by an inner graph (logsumexp) inlined.
    """
    import pytensor.tensor as pt
    from pytensor.compile.builders import OpFromGraph
    from pytensor.graph.replace import clone_replace, graph_replace
    from pytensor.graph.traversal import ancestors
    from pytensor.scalar.math import Log1mexp, Softplus
    from pytensor.tensor.elemwise import Elemwise

    # ops defined by a graph of their own (logsumexp): inlined, or vectorising them over the
    # draws would loop over the draws in Python
    outputs = list(outputs)
    while True:  # each pass inlines one level of nesting
        nodes = {
            v.owner
            for v in ancestors(outputs)
            if v.owner is not None and isinstance(v.owner.op, OpFromGraph)
        }
        if not nodes:
            break
        swap = {}
        for node in nodes:
            inner = node.op.fgraph.unfreeze()
            given = dict(zip(inner.inputs, node.inputs, strict=True))
            swap |= dict(zip(node.outputs, clone_replace(inner.outputs, given), strict=True))
        outputs = list(graph_replace(outputs, swap, strict=False))

    def numpy_form(op, x):
        if isinstance(op, Softplus):
            return pt.maximum(x, 0) + pt.log1p(pt.exp(-pt.abs(x)))
        return pt.switch(x < -np.log(2), pt.log1p(-pt.exp(x)), pt.log(-pt.expm1(x)))

    swap = {
        v: numpy_form(v.owner.op.scalar_op, v.owner.inputs[0])
        for v in ancestors(outputs)
        if v.owner is not None
        and isinstance(v.owner.op, Elemwise)
        and isinstance(v.owner.op.scalar_op, Softplus | Log1mexp)
    }
    return list(graph_replace(outputs, swap, strict=False)) if swap else list(outputs)


def batched_function(inputs: list, outputs: list):
    """``outputs`` (graphs of ``inputs``) as one interpreted function of the inputs with a
    leading batch dim (draws): the graph vectorised (:func:`vectorisable` first), an output
    that depends on no input broadcast to one copy per row, nothing compiled
    (:func:`interpreted`).  Called with one array per input, shaped (n, *input shape).
    """
    import pytensor
    import pytensor.tensor as pt
    from pytensor.graph.replace import vectorize_graph

    batched = [pt.tensor(dtype=v.dtype, shape=(None, *v.type.shape)) for v in inputs]
    out = vectorize_graph(vectorisable(outputs), replace=dict(zip(inputs, batched, strict=True)))
    n = batched[0].shape[0]
    out = [
        o if o.ndim > g.ndim else pt.broadcast_to(o, (n, *o.shape))
        for o, g in zip(out, outputs, strict=True)
    ]
    with interpreted() as kw:
        return pytensor.function(batched, out, on_unused_input="ignore", **kw)


def _pointwise_log_likelihood(idata, model, var_names: list[str] | None) -> xr.Dataset:
    """Each observed variable's elementwise log density at every posterior draw, in one
    call of one graph vectorised over the draws.

    What ``pm.compute_log_likelihood`` returns, without its loop over the draws: that loop
    calls a function compiled per model structure (5-10 s), or interpreted (:func:`interpreted`)
    a millisecond per draw; the vectorised graph runs interpreted once, NumPy on whole arrays.
    """
    from pymc.backends.arviz import coords_and_dims_for_inferencedata
    from pymc.model.transform.conditioning import remove_value_transforms

    umodel = remove_value_transforms(model)
    names = list(var_names) if var_names else [v.name for v in umodel.observed_RVs]
    terms = umodel.logp(vars=[umodel[n] for n in names], sum=False)
    post = idata["posterior"].to_dataset()
    free = list(umodel.free_RVs)
    fn = batched_function([umodel.rvs_to_values[rv] for rv in free], terms)
    n_chain, n_draw = post.sizes["chain"], post.sizes["draw"]
    values = fn(
        *(
            post[rv.name]
            .values.reshape(n_chain * n_draw, *post[rv.name].shape[2:])
            .astype(rv.dtype)
            for rv in free
        )
    )
    coords, dims = coords_and_dims_for_inferencedata(model)
    data = {}
    for name, v in zip(names, values, strict=True):
        v = np.asarray(v).reshape(n_chain, n_draw, *np.shape(v)[1:])
        # a multivariate variable's log density has no event dims: its leading dims only
        own = list(dims.get(name) or ())[: v.ndim - 2]
        own += [f"{name}_dim_{i}" for i in range(len(own), v.ndim - 2)]
        data[name] = xr.DataArray(
            v,
            dims=("chain", "draw", *own),
            coords={
                "chain": post["chain"].values,
                "draw": post["draw"].values,
                **{d: coords[d] for d in own if d in coords},
            },
        )
    return xr.Dataset(data)


def _replicable(model) -> None:
    """A model with an observed variable to replicate, or a refusal naming the option."""
    if not model.observed_RVs:
        raise MethodRefused(
            "this model's likelihood is a pm.Potential (a marginal over latent labels or "
            "patterns), which has no observed variable to replicate: fit without "
            "posterior_predictive=True, or use the family's checks (study.check(fit))",
            field="posterior_predictive",
            value=True,
        )


def _prior_drawable(model) -> None:
    """A model whose every free variable has a proper prior, or a refusal naming the
    option (a flat coordinate, whose prior is a ``pm.Potential`` on a function of it, has
    no prior to draw from).
    """
    from pymc.distributions.continuous import FlatRV, HalfFlatRV

    flat = [v.name for v in model.free_RVs if isinstance(v.owner.op, (FlatRV, HalfFlatRV))]
    if flat:
        raise MethodRefused(
            f"this model samples {flat[0]!r} on a flat prior (the prior it states is a "
            "potential on a function of it), which has no prior to draw from: fit without "
            "prior_draws",
            field="prior_draws",
            value=flat[0],
        )


def add_posterior_predictive(idata, model, seed: int | None):
    """Add ``posterior_predictive``: one replicate of each observed variable per draw."""
    import pymc as pm

    _replicable(model)
    log = logging.getLogger("pymc")
    level = log.level
    log.setLevel(logging.WARNING)  # not its "Sampling: [...]" line
    try:
        with warnings.catch_warnings(), model, interpreted() as kw:
            warnings.simplefilter("ignore", UserWarning)
            pp = pm.sample_posterior_predictive(
                idata,
                var_names=[v.name for v in model.observed_RVs],
                random_seed=seed,
                progressbar=False,
                return_inferencedata=True,
                compile_kwargs=kw,
            )
    finally:
        log.setLevel(level)
    idata["posterior_predictive"] = pp["posterior_predictive"].to_dataset()
    return idata


def add_prior(idata, model, draws: int, seed: int | None):
    """Add ``prior`` (the model's named variables) and ``prior_predictive`` groups."""
    import pymc as pm

    draws = check_count(draws, "prior_draws")
    _prior_drawable(model)
    named = {v.name for v in (*model.free_RVs, *model.deterministics)}
    with warnings.catch_warnings(), model, interpreted() as kw:
        warnings.simplefilter("ignore", UserWarning)
        pr = pm.sample_prior_predictive(
            draws=draws, random_seed=seed, var_names=None, compile_kwargs=kw
        )
    prior = pr["prior"].to_dataset()
    idata["prior"] = prior[[v for v in prior.data_vars if v in named]]
    idata["prior_predictive"] = pr["prior_predictive"].to_dataset()
    return idata
