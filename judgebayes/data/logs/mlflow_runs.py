"""MLflow GenAI evaluation runs (``mlflow.genai.evaluate``): many runs into one frame.

An evaluation run holds one trace per row of the evaluation data, with the request, the
response and the assessments: each scorer's feedback (an LLM judge, or code), and
feedback or expectations from humans.  Each run is a system; the rows are paired across
runs on the request (one of its fields, ``item=``, or the whole request), so the frame is
a leaderboard's: :func:`judgebayes.leaderboard` or
:meth:`judgebayes.LeaderboardStudy.from_frame` reads it as it is.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.logs.files import is_listlike, wrong_type
from judgebayes.errors import InputError

__all__ = ["mlflow_items"]


def mlflow_items(
    runs,
    *,
    scorer: str,
    item: str | None = None,
    human: str | None = None,
    tracking_uri: str | None = None,
    rerun: bool = False,
) -> pd.DataFrame:
    """One row per (run, request) of MLflow evaluation runs, paired on the request.

    Parameters
    ----------
    runs : str or list of str
        Run ids of ``mlflow.genai.evaluate`` runs (one a system; its name is the run's
        name, or its id when it has none).
    scorer : str
        The assessment that is the score: a scorer's feedback (``True`` / ``False`` read as
        1 / 0, numbers as they are; ``"yes"`` / ``"no"`` as 1 / 0).  A trace without it, or
        with the scorer's error, has a blank score (counted in ``attrs["n_missing"]``); a
        run none of whose traces has it is an error listing the run's scorers.
    item : str, optional
        The request field that names the row of the evaluation data (an id); default: the
        whole request, as canonical JSON.
    human : str, optional
        The name of a human assessment (feedback or expectation whose source is
        ``HUMAN``) read as the ``human`` column (blank where there is none).
    tracking_uri : str, optional
        Where the runs are (default: MLflow's own setting).
    rerun : bool
        Runs of one name are one evaluation judged again (an anchor set every week, for
        ``jb.monitor(anchors=)``): kept, told apart by ``created``.  Without it two runs of
        one name are an error (each run is a system).

    Returns
    -------
    DataFrame
        ``system``, ``item``, ``score``, ``created`` (the run's start, a UTC timestamp:
        the period of a run judged again, e.g. an anchor set for ``jb.monitor(anchors=)``
        with ``time="created", freq="W"``), ``trace_id`` and with ``human=`` ``human``;
        ``attrs["n_missing"]``: traces per system without a score.

    Raises
    ------
    InputError
        ``runs`` that is not a run id or a list of them (``field="runs"``, ``value`` the
        type's name), MLflow not installed, a run that does not exist, two runs of one
        name, a run without traces (all such runs named at once, ``field="runs"``: a
        system with no rows would leave the frame without a word), a run none of whose
        traces has the ``scorer`` (``field="scorer"``, the run's scorers listed), a
        request without the ``item`` field, one item twice in a run, or a score that is
        not a number.
    """
    ids = _run_ids(runs)
    try:
        import mlflow
    except ImportError:
        raise InputError(
            "reading MLflow runs needs MLflow: pip install mlflow-skinny (or mlflow)",
            field="runs",
            value=runs,
        ) from None
    if not ids:
        raise InputError("runs is empty: give one or more run ids", field="runs", value=ids)
    client = mlflow.MlflowClient(tracking_uri=tracking_uri)
    frames, names, empty = [], [], []
    humans: set[str] = set()
    for run_id in ids:
        try:
            run = client.get_run(run_id)
        except Exception as exc:  # MLflow raises its own exception for an unknown run
            raise InputError(
                f"MLflow run {run_id!r} not found: {str(exc).splitlines()[0]}",
                field="runs",
                value=run_id,
            ) from None
        name = run.data.tags.get("mlflow.runName") or run_id
        if ids.count(run_id) > 1:
            raise InputError(
                f"the run {run_id!r} is given {ids.count(run_id)} times: each run is a system",
                field="runs",
                value=run_id,
            )
        if name in names and not rerun:
            raise InputError(
                f"two runs are named {name!r}: each run is a system; rename one (or, for "
                "one evaluation judged again, rerun=True keeps them apart by their time)",
                field="runs",
                value=name,
            )
        names.append(name)
        traces = _traces(mlflow, tracking_uri, run.info.experiment_id, run_id)
        if len(traces) == 0:
            empty.append((run_id, name))
            continue
        rows = _rows(traces, name, scorer, item, human)
        rows.insert(3, "created", pd.Timestamp(run.info.start_time, unit="ms", tz="UTC"))
        frames.append(rows)
        humans |= _human_assessments(traces)
    if empty:
        raise _without_traces(empty, len(ids))
    out = pd.concat(frames, ignore_index=True)
    if human is not None and out["human"].notna().sum() == 0:
        raise InputError(
            f"no trace of the {len(ids)} run(s) has a human assessment {human!r}; the human "
            f"assessments they have: {sorted(humans)}",
            field="human",
            value=human,
        )
    out.attrs["n_missing"] = out["score"].isna().groupby(out["system"]).sum().to_dict()
    return out


def _run_ids(runs) -> list[str]:
    """``runs`` as a list of run ids (an id, or a list of ids), or the error naming the
    type it got.
    """
    accepts = "a run id or a list of run ids (str)"
    if isinstance(runs, str):
        return [runs]
    if not is_listlike(runs):
        raise wrong_type(accepts, runs, "runs")
    ids = list(runs)
    for r in ids:
        if not isinstance(r, str):
            raise wrong_type(accepts, r, "runs", runs)
    return ids


def _without_traces(empty: list[tuple[str, str]], given: int) -> InputError:
    """The error naming the runs (id and name) that hold no trace, and what to do."""
    named = ", ".join(f"{name!r} ({run_id})" for run_id, name in empty)
    why = (
        "mlflow.genai.evaluate logs one trace per row of the evaluation data, so a run "
        "without traces is not an evaluation run, or its traces were deleted"
    )
    one = len(empty) == 1
    if one:
        what = f"MLflow run {named} has no traces"
    elif len(empty) < given:
        what = f"{len(empty)} of the {given} runs have no traces: {named}"
    else:
        what = f"none of the {given} runs has traces: {named}"
    it, its, where = ("it", "its", "that run") if one else ("them", "their", "each run")
    fix = f"log {its} traces (evaluate in {where})"
    if len(empty) < given:  # the other runs are evaluations: read them without these
        todo = f"drop {it} from runs, or {fix}"
    else:  # nothing left to drop to
        todo = f"give runs of mlflow.genai.evaluate, or {fix}"
    ids = [run_id for run_id, _ in empty]
    return InputError(
        f"{what}; {why}: {todo}", field="runs", value=ids[0] if len(ids) == 1 else ids
    )


def _traces(mlflow, tracking_uri, experiment_id: str, run_id: str) -> pd.DataFrame:
    """The run's traces as MLflow's frame (request, assessments, trace id)."""
    previous = mlflow.get_tracking_uri()
    if tracking_uri is not None:
        mlflow.set_tracking_uri(tracking_uri)
    try:
        return mlflow.search_traces(locations=[experiment_id], run_id=run_id, return_type="pandas")
    finally:
        mlflow.set_tracking_uri(previous)


def _rows(traces: pd.DataFrame, system: str, scorer: str, item, human) -> pd.DataFrame:
    """One row per trace: the item key, the scorer's value and the human one."""
    _check_scorer(traces, system, scorer)
    rows = []
    for t in traces.itertuples(index=False):
        request = _as_dict(t.request)
        if item is None:
            key = json.dumps(request, sort_keys=True, default=str)
        elif isinstance(request, dict) and item in request:
            key = str(request[item])
        else:
            raise InputError(
                f"trace {t.trace_id} of run {system!r} has no request field {item!r} "
                f"(its request: {str(request)[:80]})",
                field="item",
                value=item,
            )
        row: dict[str, Any] = {"system": system, "item": key, "trace_id": t.trace_id}
        row["score"] = _value(t.assessments, scorer, system, human_only=False)
        if human is not None:
            row["human"] = _value(t.assessments, human, system, human_only=True)
        rows.append(row)
    out = pd.DataFrame(
        rows, columns=["system", "item", "score", "trace_id"] + (["human"] if human else [])
    )
    dup = out["item"].duplicated()
    if dup.any():
        raise InputError(
            f"run {system!r} has the item {out['item'][dup].iloc[0]!r} twice: give item= a "
            "request field that names each row of the evaluation data",
            field="item",
            value=out["item"][dup].iloc[0],
        )
    return out


def _human_assessments(traces: pd.DataFrame) -> set[str]:
    """The names of the assessments a human gave on the run's traces."""
    return {
        str(a.get("assessment_name"))
        for assessments in traces["assessments"]
        for a in (assessments if isinstance(assessments, list) else [])
        if (a.get("source") or {}).get("source_type") == "HUMAN"
    }


def _check_scorer(traces: pd.DataFrame, system: str, scorer) -> None:
    """Refuse a ``scorer`` that no trace of the run has: it would be a system of blank
    scores, read as if every trace's scorer had failed.
    """
    kinds: dict[str, bool] = {}  # each assessment's name: is it a scorer's feedback?
    for assessments in traces["assessments"]:
        for a in assessments if isinstance(assessments, list) else []:
            source = (a.get("source") or {}).get("source_type")
            by_scorer = "feedback" in a and source != "HUMAN"
            name = a.get("assessment_name")
            kinds[name] = kinds.get(name, False) or by_scorer
    if isinstance(scorer, str) and scorer in kinds:
        return
    scorers = sorted(str(n) for n, s in kinds.items() if s)
    others = sorted(str(n) for n, s in kinds.items() if not s)
    also = f" (other assessments: {others})" if others else ""
    raise InputError(
        f"run {system!r} has no assessment {scorer!r} on any of its {len(traces)} traces; "
        f"its scorers are {scorers}{also}",
        field="scorer",
        value=scorer,
    )


def _as_dict(request):
    if isinstance(request, str):
        try:
            return json.loads(request)
        except ValueError:
            return request
    return request


def _value(assessments, name: str, system: str, *, human_only: bool) -> float:
    """The latest valid assessment ``name`` as a number (NaN: none, or the scorer's error)."""
    found = [
        a
        for a in (assessments or [])
        if a.get("assessment_name") == name
        and a.get("valid", True) is not False
        and (not human_only or (a.get("source") or {}).get("source_type") == "HUMAN")
    ]
    if not found:
        return np.nan
    a = max(found, key=lambda x: str(x.get("last_update_time", "")))
    part = a.get("feedback") or a.get("expectation") or {}
    if part.get("error") is not None or "value" not in part:
        return np.nan
    v = part["value"]
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, str) and v.strip().lower() in ("yes", "no"):
        return float(v.strip().lower() == "yes")
    if isinstance(v, int | float) and np.isfinite(v):
        return float(v)
    raise InputError(
        f"run {system!r}: assessment {name!r} has the value {v!r}, not a number, a boolean "
        "or yes / no",
        field="scorer" if not human_only else "human",
        value=str(v)[:40],
    )
