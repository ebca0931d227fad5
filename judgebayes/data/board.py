r"""A leaderboard's data: many systems' outcomes on the same items, cell by cell.

One row of the frame is one outcome of one system on one item: a 0/1 score (exact match,
or a judge's verdict), or with ``trials=`` a count of successes in that many samples.  A
(system, item) cell may hold several rows (repeated samples).  With ``human=`` the scores
are a judge's, and some rows carry a human label (0/1, blank elsewhere).

:func:`board_from_frame` reads it into :class:`BoardData`: per cell the successes and
trials without a label (``k``, ``n``) and, for the labelled rows, the human's positives and
the labelled count (``h1``, ``n_l``); the judge's confusion counts on each system's
labelled rows (``tp``, ``fn``, ``tn``, ``fp``); each item's cluster.  Cells with no row
are allowed (a system not run on an item); they add nothing to the likelihood.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.data.frames import (
    as_pandas,
    distinct_roles,
    group_labels,
    numeric_column,
    require_roles,
)
from judgebayes.data.items.labels import binary_labels
from judgebayes.errors import InputError

__all__ = ["BoardData", "board_from_frame"]


@dataclass(frozen=True, eq=False)
class BoardData:
    """A leaderboard as cell counts (module docstring); arrays are (systems, items)."""

    systems: tuple[str, ...]
    items: tuple[str, ...]
    k: np.ndarray
    n: np.ndarray
    h1: np.ndarray
    n_l: np.ndarray
    confusion: np.ndarray  # (systems, 4): the judge's (tp, fn, tn, fp) on labelled rows
    cluster: np.ndarray  # (items,) codes
    clusters: tuple[str, ...]
    judged: bool
    #: (systems,): the judge's positive verdicts on each system's labelled rows
    judged_labelled: np.ndarray
    n_missing: int = 0

    @property
    def shape(self) -> tuple[int, int]:
        """(systems, items)."""
        return self.k.shape

    def observed_rate(self) -> np.ndarray:
        """Each system's raw rate: its successes over its trials, labelled rows counted by
        the judge's verdict where there is one (the uncorrected leaderboard).
        """
        return (self.k.sum(1) + self.judged_labelled) / (self.n.sum(1) + self.n_l.sum(1))


def board_from_frame(
    frame,
    *,
    system: str = "system",
    item: str = "item",
    score: str = "score",
    trials: str | None = None,
    human: str | None = None,
    cluster: str | None = None,
    judge: str | None = None,
) -> BoardData:
    """:class:`BoardData` from one row per outcome (module docstring).

    Parameters
    ----------
    frame : DataFrame
        The rows (pandas, or anything :func:`~judgebayes.data.frames.as_pandas` reads).
    system, item, score : str
        The columns: who answered, what, and the 0/1 outcome (with ``trials``: the count
        of successes).
    trials : str, optional
        A column of the number of samples behind ``score``'s count.
    human : str, optional
        0/1 human labels on some rows (blank elsewhere): ``score`` is then a judge's
        verdict; needs one score per row (no ``trials``).
    cluster : str, optional
        The item's group (a subtask): the same on every row of an item.
    judge : str, optional
        The outcome column by another name, for a judge's verdicts (not with ``score=``).
    """
    score = _outcome(score, judge, human, trials)
    df = as_pandas(frame, "frame")
    distinct_roles(
        {"score": score, "trials": trials, "human": human},
        {"system": system, "item": item, "cluster": cluster},
    )
    require_roles(
        df,
        {"system": system, "item": item, "score": score, "trials": trials, "human": human,
         "cluster": cluster},
    )  # fmt: skip
    s = group_labels(df[system], system, "system").to_numpy()
    i = group_labels(df[item], item, "item").to_numpy()
    # a 0/1 outcome is read as every verdict of the package is (booleans, yes/no, 0/1)
    y = (
        binary_labels(df[score], score, None)
        if trials is None
        else numeric_column(df[score], score)
    )
    t = np.ones_like(y) if trials is None else numeric_column(df[trials], trials)
    blank = np.isnan(y) | np.isnan(t)
    y, t, s, i = y[~blank], t[~blank], s[~blank], i[~blank]
    if trials is not None:
        _check_counts(y, t, score, trials)
    h = None if human is None else binary_labels(df[human], human, None)[~blank]
    systems, sc = np.unique(s.astype(str), return_inverse=True)
    items, ic = np.unique(i.astype(str), return_inverse=True)
    if systems.size < 2 or items.size < 2:
        raise InputError(
            f"a leaderboard needs 2 systems and 2 items; got {systems.size} system(s) and "
            f"{items.size} item(s)",
            field=system if systems.size < 2 else item,
            value=int(min(systems.size, items.size)),
        )
    shape = (systems.size, items.size)
    if h is None:
        h = np.full(y.size, np.nan)
    lab = ~np.isnan(h)
    k, n = _cells(sc[~lab], ic[~lab], y[~lab], t[~lab], shape)
    h1, n_l = _cells(sc[lab], ic[lab], np.nan_to_num(h)[lab], np.ones(lab.sum()), shape)
    yl, hl, sl = y[lab], np.nan_to_num(h)[lab], sc[lab]
    conf = np.column_stack(
        [
            np.bincount(sl, weights=(hl == a) & (yl == b), minlength=shape[0])
            for a, b in ((1, 1), (1, 0), (0, 0), (0, 1))
        ]
    ).astype(np.int64)
    jl = np.bincount(sc[lab], weights=yl, minlength=shape[0])
    g, names = _clusters(df, cluster, i, items, blank)
    return BoardData(
        tuple(systems.tolist()),
        tuple(items.tolist()),
        k,
        n,
        h1,
        n_l,
        conf,
        g,
        names,
        judged=human is not None,
        judged_labelled=jl,
        n_missing=int(blank.sum()),
    )


def _outcome(score: str, judge, human, trials) -> str:
    """The outcome column (``judge=`` is ``score=`` by another name), with the roles'
    checks: not both names, and no human labels on rows of several trials.
    """
    if judge is not None:
        if score != "score":
            raise InputError(
                "judge= and score= name the same role (the outcome column): give one",
                field="judge",
                value=judge,
            )
        score = judge
    if human is not None and trials is not None:
        raise InputError(
            "human= labels one outcome per row; a row of trials= counts holds several",
            field="trials",
            value=trials,
        )
    return score


def _check_counts(y, t, score, trials) -> None:
    bad = (t < 1) | (t != np.round(t)) | (y < 0) | (y > t) | (y != np.round(y))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"row {j}: {score} = {y[j]:g} successes of {trials} = {t[j]:g} trials; counts "
            "are whole numbers from 0 to the trials",
            field=score,
            value=float(y[j]),
        )


def _cells(sc, ic, y, t, shape) -> tuple[np.ndarray, np.ndarray]:
    k = np.zeros(shape, np.int64)
    n = np.zeros(shape, np.int64)
    np.add.at(k, (sc, ic), y.astype(np.int64))
    np.add.at(n, (sc, ic), t.astype(np.int64))
    return k, n


def _clusters(df, cluster, i, items, blank) -> tuple[np.ndarray, tuple[str, ...]]:
    if cluster is None:
        return np.zeros(items.size, np.int64), ()
    c = group_labels(df[cluster], cluster, "cluster").to_numpy()[~blank].astype(str)
    per = pd.DataFrame({"i": i.astype(str), "c": c}).drop_duplicates()
    if per["i"].duplicated().any():
        bad = per.loc[per["i"].duplicated(), "i"].iloc[0]
        raise InputError(
            f"item {bad!r} is in more than one {cluster!r}; an item belongs to one cluster",
            field=cluster,
            value=str(bad),
        )
    of = per.set_index("i")["c"].loc[list(items)]
    names, g = np.unique(of.to_numpy(), return_inverse=True)
    if names.size < 2:  # one cluster is no cluster
        return np.zeros(items.size, np.int64), ()
    return g.astype(np.int64), tuple(names.tolist())
