"""Sampling: nutpie (or PyMC's sampler when interpreted), a Ctrl-C that reaches the
caller, and the trace kept to the named variables with the observed data beside it.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.inference.executors import task_threads
from judgebayes.inference.nuts.compile import cached_compile, init_mean
from judgebayes.inference.nuts.gate import check_convergence
from judgebayes.inference.nuts.predictive import (
    add_log_likelihood,
    add_posterior_predictive,
    add_prior,
    check_prior_drawable,
    check_replicable,
)
from judgebayes.inference.progress import progress_enabled
from judgebayes.inference.registry import SamplerConfig
from judgebayes.results import tree

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.inference.nuts.gate import Diagnostics
    from judgebayes.inference.nuts.spec import ModelSpec


def _keep_named(idata, names):
    """Drop unconstrained (transformed) variables from the posterior: keep ``names``."""
    post = idata["posterior"].to_dataset()
    post = post.drop_vars([v for v in post.data_vars if v not in names])
    used = {d for v in post.data_vars.values() for d in v.dims}
    # the transformed variables' own dims (``theta_logodds___dim_0``) go with them
    idata["posterior"] = post.drop_dims([d for d in post.dims if d not in used])
    return idata


_WAIT_SECONDS = 0.1  # the longest a Ctrl-C waits to be seen


def _sample_interruptibly(nutpie, compiled, **kwargs):
    """``nutpie.sample`` that a Ctrl-C always stops, returning the trace so far.

    nutpie's blocking wait aborts when a KeyboardInterrupt reaches it, but Python raises
    that exception wherever the main thread happens to be; raised inside a garbage
    collector callback (JAX registers one) it is printed and dropped, and the sampler runs
    on to the last draw.
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
        LOO.  Off by default: PyMC compiles and evaluates it per fit (on the binary model,
        as long again as a warm refit).
    prior_draws : int
        Add ``prior`` and ``prior_predictive`` groups of this many draws (0: none).
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
        check_replicable(spec.build())  # refused before any sampling
    if prior_draws:
        check_prior_drawable(spec.build())  # likewise
    seed = None if random_seed is None else int(random_seed)
    run = _sample_nutpie if cfg.backend == "nutpie" else _sample_pymc
    idata, free, csec, ssec, hit = run(spec, cfg, seed)
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
            "backend": cfg.backend,
            "compile_seconds": csec,
            "sample_seconds": ssec,
            "cache_hit": hit,
            "draws": cfg.draws,
            "tune": cfg.tune,
            "chains": cfg.chains,
            "target_accept": cfg.target_accept,
        },
    )


def _sample_nutpie(spec: ModelSpec, cfg: SamplerConfig, seed: int | None):
    """Nutpie on the compiled model (cached by structure, data swapped in): (idata, free
    variables, compile seconds, sampling seconds, cache hit).
    """
    import nutpie

    compiled, model, facts, hit, csec = cached_compile(spec)
    model = model if model is not None else spec.build()
    t0 = time.perf_counter()
    start = init_mean(model, spec.init) if spec.init else None
    if start is not None:

        def initial_point(seed, _start=start):
            # moment-based start, jittered per chain (nutpie passes a per-chain seed)
            jit = np.random.default_rng(seed).uniform(-0.5, 0.5, _start.size)
            return np.ascontiguousarray(_start + jit, dtype=np.float64)

        compiled = dataclasses.replace(compiled, initial_point_func=initial_point)
    idata = _sample_interruptibly(
        nutpie,
        compiled,
        draws=cfg.draws,
        tune=cfg.tune,
        chains=cfg.chains,
        # an executor's task has one slot: its chains in sequence (same draws)
        cores=task_threads(),
        seed=seed,
        # nutpie's own display: HTML in Jupyter, a line on a terminal's stderr
        progress_bar=progress_enabled(),
        target_accept=cfg.target_accept,
        save_warmup=False,
    )
    ssec = time.perf_counter() - t0
    got = idata["posterior"].sizes.get("draw", 0) if "posterior" in idata.children else 0
    if got < cfg.draws:
        # nutpie answers Ctrl-C by returning the draws it has: a partial trace is not a
        # posterior, so the interrupt goes on to the caller (the CLI exits 130)
        raise KeyboardInterrupt(f"NUTS interrupted after {got} of {cfg.draws} draws")
    idata = _keep_named(idata, facts.named)
    _add_data_groups(idata, model)
    return idata, facts.free, csec, ssec, hit


def _sample_pymc(spec: ModelSpec, cfg: SamplerConfig, seed: int | None):
    """PyMC's own NUTS (no compile cache): as :func:`_sample_nutpie`."""
    import pymc as pm

    model = spec.build()
    t0 = time.perf_counter()
    with model:
        idata = pm.sample(
            draws=cfg.draws,
            tune=cfg.tune,
            chains=cfg.chains,
            cores=task_threads(),
            random_seed=seed,
            target_accept=cfg.target_accept,
            progressbar=False,
            compute_convergence_checks=False,
            nuts_sampler="pymc",
        )
    free = tuple(v.name for v in model.free_RVs)
    return idata, free, 0.0, time.perf_counter() - t0, False


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
