"""Validate one scores frame into :class:`~judgebayes.data.scores.data.ScoreData`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import (
    as_pandas,
    distinct_roles,
)
from judgebayes.data.items.roles import group_codes
from judgebayes.data.scores.data import ScoreData
from judgebayes.data.scores.roles import (
    ScoreRoles,
    check_scores,
    kept_codes,
    named_columns,
    observed_scale,
    passes,
    read_label_prob,
    read_labelled_by,
    read_labels,
    read_periods,
    read_scale,
    read_scores,
    require_in_scale,
    require_scores_column,
    score_scale,
)
from judgebayes.errors import InputError


def scores_from_frame(items, roles: ScoreRoles | None = None, /, **keywords: Any) -> ScoreData:
    """Validate one scores frame (module docstring) into :class:`ScoreData`.

    Parameters
    ----------
    items : pandas.DataFrame or polars.DataFrame
        One row per judged output.
    roles : ScoreRoles, optional
        Its columns and how to read them
        (:class:`~judgebayes.data.scores.roles.ScoreRoles`).
    **keywords
        Or the same as keywords: ``scores_from_frame(frame, score="rating")`` is
        ``scores_from_frame(frame, ScoreRoles(score="rating"))``.

    Raises
    ------
    InputError
        A missing column, a value that is not a number, a score outside ``scale``, a blank
        group value, a repeated (item, system), no labelled row, or with ``time=`` a
        blank period or a (system, period) with rows and fewer than 2 labelled ones.
    """
    r = roles if roles is not None else ScoreRoles.of("scores_from_frame", keywords)
    df = as_pandas(items, "items")
    if len(df) == 0:
        raise InputError("the scores frame has no rows", field="items", value=0)
    judged = read_scores(df, r.score, r.levels)
    raters = named_columns(r.human, "human")
    for rater in raters:
        require_scores_column(df, rater, "a human label", "human")
    groups = {"system": r.system, "item": r.item, "cluster": r.cluster}
    for role, col in groups.items():
        if col is not None:
            require_scores_column(df, col, f"the {role} column", role)
    distinct_roles({"score": judged.columns, "human": raters}, {**groups, "time": r.time})
    h, n_raters = read_labels(df, raters)
    s, judges = judged.scores, judged.judges
    sc = read_scale(r.scale, "scale")
    check_scores(s, judges, sc)
    hs = read_scale(r.human_scale, "human_scale")
    if hs is not None:
        require_in_scale(h, hs, "human", "human_scale")
    if r.threshold is not None:
        h, hs = passes(h, r.threshold, hs)
    sys_codes, systems = group_codes(df, r.system, "system")
    keep, lab, n_missing = _kept(s, h, sys_codes, len(systems), judges, raters)
    codes = {role: kept_codes(df, groups[role], role, keep) for role in ("item", "cluster")}
    if codes["item"] is not None:
        _one_row_per_item(df, r.item, codes["item"], sys_codes[keep], len(systems), keep)
    period, periods = read_periods(
        df, r.time, r.freq, r.item, keep, lab[keep], sys_codes[keep], systems
    )
    weights, strata, covariates, given = _weights(
        df, r.label_prob, r.labelled_by, lab, keep, groups, sys_codes, systems, (period, periods)
    )
    hs = observed_scale(h[lab]) if hs is None else hs
    return ScoreData(
        score=s[keep],
        human=h[keep],
        system=sys_codes[keep].astype(np.int64),
        systems=systems,
        judges=judges,
        score_scale=score_scale(s[keep], sc, len(judges)),
        human_scale=(float(hs[0]), float(hs[1])),
        n_missing=n_missing,
        n_raters=n_raters[keep],
        columns={"score": r.score, "human": r.human, **groups}
        | ({"time": r.time} if r.time is not None else {})
        | given,
        rows=df.index.to_numpy()[keep],
        item=codes["item"],
        cluster=codes["cluster"],
        probabilities={k: (lv, p[keep]) for k, (lv, p) in judged.probabilities.items()} or None,
        threshold=None if r.threshold is None else float(r.threshold),
        period=period,
        periods=periods,
        weights=None if weights is None else weights[keep],
        label_strata=strata,
        label_covariates=covariates,
    )


def _kept(s, h, sys_codes, n_systems: int, judges, raters):
    """Rows with every judge's score, those with a label too, and the rows excluded per
    system; no such row, or no label, is an error.
    """
    keep = ~np.isnan(s).any(1)
    n_missing = np.bincount(sys_codes[~keep], minlength=n_systems).astype(np.int64)
    if not keep.any():
        raise InputError("no row has every judge's score", field="score", value=list(judges))
    lab = ~np.isnan(h) & keep
    if not lab.any():
        raise InputError(
            f"no scored row has a human label in {list(raters)}: the judge's scores cannot "
            "be calibrated to humans without some",
            field="human",
            value=list(raters),
        )
    return keep, lab, n_missing


def _cell(g: int, systems, periods) -> str:
    p, k = divmod(int(g), len(systems))
    return f"system {systems[k]!r}" + (f" in period {periods[p]!r}" if periods else "")


def _weights(df, label_prob, labelled_by, lab, keep, roles, sys_codes, systems, periods):
    """The labelled rows' inverse probabilities (``label_prob=``, or estimated within the
    ``labelled_by=`` strata of each system, or of each system in each period), those
    strata's codes, the numeric ``labelled_by`` columns, and the keywords given (with the
    bins used) for :attr:`ScoreData.columns`.
    """
    paired = roles["item"] is not None or roles["cluster"] is not None
    if label_prob is not None and labelled_by is not None:
        raise InputError(
            "label_prob= and labelled_by= together: give the known probabilities or the "
            "columns the labelling followed, not both",
            field="labelled_by",
            value=labelled_by,
        )
    if labelled_by is None:
        given = {} if label_prob is None else {"label_prob": label_prob}
        return read_label_prob(df, label_prob, lab), None, None, given
    if paired:
        raise InputError(
            "labelled_by= goes without item= and cluster= (the strata's estimated rates "
            "have no paired or clustered variance): leave those out, or give the known "
            "probabilities as label_prob=, which takes them",
            field="labelled_by",
            value=labelled_by,
        )
    period, names = periods
    group = sys_codes.astype(np.int64)
    if period is not None:  # strata within each period
        group[keep] = period * len(systems) + sys_codes[keep]
    w, strata, x, bins = read_labelled_by(
        df, labelled_by, lab, keep, group, lambda g: _cell(g, systems, names)
    )
    return w, strata, x, {"labelled_by": labelled_by, "labelled_by_bins": bins}


def _one_row_per_item(df, item, codes, system, n_systems: int, keep) -> None:
    """A paired frame has one row per (item, system)."""
    dup = pd.Series(codes * n_systems + system).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise InputError(
            f"column {item!r}: item {df[item].to_numpy()[keep][i]!r} appears twice for "
            f"one system (one row per item and system; average repeated judgements first)",
            field="item",
            value=str(df[item].to_numpy()[keep][i]),
        )
