"""The SBC sweep: every problem's data sets fitted by NUTS (on an executor), each truth
ranked among the thinned draws.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.errors import ConvergenceWarning, InputError
from judgebayes.inference.executors import describe_executor, run_tasks, task_seeds
from judgebayes.inference.nuts import sample_nuts
from judgebayes.inference.registry import check_count, check_seed, resolve_sampler
from judgebayes.simulate.sbc.accuracy_problems import (
    binary_problem,
    items_clustered_problem,
    items_covariate_problem,
    items_judges_problem,
    items_over_time_problem,
    items_pooled_problem,
    items_problem,
    multiclass_problem,
    strata_problem,
)
from judgebayes.simulate.sbc.board_problems import _board
from judgebayes.simulate.sbc.panel_problems import _panel_cells, _panel_items, _scores
from judgebayes.simulate.sbc.result import SBCResult

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.simulate.sbc.result import SBCDataset


PROBLEMS: dict[str, tuple[Callable[..., SBCDataset], str]] = {
    "binary_random": (binary_problem("random"), "n = 200 judged, 40 labelled at random"),
    "binary_shifted": (
        binary_problem("shifted"),
        "n = 200 judged, 40 labelled from a shifted rate",
    ),
    "strata": (strata_problem(), "3 strata, n = 300/200/100, 15 labels per class per stratum"),
    "multiclass": (multiclass_problem(), "K = 3, 30 labels per true class, 400 judged"),
    "panel_cells": (
        _panel_cells(),
        "4 generators x 4 validators, 80 unannotated outputs each, 2 generators with 30 annotated",
    ),
    "panel_items": (_panel_items(), "1 generator, 5 validators, 120 outputs, 20 labelled"),
    "items": (items_problem(), "2 systems x 300 items, 40 labelled each, one judge, shared rates"),
    "items_pooled": (
        items_pooled_problem(),
        "3 systems x 200 items, 40 labelled each, one judge, rates pooled across systems",
    ),
    "items_covariate": (
        items_covariate_problem(),
        "2 systems x 200 items, 40 labelled each, one judge, rates logistic in a covariate",
    ),
    "items_clustered": (
        items_clustered_problem(),
        "12 prompts x 20 responses, 4 labelled per prompt, one judge",
    ),
    "items_judges": (items_judges_problem(), "300 items, 40 labelled, 3 judges (latent class)"),
    "items_over_time": (
        items_over_time_problem(),
        "6 weeks x 150 items, 25 labelled a week, the judge's rates and the rate walking",
    ),
    "scores": (
        _scores(),
        "3 systems x 150 rows, 60 labelled each, a 1-10 judge, Likert 1-5 labels (ordinal)",
    ),
    "board": (_board(), "5 systems x 40 items, one 0/1 outcome a cell, one-parameter model"),
}


# ------------------------------------------------------------------- the sweep
def _fit_one(task) -> tuple[dict[str, np.ndarray], bool, str, float]:
    """Worker: fit one dataset by NUTS and rank its truth among the thinned draws."""
    ds, seed, sampler, thin = task
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted by the caller
        idata, diag, _ = sample_nuts(ds.spec, random_seed=seed, sampler=sampler)
    post = idata.posterior
    ranks = {}
    for var, truth in ds.truth.items():
        x = post[var].values[:, ::thin]
        x = x.reshape(x.shape[0] * x.shape[1], -1)  # (kept draws, components)
        ranks[var] = (x < np.ravel(truth)[None, :]).sum(0)
    return ranks, diag.passed, diag.message(), time.perf_counter() - t0


def _labels(ds: SBCDataset) -> dict[str, tuple[str, ...]]:
    """Variable -> its components' labels (``g[gen_1]``), in the ranks' order."""
    model = ds.spec.build()
    out = {}
    for var in ds.truth:
        dims = model.named_vars_to_dims.get(var, ())
        coords = [list(map(str, model.coords[d])) for d in dims]
        out[var] = (
            tuple(f"{var}[{','.join(c)}]" for c in itertools.product(*coords)) if dims else (var,)
        )
    return out


def sbc_study(
    problem: str,
    n_datasets: int,
    *,
    random_seed: int = 0,
    sampler: Any = None,
    thin: int = 10,
    executor: Any = None,
    progress: bool | None = None,
) -> SBCResult:
    """Simulation-based calibration of one NUTS model (module docstring).

    Parameters
    ----------
    problem : str
        A key of :data:`PROBLEMS`.
    n_datasets : int
        Datasets to draw and fit.
    random_seed : int
        Seeds the datasets and every fit (same seed, same ranks on any executor).
    sampler : SamplerConfig or mapping, optional
        NUTS settings (default: the model's own, ``spec.sampler``).
    thin : int
        Keep every ``thin``-th draw of each chain for the ranks (draws are
        autocorrelated; thinning to roughly the ESS keeps the ranks uniform under the
        null).
    executor : None, int, concurrent.futures.Executor or dask.distributed.Client
        Where the fits run (:func:`~judgebayes.inference.executors.run_tasks`).
    progress : bool, optional
        A bar over the fits.

    Returns
    -------
    SBCResult
    """
    if problem not in PROBLEMS:
        raise InputError(
            f"problem must be one of {tuple(PROBLEMS)}; got {problem!r}",
            field="problem",
            value=problem,
        )
    check_count(n_datasets, "n_datasets")
    check_count(thin, "thin")
    random_seed = check_seed(random_seed)
    draw, setting = PROBLEMS[problem]
    rng = np.random.default_rng(random_seed)
    datasets, redrawn = [], 0
    while len(datasets) < n_datasets:
        try:
            datasets.append(draw(rng))
        except InputError:  # e.g. an empty calibration class: depends on the data only
            redrawn += 1
            if redrawn > 10 * n_datasets:
                raise
    cfg = resolve_sampler(datasets[0].spec.sampler, sampler)
    seeds = task_seeds(random_seed, n_datasets)
    t0 = time.perf_counter()
    out = run_tasks(
        _fit_one,
        [(ds, s, cfg, thin) for ds, s in zip(datasets, seeds, strict=True)],
        executor,
        progress=progress,
        desc=f"SBC {problem}",
    )
    seconds = time.perf_counter() - t0
    names = list(datasets[0].truth)
    n_ranks = cfg.chains * len(range(0, cfg.draws, thin))
    return SBCResult(
        problem=problem,
        ranks={v: np.stack([o[0][v] for o in out]) for v in names},
        components=_labels(datasets[0]),
        passed=np.array([o[1] for o in out]),
        messages=tuple(o[2] for o in out),
        n_ranks=n_ranks,
        redrawn=redrawn,
        seconds=seconds,
        settings={
            "setting": setting,
            "n_datasets": n_datasets,
            "random_seed": random_seed,
            "sampler": cfg,
            "thin": thin,
            "executor": describe_executor(executor),
            "fit_seconds": [o[3] for o in out],
        },
    )
