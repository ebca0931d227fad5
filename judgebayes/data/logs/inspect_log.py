"""Items from Inspect AI's eval logs."""

from __future__ import annotations

import os
import pathlib
from typing import Any

import pandas as pd

from judgebayes.data.logs.files import is_listlike, wrong_type
from judgebayes.data.logs.labels import items_frame
from judgebayes.errors import InputError

# Inspect AI's grade letters (inspect_ai.scorer: CORRECT, INCORRECT, PARTIAL, NOANSWER);
# NOANSWER counts as incorrect, as Inspect's own value_to_float scores it.  Every other
# spelling goes through the package's one label vocabulary (data.accuracy.normalize_labels).
_INSPECT_GRADES = {"c": 1.0, "i": 0.0, "n": 0.0}
_ACCEPTS = "a log file, a directory of logs, an EvalLog or a list of them"


# ------------------------------------------------------------------ Inspect AI
def _inspect_logs(log) -> list:
    """The logs ``log`` names: each a log read by Inspect's own reader."""
    try:
        from inspect_ai.log import EvalLog, read_eval_log
    except ImportError:
        raise InputError(
            "reading Inspect AI logs needs inspect_ai: pip install 'judgebayes[inspect]'",
            field="log",
            value=None,
        ) from None
    listed = is_listlike(log) and not isinstance(log, EvalLog)
    items = list(log) if listed else [log]
    logs = []
    for x in items:
        if isinstance(x, EvalLog):
            logs.append(x)
            continue
        if not isinstance(x, str | os.PathLike):
            raise wrong_type(_ACCEPTS, x, "log", log if listed else None)
        p = pathlib.Path(x)
        if p.is_dir():
            files = _logs_below(p, read_eval_log)
        elif p.is_file():
            files = [p]
        else:
            raise InputError(f"log file not found: {p}", field="log", value=str(p))
        for f in files:
            try:
                logs.append(read_eval_log(str(f)))
            except Exception as exc:  # inspect raises its own errors for foreign files
                raise InputError(
                    f"log file {f} is not an Inspect AI eval log: {type(exc).__name__}",
                    field="log",
                    value=str(f),
                ) from None
    return logs


def _logs_below(folder: pathlib.Path, read_eval_log) -> list[pathlib.Path]:
    """The log files in ``folder`` and its subfolders: every ``*.eval`` (Inspect's own
    format) and every ``*.json`` whose header Inspect reads as a log's; other JSON files
    (a labels file, a config) are not logs and are skipped.  None at all is an error
    naming the JSON files that are not logs.
    """
    files = sorted(folder.glob("**/*.eval"))
    skipped = []
    for p in sorted(folder.glob("**/*.json")):
        try:
            read_eval_log(str(p), header_only=True)
        except Exception:  # not a log: Inspect's header reader refuses it
            skipped.append(p)
        else:
            files.append(p)
    if not files:
        names = ", ".join(map(str, skipped[:5])) + (" ..." if skipped[5:] else "")
        others = f"; its JSON files are not Inspect logs: {names}" if skipped else ""
        raise InputError(
            f"log: directory {folder} holds no Inspect AI eval log (no *.eval file, nor a "
            f"*.json log, in it or below it){others}",
            field="log",
            value=str(folder),
        )
    return sorted(files)


