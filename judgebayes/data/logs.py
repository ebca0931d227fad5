r"""Readers of the files evaluation tools write, returning the frame contracts.

Each reader turns one tool's output into the frame a study reads, and nothing more:

========================  ==========================================  ===========================
reader                    reads                                       returns
========================  ==========================================  ===========================
:func:`inspect_items`     Inspect AI eval logs (``.eval`` / ``.json``) items frame (accuracy)
:func:`lm_eval_items`     lm-evaluation-harness ``samples_*.jsonl``   items frame (accuracy)
:func:`promptfoo_items`   promptfoo ``--output results.json``         items frame (accuracy)
:func:`mt_bench_pairs`    MT-Bench pairwise judgment JSONL            comparisons frame (ranking)
:func:`arena_pairs`       Chatbot Arena battles (JSON / JSONL)        comparisons frame (ranking)
========================  ==========================================  ===========================

The items frame has the columns of :meth:`judgebayes.AccuracyStudy.from_items`:
``sample_id``, ``system`` (the model evaluated), ``judge`` (the automated verdict as
1.0 / 0.0, NaN where the tool recorded none: an errored sample, an unparseable grade)
and ``human`` (from ``labels``: NaN = unlabelled).  Human labels come from a frame or a
CSV file with ``sample_id`` and ``human`` columns (plus ``system`` when the log holds
several systems, and ``epoch`` when Inspect ran several epochs): a label is a verdict
on one output, so it must say whose output.  A label that matches no output, or two
labels for one output, is an error: nothing is dropped or overwritten silently.

The comparisons frame has the columns of :meth:`judgebayes.PairwiseRanking.from_frames`:
``first`` and ``second`` (the items in presentation order), ``winner`` (blank for a
tie) and ``judge``.  Verdicts the tool could not parse (MT-Bench's ``"error"``) are not
comparisons: they are left out, counted in ``frame.attrs["n_missing"]`` and announced
with a :class:`~judgebayes.errors.JudgeBayesWarning`.

Formats follow the tools' own writers: Inspect AI through ``inspect_ai.log``
(optional extra ``judgebayes[inspect]``); lm-evaluation-harness v0.4's
``evaluator.py`` sample records (``doc_id``, ``filter``, one key per metric);
promptfoo's ``EvaluateSummary`` JSON (``results.results[*]`` with ``provider``,
``testIdx``, ``gradingResult``); FastChat's ``llm_judge/common.py``
``play_a_match_pair`` records (``model_1``, ``model_2``, ``g1_winner``, ``g2_winner``)
and the MT-Bench human-judgment records (``model_a``, ``model_b``, ``winner``); and
FastChat's Chatbot Arena ``clean_battle`` records (``model_a``, ``model_b``,
``winner`` in ``model_a`` / ``model_b`` / ``tie`` / ``tie (bothbad)``).
"""

from __future__ import annotations

import json
import math
import pathlib
import warnings
from collections.abc import Iterable
from typing import Any

import pandas as pd

from judgebayes.data.frames import as_pandas, numeric_column
from judgebayes.data.items import _binary
from judgebayes.errors import InputError, JudgeBayesWarning

__all__ = [
    "arena_pairs",
    "attach_labels",
    "inspect_items",
    "lm_eval_items",
    "mt_bench_pairs",
    "promptfoo_items",
]

ITEM_COLUMNS = ("sample_id", "system", "judge", "human")

# Inspect AI's grade letters (inspect_ai.scorer: CORRECT, INCORRECT, PARTIAL, NOANSWER);
# NOANSWER counts as incorrect, as Inspect's own value_to_float scores it.  Every other
# spelling goes through the package's one label vocabulary (data.accuracy.normalize_labels).
_INSPECT_GRADES = {"c": 1.0, "i": 0.0, "n": 0.0}


def _listlike(x: Any) -> bool:
    return isinstance(x, Iterable) and not isinstance(x, (str, bytes))


