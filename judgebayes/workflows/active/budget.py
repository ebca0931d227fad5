"""The budget study: active rules against random pairs over many seeds, on an executor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from judgebayes.errors import InputError
from judgebayes.inference.executors import describe_executor, run_tasks
from judgebayes.workflows.active.oracles import RULES
from judgebayes.workflows.active.run import run_active

#: keywords of :func:`run_active` a budget study passes through to every run
_RUN_OPTIONS = ("refit_every", "samples", "lam", "lam_b", "allow_repeats")


def _budget_task(task) -> list[float]:
    """One (pool, seed, strategy) run of :func:`budget_study`: recall at each budget."""
    pool, seed, model, rule, budgets, k, options = task
    r = run_active(
        pool.verdicts,
        k=k,
        budget=max(budgets),
        rule=rule,
        model=model,
        item_covariates=pool.x,
        truth=pool,
        record_at=budgets,
        seed=seed,
        **options,
    )
    return [r.recall.get(b, float("nan")) for b in budgets]


def budget_study(
    pools: Sequence[Any],
    strategies: Sequence[tuple[str, str]],
    *,
    k: int,
    budgets: Sequence[int],
    seeds: Sequence[int] = (0,),
    executor: Any = None,
    progress: bool | None = None,
    **options: Any,
):
    """Top-k recall against the comparison budget, for several strategies on several
    pools: the active loop's budget grid as one sweep.

    Every (pool, seed, strategy) is one :func:`run_active` run up to the largest budget,
    recording recall at each budget; runs are independent, each seeded by its own
    ``seed`` (a run on the same pool with the same seed faces the same presentation
    orders and tie breaks whatever the strategy), so the table is the same serially, on
    local processes or on a Dask cluster (``executor``, as in
    :func:`~judgebayes.inference.executors.run_tasks`).

    Parameters
    ----------
    pools : sequence
        Simulated pools with ``verdicts`` (N x N), ``x`` (item covariates) and
        ``recall(selected)``, e.g. :func:`judgebayes.simulate.controlled_benchmark`.
    strategies : sequence of (model, rule)
        ``model`` in {"bias", "naive"}, ``rule`` one of :data:`RULES`.
    k : int
        Size of the target set.
    budgets : sequence of int
        Budgets at which recall is recorded.
    seeds : sequence of int
        Seeds per pool (every strategy runs once per pool and seed).
    executor : None, int, concurrent.futures.Executor or dask.distributed.Client
        Where the runs go.
    progress : bool, optional
        A bar over the runs.
    **options
        Passed to every :func:`run_active` call: ``refit_every``, ``samples``, ``lam``,
        ``lam_b``, ``allow_repeats``.

    Returns
    -------
    DataFrame
        One row per (pool, seed, model, rule, budget) with ``recall``; ``attrs`` record
        the executor.  ``df.groupby(["model", "rule", "budget"]).recall.mean()`` is the
        budget curve.
    """
    bad = sorted(set(options) - set(_RUN_OPTIONS))
    if bad:
        raise InputError(
            f"budget_study takes no option {bad[0]!r}; it passes {_RUN_OPTIONS} to run_active",
            field=bad[0],
            value=options[bad[0]],
        )
    budgets = sorted({int(b) for b in budgets})
    if not budgets or budgets[0] < 1:
        raise InputError("budgets must be integers >= 1", field="budgets", value=budgets)
    for model, rule in strategies:
        if model not in ("bias", "naive") or rule not in RULES:
            raise InputError(
                f"a strategy is (model in ('bias', 'naive'), rule in {RULES}); got "
                f"{(model, rule)!r}",
                field="strategies",
                value=(model, rule),
            )
    keys = [(j, int(s), m, r) for j in range(len(pools)) for s in seeds for m, r in strategies]
    tasks = [(pools[j], s, m, r, budgets, k, options) for j, s, m, r in keys]
    out = run_tasks(_budget_task, tasks, executor, progress=progress, desc="active runs")
    rows = [
        {"pool": j, "seed": s, "model": m, "rule": r, "budget": b, "recall": rec}
        for (j, s, m, r), recalls in zip(keys, out, strict=True)
        for b, rec in zip(budgets, recalls, strict=True)
    ]
    df = pd.DataFrame(rows)
    df.attrs["executor"] = describe_executor(executor)
    return df
