"""Where a sweep's independent fits run: serially, in local processes, or on Dask.

Every sweep of the package (the split protocol's groups, a panel's leave-s-out subsets)
hands its tasks to :func:`run_tasks`, which takes one ``executor`` argument:

- ``None`` or ``1``: in this process, one task after the other;
- an int ``n > 1``: ``n`` local worker processes (``concurrent.futures``, forked where the
  platform allows, so the workers start with the package already imported);
- any ``concurrent.futures.Executor`` the caller made (its lifetime is the caller's);
- a ``dask.distributed.Client``: a ``LocalCluster`` on a laptop, or a scheduler address on
  HPC (dask-jobqueue) or Kubernetes, with the same code.  Dask is an optional extra
  (``pip install judgebayes[dask]``) and imported only by the caller who made the client.

Tasks are sent in chunks, up to four per worker slot (fewer round trips than one task at a
time, and small enough that a slow chunk does not leave the other workers idle: with one
contiguous chunk per worker, LLMBar's eight subsets split 634 / 251 items).  Workers are
processes that live for the whole sweep (a pool, or Dask's workers), and the engines cache
compiled models per process, so a model compiles once per worker, not per task.  A task
uses the one thread of the slot it was given: BLAS is limited to one thread, since ``n``
workers times a multi-threaded BLAS oversubscribe the cores, and NUTS runs a fit's chains
one after the other (:func:`task_threads`; serially the sampler runs them in threads on
every core): two workers that each spread their chains over both cores would pay the
threads' overhead and compete (``benchmarks/executors.py`` measures both).  The
draws are the same either way: each chain has its own seed.

Results come back in task order, and every task carries its own seed (the sweep derives
them before dispatch: :func:`task_seeds` spawns them from one ``SeedSequence``), so the
numbers do not depend on the executor or on the number of workers.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import pickle
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextvars import ContextVar
from typing import Any

import numpy as np

from judgebayes.errors import InputError
from judgebayes.inference.progress import Progress

__all__ = ["describe_executor", "run_tasks", "task_seeds", "task_threads"]

_TASK_THREADS: ContextVar[int | None] = ContextVar("judgebayes_task_threads", default=None)


def task_threads() -> int | None:
    """Threads a fit may use for its chains: 1 inside an executor's task (the task has one
    worker slot), None (the sampler's default: every core) otherwise.
    """
    return _TASK_THREADS.get()


def task_seeds(random_seed: Any, n: int) -> list[int]:
    """``n`` independent integer seeds spawned from ``SeedSequence(random_seed)``."""
    ss = np.random.SeedSequence(random_seed)
    return [int(c.generate_state(1, np.uint32)[0]) for c in ss.spawn(n)]


def _is_dask_client(executor: Any) -> bool:
    mod = type(executor).__module__ or ""
    return mod.startswith("distributed") and hasattr(executor, "gather")


def describe_executor(executor: Any) -> str:
    """A short name for records: ``serial``, ``processes(2)``, ``dask(<scheduler>)``,
    or the executor's class name.
    """
    if executor is None or (isinstance(executor, int) and executor == 1):
        return "serial"
    if isinstance(executor, int):
        return f"processes({executor})"
    if _is_dask_client(executor):
        return f"dask({getattr(executor.scheduler, 'address', '?')})"
    return type(executor).__name__


def _check(executor: Any) -> None:

    if executor is None or _is_dask_client(executor) or isinstance(executor, Executor):
        return
    if isinstance(executor, bool) or not isinstance(executor, int | np.integer) or executor < 1:
        raise InputError(
            "executor must be None (serial), a number of local processes >= 1, a "
            "concurrent.futures.Executor or a dask.distributed.Client; got "
            f"{executor!r}",
            field="executor",
            value=repr(executor),
        )


def _run_chunk(fn: Callable[[Any], Any], chunk: Sequence[Any], pack: bool = False) -> Any:
    """A worker's share: the chunk's tasks in order, with one BLAS thread and NUTS chains
    in sequence.

    ``pack``: return the results cloudpickled (a process pool pickles results with the
    standard pickle, which refuses the closures a point fit keeps as its interval).
    """
    from threadpoolctl import threadpool_limits

    token = _TASK_THREADS.set(1)
    try:
        with threadpool_limits(limits=1):
            out = [fn(t) for t in chunk]
    finally:
        _TASK_THREADS.reset(token)
    if pack:
        import cloudpickle

        return cloudpickle.dumps(out)
    return out


def _chunks(tasks: list[Any], n: int) -> list[list[Any]]:
    n = max(1, min(n, len(tasks)))
    bounds = np.linspace(0, len(tasks), n + 1).round().astype(int)
    return [tasks[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def _slots(executor: Any) -> int:
    if isinstance(executor, int):
        return executor
    if _is_dask_client(executor):
        n = sum(executor.nthreads().values())
        return max(1, int(n))
    return max(1, int(getattr(executor, "_max_workers", os.cpu_count() or 1)))


def run_tasks(
    fn: Callable[[Any], Any],
    tasks: Sequence[Any],
    executor: Any = None,
    *,
    n_chunks: int | None = None,
    progress: bool | None = None,
    desc: str = "fits",
) -> list[Any]:
    """``[fn(t) for t in tasks]``, run where ``executor`` says (module docstring).

    Parameters
    ----------
    fn : callable
        A module-level function (it is pickled to the workers) of one task.
    tasks : sequence
        Picklable task descriptions, each carrying its own seed.
    executor : None, int, concurrent.futures.Executor or dask.distributed.Client
        Where to run.
    n_chunks : int, optional
        How many chunks to send (default: four per worker slot, at most one per task).
    progress : bool, optional
        A bar over the tasks (per finished chunk when distributed); default: the package's
        switch (:mod:`judgebayes.inference.progress`).
    desc : str
        The bar's label.

    Returns
    -------
    list
        The results, in task order.

    Raises
    ------
    InputError
        ``executor`` is none of the above.
    """
    _check(executor)
    tasks = list(tasks)
    if not tasks:
        return []
    with Progress(len(tasks), desc, progress) as bar:
        if executor is None or (isinstance(executor, int | np.integer) and executor == 1):
            out = []
            for t in tasks:
                out.append(fn(t))
                bar.update()
            return out
        chunks = _chunks(tasks, n_chunks or 4 * _slots(executor))
        if _is_dask_client(executor):
            from distributed import as_completed as dask_completed

            futures = [executor.submit(_run_chunk, fn, c, pure=False) for c in chunks]
            parts = _collect(futures, chunks, dask_completed, bar, lambda f: f.result())
        elif isinstance(executor, int | np.integer):
            method = "fork" if "fork" in mp.get_all_start_methods() else None
            with ProcessPoolExecutor(int(executor), mp_context=mp.get_context(method)) as ex:
                futures = [ex.submit(_run_chunk, fn, c, True) for c in chunks]
                parts = _collect(
                    futures, chunks, as_completed, bar, lambda f: pickle.loads(f.result())
                )
        else:
            futures = [executor.submit(_run_chunk, fn, c) for c in chunks]
            parts = _collect(futures, chunks, as_completed, bar, lambda f: f.result())
    return [r for part in parts for r in part]


def _collect(futures, chunks, completed, bar, result) -> list:
    """Chunk results in submission order, the bar advanced as each chunk finishes."""
    index = {id(f): i for i, f in enumerate(futures)}
    parts: list[Any] = [None] * len(futures)
    for f in completed(futures):
        i = index[id(f)]
        parts[i] = result(f)
        bar.update(len(chunks[i]))
    return parts
