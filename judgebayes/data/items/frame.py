"""Validate one items frame into :class:`~judgebayes.data.items.data.ItemData`: each
role's columns read by its own reader (:mod:`~judgebayes.data.items.labels`,
:mod:`~judgebayes.data.items.roles`, :mod:`~judgebayes.data.items.covariates`), the rows
without a verdict counted, and every system checked for what its rate needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgebayes.data.frames import as_pandas, column_names, distinct_roles, require_column
from judgebayes.data.items.covariates import read_covariates
from judgebayes.data.items.data import ItemData
from judgebayes.data.items.labels import Labels, read_labels, read_verdicts
from judgebayes.data.items.roles import (
    group_codes,
    read_count,
    read_design,
    read_items,
    read_order,
    read_strata,
    read_weights,
)
from judgebayes.errors import InputError

#: what the rate is of when several raters label the items
TRUTHS = ("latent", "majority")


def items_from_frame(
    items,
    *,
    judge: str | list[str] = "judge",
    human: str | list[str] = "human",
    system: str | None = None,
    stratum: str | None = None,
    cluster: str | None = None,
    weights: str | None = None,
    positive: Any = None,
    count: str | None = None,
    item: str | None = None,
    covariates: str | list[str] | None = None,
    order: str | bool = True,
    design_columns: str | list[str] | None = None,
    labelled_by: str | list[str] | dict | None = None,
    truth: str = "latent",
    time: str | None = None,
    freq: str | None = None,
) -> ItemData:
    """Validate one item frame (module docstring) into :class:`ItemData`.

    Parameters
    ----------
    items : pandas.DataFrame or polars.DataFrame
        One row per evaluated item.
    judge : str or list of str
        Verdict column, or several judges' verdict columns (every judge scored every
        item; a row missing any judge's verdict is excluded and counted).
    human : str or list of str
        Human-label column (blank = unlabelled), or several raters' columns (each blank
        where that rater did not label the item).
    truth : {"latent", "majority"}
        With several raters, what the rate is of: the items' latent true label, each rater
        (and each judge) having its own sensitivity and specificity (the model of
        :class:`~judgebayes.studies.items.raters.SeveralRatersItems`), or the raters'
        majority label taken as the truth (a tie leaves the item unlabelled, counted), on
        which every one-label method runs.
    system, stratum, cluster : str, optional
        Grouping columns: systems evaluated, strata of a stratified labelling design
        (sizes known: every item of the frame counts), clusters of correlated items.
    weights : str, optional
        Column of design weights of labelled items (1 / probability of being labelled).
    positive : scalar, optional
        The label value meaning "correct" (both columns), when not a usual spelling.
    count : str, optional
        Column of multiplicities: each row stands for that many identical items (the
        reduced frame of :func:`judgebayes.data.large.reduce_items`).  The items are
        exchangeable within a row, so the study is the one of the expanded frame.
    item : str, optional
        Column naming the prompt each row answers, when several systems answered the same
        prompts: their contrasts are then paired.  One row per (item, system); a repeated
        pair is an error (aggregate first, or give ``count``), and an item only one
        system answered is counted (``ItemData.unpaired``).
    covariates : str, list of str or dict, optional
        Numeric item columns (answer length, position, a same-family flag) on which the
        judge's sensitivity and specificity, and the rate, may depend: the Laplace and NUTS
        engines then model them as logistic in these columns
        (:func:`~judgebayes.models.items.items_covariate_model`).  Every kept row needs
        a finite value.  A dict gives each column's term: ``"linear"`` or ``"spline"``
        (:func:`spline_basis` with knots at the :data:`SPLINE_KNOTS` quantiles: a judge
        lenient on very short and very long answers), e.g. ``{"length": "spline"}``; the
        spline's cubic columns are named ``"length (spline 1)"`` and so on.
    order : str or bool
        When each item was judged, for the labelling check (labels taken from one period
        of a log whose judge drifts): True (default) the row order, a column name (numbers
        or times), or False.
    design_columns : str or list of str, optional
        Further columns the labelling check compares between labelled and unlabelled
        items within each system x stratum x verdict cell (numbers or categories).
    labelled_by : str, list of str or dict, optional
        Columns the labelling followed: the strata are crossed with their quintiles
        (``{"length": 10}``: deciles; categories as they are), so that labelling at random
        within the new cells is what every method assumes.

    time, freq : str, optional
        The period each item was judged in (a number, a date, or text that sorts in time
        order); ``freq`` (``"D"``, ``"W"``, ``"M"``) buckets timestamps into periods.  The
        periods are then the strata (labels drawn at random within each period): every
        method estimates each period and pools them, and the Bayesian engine lets the
        judge's rates and the rate walk from period to period
        (:class:`~judgebayes.studies.items.over_time.OverTimeItems`).

    Raises
    ------
    InputError
        A missing column, a blank group value, a bad weight, a system without labelled
        items of the judge's verdict it needs, or duplicate column names.
    """
    items = as_pandas(items, "items")
    if len(items) == 0:
        raise InputError("the items frame has no rows", field="items", value=0)
    judges = _role_columns(items, judge, "judge", "a judge column")
    humans = _role_columns(items, human, "human", "a human-label column")
    if truth not in TRUTHS:
        raise InputError(
            f"truth must be 'latent' or 'majority'; got {truth!r}", field="truth", value=truth
        )
    roles = {"count": count, "judge": judges[0], "human": humans[0], "system": system,
             "stratum": stratum, "cluster": cluster, "weights": weights, "item": item}  # fmt: skip
    for role, col in roles.items():
        if col is not None:
            require_column(items, col, f"the {role} column", role)
    others = {k: c for k, c in roles.items() if k not in ("judge", "human")}
    distinct_roles({"judge": judges, "human": humans}, {**others, "time": time})
    verdicts = read_verdicts(items, judges, positive)
    labels = read_labels(items, humans, positive)
    sys_codes, systems = group_codes(items, system, "system")
    keep = ~np.isnan(verdicts.value)
    mult = None if count is None else read_count(items[count], count)
    n_missing = np.bincount(
        sys_codes[~keep], weights=None if mult is None else mult[~keep], minlength=len(systems)
    ).astype(np.int64)
    strata = read_strata(items, stratum, labelled_by, time, freq, keep)
    design = read_design(items, design_columns, strata.labelled_by)
    pos = read_order(items, order, count)
    cl = None if cluster is None else group_codes(items, cluster, "cluster")[0]
    it = read_items(items, item, count, sys_codes, systems)
    cov = read_covariates(items, covariates, keep, {*roles.values(), *judges})
    w = read_weights(items, weights, labels.value)
    rows = _row_expander(keep, mult)
    columns = {k: c for k, c in roles.items() if k != "count"} | {"time": time}
    data = ItemData(
        judge=rows(verdicts.value),
        human=rows(labels.value),
        system=rows(sys_codes),
        stratum=rows(strata.codes),
        cluster=None if cl is None else rows(cl),
        weights=None if w is None else rows(w),
        systems=systems,
        strata=strata.names,
        n_missing=n_missing,
        columns=columns | ({"order": order} if isinstance(order, str) else {}),
        rows=rows(items.index.to_numpy()),
        votes=None if verdicts.votes is None else rows(verdicts.votes),
        judges=verdicts.names if verdicts.votes is not None else (),
        item=None if it is None else rows(it),
        covariates=None if cov is None else rows(cov.values),
        covariate_names=() if cov is None else cov.names,
        order=None if pos is None else rows(pos),
        design={c: rows(x) for c, x in design.items()},
        labelled_by=strata.labelled_by,
        raters=None if labels.raters is None else rows(labels.raters),
        rater_names=labels.names if labels.raters is not None else (),
        truth="human" if labels.raters is None else truth,
        n_ties=0 if labels.tied is None else int(rows(labels.tied).sum()),
    )
    _check_systems(data, judge, human, labels, truth)
    return data


def _role_columns(items, given, role: str, what: str) -> list[str]:
    """The column (or columns) of the judge or human role, each present in the frame."""
    cols = list(column_names(given, role))
    for col in cols:
        require_column(items, col, what, role)
    return cols


def _row_expander(keep: np.ndarray, mult: np.ndarray | None):
    """The kept rows of an array: those with a verdict, each repeated ``mult`` times."""
    if mult is None and keep.all():
        return lambda a: a
    if mult is None:
        return lambda a: a[keep]
    return lambda a: np.repeat(a[keep], mult[keep], axis=0)


def _check_systems(data: ItemData, judge, human, labels: Labels, truth: str) -> None:
    """Every system has an item with a verdict, and one with a human label (unless the
    raters' latent truth is estimated without one).
    """
    systems, n_missing = data.systems, data.n_missing
    if len(systems) == 1:  # a bincount of 50,000 zeros takes 0.1 ms
        n = np.array([data.system.size])
        lab = np.array([np.count_nonzero(data.labelled)])
    else:
        n = np.bincount(data.system, minlength=len(systems))
        lab = np.bincount(data.system[data.labelled], minlength=len(systems))
    for i, s in enumerate(systems):
        if n[i] == 0:
            raise InputError(
                f"system {s!r} has no item with a verdict in column {judge!r} "
                f"({int(n_missing[i])} row(s) without one)",
                field=judge,
                value=s,
            )
        if lab[i] == 0 and not (labels.raters is not None and truth == "latent"):
            raise InputError(
                f"system {s!r} has no human-labelled item (column {human!r} is blank on all "
                f"{int(n[i])} of its rows): its rate cannot be corrected",
                field=human,
                value=s,
            )
