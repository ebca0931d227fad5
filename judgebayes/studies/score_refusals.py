"""Where a method of the scores design cannot answer the data given, and what to use."""

from __future__ import annotations

from judgebayes.data.scores import ScoreData
from judgebayes.errors import MethodRefused

__all__ = ["refuse_comparator", "refuse_nuts", "refuse_time"]


def refuse_time(name: str, d: ScoreData) -> None:
    """A method that fits one calibration across periods, given ``time=``."""
    raise MethodRefused(
        f"method {name!r} fits one calibration across the periods of "
        f"time={d.columns.get('time')!r}, biased when the labelling rate changes while the "
        "judge drifts; use 'closed_form', which calibrates within each period",
        field="time",
        value=d.columns.get("time"),
    )


def _unequal(d: ScoreData) -> tuple[str, object]:
    """The keyword that says the labels were not a simple random sample, and its value."""
    key = "label_prob" if "label_prob" in d.columns else "labelled_by"
    return key, d.columns.get(key)


def _score_columns(d: ScoreData) -> set[str]:
    given = d.columns.get("score")
    if isinstance(given, dict):
        return {str(c) for cols in given.values() for c in cols} | {str(k) for k in given}
    return {given} if isinstance(given, str) else {str(c) for c in given}


def refuse_nuts(d: ScoreData) -> None:
    """The ordinal model conditions on the scores and the system: labelling that followed
    anything else (``labelled_by=`` another column) biases it.
    """
    if d.period is not None:
        refuse_time("nuts", d)
    by = d.columns.get("labelled_by")
    if by is None:
        return
    cols = list(by) if isinstance(by, dict | list | tuple) else [by]
    other = [c for c in cols if c not in _score_columns(d)]
    if other:
        raise MethodRefused(
            f"method 'nuts' conditions on the scores and the system only; labelled_by= names "
            f"{other!r}, which the labelling followed besides them: use 'closed_form' (its "
            "residuals are weighted within the strata)",
            field="labelled_by",
            value=other,
        )


def refuse_comparator(name: str, d: ScoreData) -> None:
    """The comparators take one judge's raw score, one period, a simple random sample of
    labels and independent rows (``naive`` needs only the first two).
    """
    if name.startswith("ppi") and d.n_judges > 1:
        raise MethodRefused(
            f"method {name!r} takes one judge's raw score; {d.n_judges} judges were "
            "given: fit it on one judge's column, or use 'closed_form' for all of them",
            field="score",
            value=list(d.judges),
        )
    if d.period is not None:
        refuse_time(name, d)
    if d.weights is not None and name != "naive":
        key, value = _unequal(d)
        raise MethodRefused(
            f"method {name!r} takes the labels as a simple random sample; {key}={value!r} "
            "says they were not: use 'closed_form' (weighted) or 'nuts' (it conditions on "
            "the score and the system)",
            field=key,
            value=value,
        )
    if d.cluster is not None:
        raise MethodRefused(
            f"method {name!r} treats rows as independent and would ignore cluster="
            f"{d.columns.get('cluster')!r}; use 'closed_form' (cluster-robust)",
            field="cluster",
            value=d.columns.get("cluster"),
        )