def inspect_items(
    log,
    labels=None,
    *,
    scorer: str | None = None,
    positive: Any = None,
    scores: bool = False,
    rerun: bool = False,
):
    """The items frame of one or more Inspect AI eval logs with a model-graded scorer.

    Parameters
    ----------
    log : str, path, EvalLog, or a list of them
        Log files (``.eval`` or ``.json``), directories of logs, or logs read by
        ``inspect_ai.log.read_eval_log``.  Each log's model is a system.  A directory is
        searched with its subdirectories: every ``*.eval`` file is read, and every
        ``*.json`` file that Inspect reads as a log; any other JSON file (a labels file,
        a config) is skipped, and a directory with no log at all is an error naming
        them.  A file named on its own must be a log.
    labels : DataFrame or CSV path, optional
        Human labels (module docstring); without them every item is unlabelled.  A
        label's ``sample_id`` is the frame's: ``<task>/<id>`` when the logs hold several
        tasks.
    scorer : str, optional
        The scorer whose value is the judge's verdict; required when the logs have
        several scorers.
    positive : scalar or list, optional
        Score value(s) meaning correct; every other value is incorrect.  Default: Inspect's
        grades (``C`` correct; ``I`` and ``N``, no answer, incorrect) and the usual
        spellings of true/false; a partial grade ``P`` then needs ``positive=``
        (``["C", "P"]`` counts it correct).  A ``positive=`` that no verdict of the logs
        takes is an error naming the values they hold.
    scores : bool
        The scorer gives a number (a model-graded scorer with numeric grades, 1-10): keep
        it in a ``score`` column for :class:`~judgebayes.ScoreStudy` instead of a verdict.
    rerun : bool
        The logs are runs of the same samples at different times (an anchor set judged
        again every week, for ``jb.monitor(anchors=)``): each run's verdicts are kept,
        told apart by ``created``.  Without it one sample judged twice for one model is an
        error.

    Returns
    -------
    pandas.DataFrame
        ``sample_id``, ``system``, ``judge`` (``score`` with ``scores=True``), ``task``,
        ``epoch``, ``created`` (when the log's eval was created, a UTC timestamp: the
        period of a run, e.g. ``time="created", freq="W"``), ``human``: one row per
        sample and epoch (and run, with ``rerun``).  ``sample_id`` is the sample's
        id in its task, prefixed with the task's name (``<task>/<id>``) when the logs
        hold more than one task: tasks number their samples independently, so sample
        ``1`` of one task and sample ``1`` of another are different items, and every
        reader of the frame that pairs or clusters on ``sample_id`` must see them apart.
        A sample without the scorer's value (it errored) has ``judge`` NaN, which
        :meth:`~judgebayes.AccuracyStudy.from_items` counts as missing.

    Notes
    -----
    With several epochs the outputs of one sample are correlated; fit with
    ``cluster="sample_id"`` so the interval accounts for it.  The task is the log's task
    name: two runs of one task with different task arguments are one task here.
    """
    rows, used = [], set()
    for lg in _inspect_logs(log):
        system = str(lg.eval.model)
        created = pd.Timestamp(lg.eval.created).tz_convert("UTC")
        names = [s.name for s in (lg.results.scores if lg.results else [])]
        if scorer is None:
            if len(set(names)) > 1:
                raise InputError(
                    f"the log of {system} has several scorers {names}; name one with scorer=",
                    field="scorer",
                    value=None,
                )
            name = names[0] if names else None
        else:
            name = scorer
            if names and scorer not in names:
                raise InputError(
                    f"the log of {system} has no scorer {scorer!r}; its scorers are {names}",
                    field="scorer",
                    value=scorer,
                )
        if name:
            used.add(name)
        for s in lg.samples or []:
            score = (s.scores or {}).get(name) if name else None
            value = None if score is None else score.value
            if isinstance(value, dict):
                raise InputError(
                    f"scorer {name!r} gives several values per sample ({sorted(value)}); "
                    "judgebayes needs one verdict per output",
                    field="scorer",
                    value=name,
                )
            rows.append(
                {
                    "sample_id": s.id,
                    "system": system,
                    "judge": value,
                    "task": str(lg.eval.task),
                    "epoch": int(s.epoch),
                    "created": created,
                }
            )
    if not rows:
        raise InputError("the Inspect logs hold no samples", field="log", value=None)
    if len({r["task"] for r in rows}) > 1:  # ids are the task's own: keep tasks apart
        for r in rows:
            r["sample_id"] = f"{r['task']}/{r['sample_id']}"
    return items_frame(
        rows,
        labels,
        extra=("task", "epoch", "created"),
        key=("task", "epoch", "created") if rerun else ("task", "epoch"),
        hint=(
            " in two runs created at the same time (rerun=True tells runs apart by it)"
            if rerun
            else " (runs of the same samples judged again: rerun=True keeps them apart)"
        ),
        verdict=f"scorer {scorer or (used.pop() if len(used) == 1 else 'value')}",
        positive=positive,
        grades=_INSPECT_GRADES,
        scores=scores,
    )
