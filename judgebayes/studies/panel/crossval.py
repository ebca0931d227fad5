"""Leave-s-out evaluation of a validator panel: refit with human information kept for a
subset of the annotated generators, score the others (Jain et al.'s protocol).

``ValidatorPanel.cross_validate`` is :func:`cross_validate`; every fit runs where
``executor`` says (:mod:`judgebayes.inference.executors`), failed fits counted.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.errors import ConvergenceWarning, InputError
from judgebayes.inference.executors import run_tasks
from judgebayes.studies.panel.base import ValidatorPanel
from judgebayes.studies.panel.fit import PanelFit

__all__ = ["cross_validate"]


def cross_validate(
    self: ValidatorPanel,
    s: Iterable[int] = range(6),
    methods: Sequence[str] = (
        "validator_mean",
        "best_individual",
        "majority",
        "veto",
        "regression",
    ),
    *,
    alpha: float = 0.1,
    truth: np.ndarray | None = None,
    random_seed: int | None = 0,
    n_jobs: int = 1,
    executor: Any = None,
    progress: bool | None = None,
    **fit_kwargs: Any,
) -> pd.DataFrame:
    """Leave-s-out evaluation over every subset of the annotated generators.

    For each s and each subset of s annotated generators, the panel is refitted with
    human information kept only for that subset, and the other annotated generators
    are scored: MaxAE = max |estimate - human precision| over them.  Returns one row
    per method and s: ``mean_maxae``, ``worst_maxae``, ``n_subsets`` and, for interval
    methods, ``coverage`` (share of held-out generators inside the ``1 - alpha``
    interval) and ``mean_width``.  For MCMC methods ``n_failed`` counts the fits that
    missed the convergence gate (their warnings are not repeated per fit: the count is
    the report), and ``coverage_passed`` / ``mean_maxae_passed`` summarise the fits that
    passed, beside the summaries over all fits; a failed fit is never pooled unseen.
    Compiled Bayesian models are reused across subsets (only the data change).

    ``executor`` (:mod:`judgebayes.inference.executors`: None, a number of local
    processes, a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``)
    says where the fits run; ``n_jobs=n`` is ``executor=n``.  Every fit uses
    ``random_seed``, so the table does not depend on where it ran.  ``progress``
    shows a bar over the fits (None: the package's switch,
    :mod:`judgebayes.inference.progress`).
    """
    A = self.data.annotated
    if A.size < 2:
        raise InputError(
            f"leave-s-out needs at least two annotated generators, got {A.size}",
            field="annotations",
            value=int(A.size),
        )
    ref = self.data.human_precision if truth is None else np.asarray(truth, dtype=float)
    ks = list(s)
    for k in ks:
        if not 0 <= k < A.size:
            raise InputError(f"s must be in 0..{A.size - 1}, got {k}", field="s", value=k)
    tasks = [
        (k, method, sub)
        for k in ks
        for method in methods
        for sub in itertools.combinations(A.tolist(), k)
    ]
    if executor is None and n_jobs > 1:
        executor = n_jobs
    shared = (self, random_seed, fit_kwargs)
    done = run_tasks(
        _fit_subset,
        [(shared, t) for t in tasks],
        executor,
        progress=progress,
        desc="leave-s-out",
    )
    results = dict(zip(tasks, done, strict=True))
    rows = []
    for k in ks:
        subsets = list(itertools.combinations(A.tolist(), k))
        held = [np.setdiff1d(A, sub) for sub in subsets]
        for method in methods:
            fits = [results[(k, method, sub)] for sub in subsets]
            rows.append(_summary(method, k, fits, held, ref, alpha))
    return pd.DataFrame(rows)


def _summary(method: str, k: int, results, held_out, ref: np.ndarray, alpha: float) -> dict:
    """One row of the leave-s-out table: the fits of every subset of ``k`` annotated
    generators (``results``), each scored on its held-out generators.
    """
    errs, cover, width, secs = [], [], [], 0.0
    gate: list[bool | None] = []
    cover_ok: list[bool] = []
    for (est, draws, sec, passed), held in zip(results, held_out, strict=True):
        secs += sec
        gate.append(passed)
        errs.append(float(np.max(np.abs(est[held] - ref[held]))))
        if draws is not None:
            lo, hi = np.quantile(draws[:, held], [alpha / 2, 1 - alpha / 2], axis=0)
            inside = list((lo <= ref[held]) & (ref[held] <= hi))
            cover += inside
            width += list(hi - lo)
            if passed is not False:
                cover_ok += inside
    mcmc = any(p is not None for p in gate)
    ok = [e for e, p in zip(errs, gate, strict=True) if p is not False]
    return {
        "method": method,
        "s": k,
        "mean_maxae": float(np.mean(errs)),
        "worst_maxae": float(np.max(errs)),
        "n_subsets": len(errs),
        "coverage": float(np.mean(cover)) if cover else np.nan,
        "mean_width": float(np.mean(width)) if width else np.nan,
        "n_failed": sum(p is False for p in gate) if mcmc else np.nan,
        "coverage_passed": (float(np.mean(cover_ok)) if mcmc and cover_ok else np.nan),
        "mean_maxae_passed": float(np.mean(ok)) if mcmc and ok else np.nan,
        "seconds": secs,
    }


def _fit_subset(task):
    """One leave-s-out fit (a task of :meth:`ValidatorPanel.cross_validate`)."""
    (panel, seed, kwargs), (_, method, sub) = task
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted in n_failed
        f = panel.with_data(panel.data.calibrate_on(sub)).fit(method, random_seed=seed, **kwargs)
    return _cv_result(f)


def _cv_result(f: PanelFit):
    """(estimate, draws (S, G) or None, seconds, gate passed or None) of one fit."""
    draws = None if f.is_point else f.draws().values
    passed = None if f.diagnostics is None else bool(f.diagnostics.passed)
    return f.estimate(), draws, f.seconds, passed


ValidatorPanel.cross_validate = cross_validate
