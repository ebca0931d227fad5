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
    ItemRoles,
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


def items_from_frame(items, roles: ItemRoles | None = None, /, **keywords: Any) -> ItemData:
    """Validate one item frame (module docstring) into :class:`ItemData`.

    Parameters
    ----------
    items : pandas.DataFrame or polars.DataFrame
        One row per evaluated item.
    roles : ItemRoles, optional
        Its columns and how to read them
        (:class:`~judgebayes.data.items.roles.ItemRoles`).
    **keywords
        Or the same as keywords: ``items_from_frame(frame, judge="verdict",
        human="label")`` is ``items_from_frame(frame, ItemRoles(judge="verdict",
        human="label"))``.

    Raises
    ------
    InputError
        A missing column, a blank group value, a bad weight, a system without labelled
        items of the judge's verdict it needs, or duplicate column names.
    """
    r = roles if roles is not None else ItemRoles.of("items_from_frame", keywords)
    items = as_pandas(items, "items")
    if len(items) == 0:
        raise InputError("the items frame has no rows", field="items", value=0)
    judges = _role_columns(items, r.judge, "judge", "a judge column")
    humans = _role_columns(items, r.human, "human", "a human-label column")
    if r.truth not in TRUTHS:
        raise InputError(
            f"truth must be 'latent' or 'majority'; got {r.truth!r}", field="truth", value=r.truth
        )
    cols = {"count": r.count, "judge": judges[0], "human": humans[0], "system": r.system,
            "stratum": r.stratum, "cluster": r.cluster, "weights": r.weights,
            "item": r.item}  # fmt: skip
    for role, col in cols.items():
        if col is not None:
            require_column(items, col, f"the {role} column", role)
    others = {k: c for k, c in cols.items() if k not in ("judge", "human")}
    distinct_roles({"judge": judges, "human": humans}, {**others, "time": r.time})
    verdicts = read_verdicts(items, judges, r.positive)
    labels = read_labels(items, humans, r.positive)
    sys_codes, systems = group_codes(items, r.system, "system")
    keep = ~np.isnan(verdicts.value)
    mult = None if r.count is None else read_count(items[r.count], r.count)
    n_missing = np.bincount(
        sys_codes[~keep], weights=None if mult is None else mult[~keep], minlength=len(systems)
    ).astype(np.int64)
    strata = read_strata(items, r.stratum, r.labelled_by, r.time, r.freq, keep)
    design = read_design(items, r.design_columns, strata.labelled_by)
    pos = read_order(items, r.order, r.count)
    cl = None if r.cluster is None else group_codes(items, r.cluster, "cluster")[0]
    it = read_items(items, r.item, r.count, sys_codes, systems)
    cov = read_covariates(items, r.covariates, keep, {*cols.values(), *judges})
    w = read_weights(items, r.weights, labels.value)
    rows = _row_expander(keep, mult)
    columns = {k: c for k, c in cols.items() if k != "count"} | {"time": r.time}
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
        columns=columns | ({"order": r.order} if isinstance(r.order, str) else {}),
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
        truth="human" if labels.raters is None else r.truth,
        n_ties=0 if labels.tied is None else int(rows(labels.tied).sum()),
    )
    _check_systems(data, r.judge, r.human, labels, r.truth)
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
