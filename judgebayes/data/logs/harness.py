"""Items from lm-evaluation-harness samples and promptfoo results."""

from __future__ import annotations

from typing import Any

from judgebayes.data.logs.files import find_files, read_json, read_records, require_keys
from judgebayes.data.logs.labels import items_frame
from judgebayes.errors import InputError


# ------------------------------------------------------------------ lm-evaluation-harness
def lm_eval_items(
    samples,
    labels=None,
    *,
    metric: str,
    system: str | None = None,
    filter: str | None = None,
    positive: Any = None,
):
    """The items frame of lm-evaluation-harness sample logs (``--log_samples``).

    Parameters
    ----------
    samples : str, path or list
        ``samples_<task>_<time>.jsonl`` files, a model's output directory, or the run's
        ``--output_path`` holding one directory per model (each model a ``system``: one
        frame of many models, paired on ``sample_id``, for a leaderboard).
    labels : DataFrame or CSV path, optional
        Human labels keyed by ``sample_id`` (the record's ``doc_id``, prefixed by the
        task name when several tasks are read: ``<task>/<doc_id>``).
    metric : str
        The per-sample metric that is the automated verdict (``acc``, ``exact_match``,
        a judge metric of a custom task); it must be 0/1 (or ``positive=``).
    system : str, optional
        The model's name; default: the directory the sample files are in (lm-eval
        writes them under ``<output_path>/<model name>/``).
    filter : str, optional
        Which filter's records to read when a task logs several (``"strict-match"``).
    positive : scalar or list, optional
        Metric value(s) meaning correct, when the metric is not 0/1; every other value is
        incorrect.  A value no record takes is an error naming the values they hold.

    Returns
    -------
    pandas.DataFrame
        ``sample_id``, ``system``, ``judge``, ``task`` (from the file's name,
        ``samples_<task>_<time>.jsonl``) and ``human``: one row per record.
        ``sample_id`` is the record's ``doc_id``, prefixed with the task's name
        (``<task>/<doc_id>``) when the files hold more than one task: each task numbers
        its own documents, so document ``0`` of one task and of another are different
        items.  On a board of several tasks the ``task`` column is a grouping of the
        items that :func:`judgebayes.leaderboard` checks for (``cluster="task"``
        declares it).
    """
    rows, filters = [], set()
    files = find_files(samples, "samples", ("samples_*.jsonl", "*/samples_*.jsonl"))
    tasks = {p: p.name.removeprefix("samples_").rsplit("_", 1)[0] for p in files}
    several = len(set(tasks.values())) > 1
    for p in files:
        sys_name = system or p.parent.name
        for i, r in enumerate(read_records(p, "samples")):
            require_keys(r, ("doc_id",), "samples", p, i)
            filters.add(str(r.get("filter")))
            if filter is not None and r.get("filter") != filter:
                continue
            if metric not in r:
                have = [k for k in r.get("metrics", []) if k in r]
                raise InputError(
                    f"samples file {p}, record {i}: no metric {metric!r} (metrics: {have})",
                    field="metric",
                    value=metric,
                )
            sid = f"{tasks[p]}/{r['doc_id']}" if several else r["doc_id"]
            rows.append(
                {"sample_id": sid, "system": sys_name, "judge": r[metric], "task": tasks[p]}
            )
    if not rows:
        raise InputError(
            f"no sample records with filter {filter!r} (the filters: {sorted(filters)})",
            field="filter",
            value=filter,
        )
    if filter is None and len(filters) > 1:
        raise InputError(
            f"the samples hold the records of {len(filters)} filters, {sorted(filters)}: "
            "give filter= the one whose verdicts to read",
            field="filter",
            value=filter,
        )
    return items_frame(rows, labels, extra=("task",), verdict=f"metric {metric}", positive=positive)


# ------------------------------------------------------------------ promptfoo
def promptfoo_items(results, labels=None, *, assertion: str | None = None, scores: bool = False):
    """The items frame of a promptfoo results file (``promptfoo eval --output x.json``).

    Parameters
    ----------
    results : str or path
        The JSON file promptfoo writes.
    labels : DataFrame or CSV path, optional
        Human labels keyed by ``sample_id`` (the test's index ``testIdx``; with several
        prompts ``<promptIdx>/<testIdx>``) and ``system``.
    assertion : str, optional
        The assertion type whose pass/fail is the verdict (``"llm-rubric"``,
        ``"model-graded-closedqa"``, ...); default: the test's overall pass/fail.
    scores : bool
        Read the grading result's ``score`` (a number; ``llm-rubric`` gives 0-1) into a
        ``score`` column for :class:`~judgebayes.ScoreStudy` instead of its pass/fail.

    Notes
    -----
    The system is the provider's label (or id); a test whose provider call failed has no
    grading result and gets ``judge`` NaN.
    """
    (path,) = find_files(results, "results", ("*.json",))
    doc = read_json(path, "results")
    block = doc.get("results") if isinstance(doc, dict) else None
    recs = block.get("results") if isinstance(block, dict) else None
    if not isinstance(recs, list):
        raise InputError(
            f"results file {path} is not promptfoo output: no results.results list",
            field="results",
            value=str(path),
        )
    prompts = {r.get("promptIdx", 0) for r in recs if isinstance(r, dict)}
    rows = []
    for i, r in enumerate(recs):
        require_keys(r, ("testIdx", "provider"), "results", path, i)
        prov = r["provider"]
        system = prov.get("label") or prov.get("id") if isinstance(prov, dict) else prov
        grading = r.get("gradingResult")
        key = "score" if scores else "pass"
        if grading is None:
            verdict = None
        elif assertion is None:
            verdict = grading.get(key)
        else:
            parts = [
                c
                for c in grading.get("componentResults") or []
                if (c.get("assertion") or {}).get("type") == assertion
            ]
            if len(parts) > 1:
                raise InputError(
                    f"results file {path}, record {i}: {len(parts)} {assertion!r} assertions; "
                    "judgebayes needs one verdict per output",
                    field="assertion",
                    value=assertion,
                )
            if not parts:
                raise InputError(
                    f"results file {path}, record {i}: no {assertion!r} assertion",
                    field="assertion",
                    value=assertion,
                )
            verdict = parts[0].get(key)
        sid = r["testIdx"] if len(prompts) == 1 else f"{r.get('promptIdx', 0)}/{r['testIdx']}"
        rows.append({"sample_id": sid, "system": system, "judge": verdict})
    return items_frame(rows, labels, verdict=f"{assertion or 'gradingResult'}.{key}", scores=scores)