def _paths(source: Any, what: str, patterns: tuple[str, ...]) -> list[pathlib.Path]:
    """Files named by ``source``: a path, a directory (its ``patterns`` files) or a list."""
    items = list(source) if _listlike(source) else [source]
    out: list[pathlib.Path] = []
    for s in items:
        p = pathlib.Path(s)
        if p.is_dir():
            found = sorted(f for pat in patterns for f in p.glob(pat))
            if not found:
                raise InputError(
                    f"{what}: directory {p} has no {' / '.join(patterns)} files",
                    field=what,
                    value=str(p),
                )
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(f"{what} file not found: {p}", field=what, value=str(p))
    if not out:
        raise InputError(f"{what}: no file given", field=what, value=source)
    return out


def _read_json(path: pathlib.Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            f"{what} file {path} is not valid JSON: {str(exc).splitlines()[0]}",
            field=what,
            value=str(path),
        ) from None
    except PermissionError:
        raise InputError(
            f"{what} file {path} cannot be read (permission denied)", field=what, value=str(path)
        ) from None


def _read_records(path: pathlib.Path, what: str) -> list[dict]:
    """Records of a JSON list or a JSON-lines file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, PermissionError) as exc:
        raise InputError(
            f"{what} file {path} cannot be read: {type(exc).__name__}", field=what, value=str(path)
        ) from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        records = _read_json(path, what)
    else:
        records = []
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"{what} file {path}, line {i}: not a JSON record ({exc.msg})",
                    field=what,
                    value=str(path),
                ) from None
    bad = [i for i, r in enumerate(records) if not isinstance(r, dict)]
    if bad:
        raise InputError(
            f"{what} file {path}: record {bad[0]} is not a JSON object",
            field=what,
            value=str(path),
        )
    if not records:
        raise InputError(f"{what} file {path} has no records", field=what, value=str(path))
    return records


def _need(record: dict, keys: tuple[str, ...], what: str, path: Any, i: int) -> None:
    missing = [k for k in keys if k not in record]
    if missing:
        raise InputError(
            f"{what} file {path}, record {i}: no field {missing[0]!r} (fields: {sorted(record)})",
            field=missing[0],
            value=None,
        )


# ------------------------------------------------------------------ human labels
def attach_labels(items, labels) -> Any:
    """Add the ``human`` column to an items frame from a labels frame or CSV file.

    Parameters
    ----------
    items : pandas.DataFrame
        An adapter's items frame (``sample_id``, ``system``, optionally ``epoch``).
    labels : DataFrame, str, path or None
        ``sample_id`` and ``human`` columns, plus ``system`` when ``items`` holds several
        systems and ``epoch`` when it holds several epochs.  ``None``: every item is
        unlabelled.

    Returns
    -------
    pandas.DataFrame
        ``items`` with ``human`` (the label as given; NaN where unlabelled).

    Raises
    ------
    InputError
        A missing column, a key the labels need but lack, two labels for one output, or
        a label for an output the log does not have.
    """
    out = items.copy()
    if labels is None:
        out["human"] = math.nan
        return out
    if isinstance(labels, (str, pathlib.Path)):
        try:
            labels = pd.read_csv(labels, dtype={"sample_id": str, "system": str})
        except FileNotFoundError:
            raise InputError(
                f"labels file not found: {labels}", field="labels", value=str(labels)
            ) from None
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise InputError(
                f"labels file {labels} is not a readable CSV: {str(exc).splitlines()[0]}",
                field="labels",
                value=str(labels),
            ) from None

    labels = as_pandas(labels, "labels")
    for col in ("sample_id", "human"):
        if col not in labels.columns:
            raise InputError(
                f"labels have no column {col!r}; columns are {list(map(str, labels.columns))}",
                field=col,
                value=None,
            )
    keys = ["sample_id"]
    for key, what in (("system", "systems"), ("epoch", "epochs")):
        if key not in out.columns:
            continue
        if key in labels.columns:
            keys.append(key)
        elif out[key].nunique() > 1:
            raise InputError(
                f"the log holds {out[key].nunique()} {what}, so each label must say which "
                f"output it judges: add a {key!r} column to the labels",
                field=key,
                value=None,
            )
    lab = labels[[*keys, "human"]].copy()
    for k in keys:
        lab[k] = lab[k].astype(str).str.strip()
    dup = lab.duplicated(keys)
    if dup.any():
        row = lab[dup].iloc[0]
        raise InputError(
            f"labels: two labels for one output ({', '.join(f'{k}={row[k]}' for k in keys)})",
            field="labels",
            value=row["sample_id"],
        )
    left = out[keys].astype(str)
    known = pd.MultiIndex.from_frame(left)
    given = pd.MultiIndex.from_frame(lab[keys])
    unknown = ~given.isin(known)
    if unknown.any():
        row = lab[unknown].iloc[0]
        raise InputError(
            f"labels: {int(unknown.sum())} label(s) match no output of the log (first: "
            f"{', '.join(f'{k}={row[k]}' for k in keys)})",
            field="sample_id",
            value=row["sample_id"],
        )
    human = pd.Series(lab["human"].to_numpy(), index=given)
    out["human"] = human.reindex(known).to_numpy()
    return out


def _items_frame(
    rows: list[dict],
    labels,
    extra: tuple[str, ...] = (),
    *,
    verdict: str = "verdict",
    positive: Any = None,
    grades: dict | None = None,
    scores: bool = False,
):
    """The items frame of the adapters' rows, raw verdicts normalised once per spelling.

    ``verdict`` names the field in messages; ``grades`` maps a tool's own letters (Inspect's
    C / I / N) before the package's vocabulary applies (not with ``positive=``).
    ``scores=True`` keeps the value as a number in a ``score`` column instead (the scores
    design); a value that is not a number is an error that names it.
    """
    df = pd.DataFrame(rows, columns=[*ITEM_COLUMNS[:3], *extra])
    df["sample_id"] = df["sample_id"].astype(str)
    df["system"] = df["system"].astype(str)
    raw = df["judge"].astype(object)
    if scores:
        df = df.drop(columns="judge")
        df.insert(2, "score", numeric_column(raw.map(_plain), verdict))
    else:
        if grades and positive is None:
            raw = raw.map(lambda v: grades.get(v.strip().lower(), v) if isinstance(v, str) else v)
        df["judge"] = _binary(raw, verdict, positive)
    dup = df.duplicated(["system", "sample_id", *extra])
    if dup.any():
        r = df[dup].iloc[0]
        raise InputError(
            f"two verdicts for one output: system {r['system']!r}, sample {r['sample_id']!r}",
            field="sample_id",
            value=r["sample_id"],
        )
    return attach_labels(df, labels)


def _plain(v: Any) -> Any:
    """A score as a plain value (booleans are verdicts, not scores: kept as text)."""
    return str(v) if isinstance(v, bool) else v


# ------------------------------------------------------------------ Inspect AI
def _inspect_logs(log) -> list:
    try:
        from inspect_ai.log import EvalLog, read_eval_log
    except ImportError:
        raise InputError(
            "reading Inspect AI logs needs inspect_ai: pip install 'judgebayes[inspect]'",
            field="log",
            value=None,
        ) from None
    items = list(log) if _listlike(log) and not isinstance(log, EvalLog) else [log]
    logs = []
    for x in items:
        if isinstance(x, EvalLog):
            logs.append(x)
            continue
        for p in _paths(x, "log", ("*.eval", "*.json")):
            try:
                logs.append(read_eval_log(str(p)))
            except Exception as exc:  # inspect raises its own errors for foreign files
                raise InputError(
                    f"log file {p} is not an Inspect AI eval log: {type(exc).__name__}",
                    field="log",
                    value=str(p),
                ) from None
    return logs


def inspect_items(
    log,
    labels=None,
    *,
    scorer: str | None = None,
    positive: Any = None,
    scores: bool = False,
):
    """The items frame of one or more Inspect AI eval logs with a model-graded scorer.

    Parameters
    ----------
    log : str, path, EvalLog, or a list of them
        Log files (``.eval`` or ``.json``), directories of logs, or logs read by
        ``inspect_ai.log.read_eval_log``.  Each log's model is a system.
    labels : DataFrame or CSV path, optional
        Human labels (module docstring); without them every item is unlabelled.
    scorer : str, optional
        The scorer whose value is the judge's verdict; required when the logs have
        several scorers.
    positive : scalar or list, optional
        Score value(s) meaning correct; every other value is incorrect.  Default: Inspect's
        grades (``C`` correct; ``I`` and ``N``, no answer, incorrect) and the usual
        spellings of true/false; a partial grade ``P`` then needs ``positive=``.
    scores : bool
        The scorer gives a number (a model-graded scorer with numeric grades, 1-10): keep
        it in a ``score`` column for :class:`~judgebayes.ScoreStudy` instead of a verdict.

    Returns
    -------
    pandas.DataFrame
        ``sample_id``, ``system``, ``judge`` (``score`` with ``scores=True``), ``epoch``,
        ``human``: one row per sample and epoch.  A sample without the scorer's value (it
        errored) has ``judge`` NaN, which
        :meth:`~judgebayes.AccuracyStudy.from_items` counts as missing.

    Notes
    -----
    With several epochs the outputs of one sample are correlated; fit with
    ``cluster="sample_id"`` so the interval accounts for it.
    """
    rows = []
    for lg in _inspect_logs(log):
        system = str(lg.eval.model)
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
                    "epoch": int(s.epoch),
                }
            )
    if not rows:
        raise InputError("the Inspect logs hold no samples", field="log", value=None)
    return _items_frame(
        rows,
        labels,
        extra=("epoch",),
        verdict=f"scorer {scorer or 'value'}",
        positive=positive,
        grades=_INSPECT_GRADES,
        scores=scores,
    )


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
        ``samples_<task>_<time>.jsonl`` files, or the model's output directory.
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
        Metric value(s) meaning correct, when the metric is not 0/1.
    """
    rows = []
    files = _paths(samples, "samples", ("samples_*.jsonl",))
    tasks = {p: p.name.removeprefix("samples_").rsplit("_", 1)[0] for p in files}
    several = len(set(tasks.values())) > 1
    for p in files:
        sys_name = system or p.parent.name
        for i, r in enumerate(_read_records(p, "samples")):
            _need(r, ("doc_id",), "samples", p, i)
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
                {
                    "sample_id": sid,
                    "system": sys_name,
                    "judge": r[metric],
                }
            )
    if not rows:
        raise InputError(f"no sample records with filter {filter!r}", field="filter", value=filter)
    return _items_frame(rows, labels, verdict=f"metric {metric}", positive=positive)


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
    (path,) = _paths(results, "results", ("*.json",))
    doc = _read_json(path, "results")
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
        _need(r, ("testIdx", "provider"), "results", path, i)
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
    return _items_frame(
        rows, labels, verdict=f"{assertion or 'gradingResult'}.{key}", scores=scores
    )


# ------------------------------------------------------------------ pairwise logs
def _pairs_frame(rows: list[dict], n_missing: int, what: str, covariates: tuple[str, ...] = ()):

    cols = ["first", "second", "winner", "judge", *covariates]
    df = pd.DataFrame(rows, columns=[*cols, "question_id", "turn"])
    df.attrs["n_missing"] = n_missing
    if n_missing:
        warnings.warn(
            f"{what}: {n_missing} verdict(s) the judge did not give (unparseable or error) "
            "are not comparisons; left out and counted in attrs['n_missing']",
            JudgeBayesWarning,
            stacklevel=3,
        )
    if df.empty:
        raise InputError(f"{what}: no comparisons with a verdict", field=what, value=0)
    return df


def _winner(code: Any, names: dict[str, str]) -> str | None:
    """Item id for a model key, '' for a tie, None for no verdict."""
    key = str(code).strip().lower() if code is not None else ""
    if key in names:
        return names[key]
    if key.startswith("tie"):
        return ""
    return None


def mt_bench_pairs(judgments):
    """The comparisons frame of MT-Bench pairwise judgments (both presentation orders).

    Parameters
    ----------
    judgments : str, path or list
        JSON-lines files: FastChat's ``gen_judgment.py`` pairwise output (each record
        judged twice, ``g1`` with ``model_1`` shown first and ``g2`` with ``model_2``
        first; one row per game) or the MT-Bench human judgments (``model_a`` shown
        first, ``winner``; one row each).

    Returns
    -------
    pandas.DataFrame
        ``first``, ``second``, ``winner`` (blank = tie), ``judge`` (the judge model and
        prompt, or the human annotator), ``question_id``, ``turn``.
    """
    rows, missing = [], 0
    for p in _paths(judgments, "judgments", ("*.jsonl",)):
        for i, r in enumerate(_read_records(p, "judgments")):
            judge = r.get("judge", "judge")
            judge = "/".join(map(str, judge)) if isinstance(judge, list) else str(judge)
            base = {"judge": judge, "question_id": r.get("question_id"), "turn": r.get("turn", 1)}
            if "g1_winner" in r:
                _need(r, ("model_1", "model_2", "g2_winner"), "judgments", p, i)
                m1, m2 = str(r["model_1"]), str(r["model_2"])
                names = {"model_1": m1, "model_2": m2}
                games = ((m1, m2, r["g1_winner"]), (m2, m1, r["g2_winner"]))
            else:
                _need(r, ("model_a", "model_b", "winner"), "judgments", p, i)
                a, b = str(r["model_a"]), str(r["model_b"])
                games = ((a, b, r["winner"]),)
                names = {"model_a": a, "model_b": b}
            for first, second, code in games:
                w = _winner(code, names)
                if w is None:
                    missing += 1
                    continue
                rows.append({"first": first, "second": second, "winner": w, **base})
    return _pairs_frame(rows, missing, "MT-Bench judgments")


def arena_pairs(battles, *, lengths: bool = True):
    """The comparisons frame of Chatbot Arena battles.

    Parameters
    ----------
    battles : str, path or list
        FastChat's ``clean_battle_*.json`` (a JSON list) or the same records as JSON
        lines.  ``model_a`` is the model shown first (left); the arena randomises it, so
        both orders occur.  Ties (``tie``, ``tie (bothbad)``) have a blank winner.
    lengths : bool
        Add ``tokens_first`` / ``tokens_second`` (the answers' token counts, from
        ``conv_metadata``) when every record has them, for a length covariate.

    Returns
    -------
    pandas.DataFrame
        ``first``, ``second``, ``winner``, ``judge`` (``"human"``: the arena's voters are
        anonymous), ``question_id``, ``turn`` and, with ``lengths``, the token counts.
    """
    rows, missing = [], 0
    has_len = lengths
    for p in _paths(battles, "battles", ("*.json", "*.jsonl")):
        for i, r in enumerate(_read_records(p, "battles")):
            _need(r, ("model_a", "model_b", "winner"), "battles", p, i)
            a, b = str(r["model_a"]), str(r["model_b"])
            w = _winner(r["winner"], {"model_a": a, "model_b": b})
            if w is None:
                missing += 1
                continue
            row = {
                "first": a,
                "second": b,
                "winner": w,
                "judge": "human",
                "question_id": r.get("question_id"),
                "turn": r.get("turn", 1),
            }
            meta = r.get("conv_metadata") or {}
            ta, tb = meta.get("sum_assistant_a_tokens"), meta.get("sum_assistant_b_tokens")
            if ta is None or tb is None:
                has_len = False
            row["tokens_first"], row["tokens_second"] = ta, tb
            rows.append(row)
    cov = ("tokens_first", "tokens_second") if has_len else ()
    df = _pairs_frame(rows, missing, "arena battles", covariates=cov)
    return df
