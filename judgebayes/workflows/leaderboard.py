"""A leaderboard with honest ranks: many systems scored on the same items.

>>> table = jb.leaderboard(frame, system="model", item="item_id", score="win")
>>> table[["system", "estimate", "lower", "upper", "rank_lower", "rank_upper", "tier"]]

The closed form of :mod:`judgebayes.inference.leaderboard`: each system's mean score with
its t interval, paired by item; rank intervals that hold for every system at once;
significance tiers; each system's bootstrap share of the top ``k``; and each system
against a reference (the leader, or ``baseline=``) with Holm's step-down over the
comparisons.  The scores are taken as the truth (exact match, or a judge's verdicts as
they are): a judge's errors are not corrected here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.checks.base import holm
from judgebayes.data.frames import (
    as_pandas,
    column_names,
    distinct_roles,
    group_labels,
    numeric_column,
    require_roles,
)
from judgebayes.errors import InputError, check_choice
from judgebayes.inference import leaderboard as lb
from judgebayes.results import check_alpha

__all__ = ["judge_corrected", "leaderboard"]

#: a system needs this many labelled rows for its residual mean
MIN_LABELS = 2
#: the level of the check that one slope fits every system's pull (``adjust=``)
ONE_SLOPE_ALPHA = 0.01


def leaderboard(
    frame,
    *,
    system: str = "system",
    item: str = "item",
    score: str = "score",
    human: str | None = None,
    cluster: str | None = None,
    adjust: str | list[str] | None = None,
    alpha: float = 0.05,
    top_k: int = 1,
    baseline: str | None = None,
    bootstrap: int = 1000,
    random_seed: int = 0,
) -> pd.DataFrame:
    """Each system's mean score, its simultaneous rank interval, tier and contrast.

    Parameters
    ----------
    frame : DataFrame
        One row per system and item: ``system``, ``item``, ``score`` (a number: 0/1, a win
        probability, a pass fraction); optionally ``cluster`` (items that are not
        independent, e.g. a subtask's problems).
    system, item, score, cluster : str
        The columns.
    human : str, optional
        Human labels on some rows (blank elsewhere): the scores are then a judge's, and
        each system's mean is corrected by them (:func:`judge_corrected`).
    adjust : str or list of str, optional
        Covariates of each row that the judge's score follows beside quality (the answer's
        log length over the reference's, say): each system's mean is given at covariates
        0, with one slope for every system fitted with an effect per system and item, and
        the slopes' uncertainty in every interval
        (:func:`~judgebayes.inference.leaderboard.covariate_adjusted`).  A covariate the
        same for every system on an item (the position an answer was shown in, when it is
        drawn per item) moves no rank and is absorbed by the items: an error.  Not with
        ``human=``.
    alpha : float
        1 - the level of every interval (the rank intervals and tiers: all at once).
    top_k : int
        The ``p_top_k`` column: the share of bootstrap resamples in which the system is
        among the best ``top_k``.
    baseline : str, optional
        The system every other is compared with (default: the leader).
    bootstrap : int
        Resamples of the items (or clusters) behind the simultaneous critical value (max-T)
        and ``p_top_k``; 0 uses Bonferroni's critical value and gives no ``p_top_k``.
    random_seed : int
        The bootstrap's seed.

    Returns
    -------
    DataFrame
        One row per system, best first: ``system``, ``estimate``, ``se``, ``lower``,
        ``upper`` (t interval), ``rank`` (by estimate), ``rank_lower``, ``rank_upper``
        (simultaneous), ``tier``, ``p_top_k``, ``difference`` (against the reference),
        ``p_value`` (two-sided t), ``p_holm`` and ``separated`` (Holm at ``alpha``).
        ``attrs``: ``notes`` (items left out, and why), ``n_items``, ``n_clusters``,
        ``critical_value``, ``reference``, ``alpha``, ``slopes`` (``adjust=``: each
        covariate's slope, its standard error, and the p-value of one slope for every
        system; below 0.01 the notes say the adjusted means are biased) and
        ``surely_above`` (each system to the systems the simultaneous intervals place
        below it).

    Notes
    -----
    The means estimate each system's mean over the population of items the benchmark's
    were drawn from (the process estimand), so two systems whose scores differ on the
    benchmark's own items may still share a tier.
    """
    alpha = check_alpha(alpha)
    covariates = () if adjust is None else column_names(adjust, "adjust")
    taken = {system, item, score, human, cluster} & set(covariates)
    if taken:
        raise InputError(
            f"adjust= names {sorted(taken)!r}, which already has a role (system, item, score, "
            "human or cluster)",
            field="adjust",
            value=sorted(taken),
        )
    x, names, g, notes, h, c = _matrix(frame, system, item, score, cluster, human, covariates)
    slopes = {}
    if covariates:
        x, slopes, note = _adjusted(x, c, covariates, human)
        notes.append(note)
    if h is not None:
        x, note = judge_corrected(x, h, names, human)
        notes.append(note)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= len(names):
        raise InputError(
            f"top_k must be a whole number from 1 to {len(names)}; got {top_k!r}",
            field="top_k",
            value=top_k,
        )
    b = lb.board(x, g, alpha=alpha, bootstrap=bootstrap, random_seed=random_seed)
    ref = int(np.argmax(b.mean)) if baseline is None else _index(names, baseline)
    table = lb.ranked_table(b, names, alpha, top_k)
    table = table.join(_against(b, ref, alpha))
    table = table.sort_values(["estimate", "system"], ascending=[False, True], kind="stable")
    table = table.reset_index(drop=True)
    table.attrs |= {
        "notes": notes,
        "n_items": x.shape[1],
        "n_clusters": int(g.max()) + 1,
        "critical_value": b.crit,
        "reference": names[ref],
        "alpha": alpha,
        "control": "max-T over items" if bootstrap else "Bonferroni",
        "slopes": slopes,
        "surely_above": _surely_above(b, names, table["system"]),
    }
    return table


def _surely_above(b: lb.Board, names: list[str], order) -> dict[str, list[str]]:
    """Each system (in the table's order) to the systems the simultaneous intervals place
    below it (the pairs the rank intervals and tiers rest on), as plain lists so the table
    still writes to Parquet and JSON.
    """
    above = lb.surely_above(b)
    at = {n: k for k, n in enumerate(names)}
    return {s: [t for t in order if above[at[s], at[t]]] for s in order}


def _adjusted(x, c, covariates, human):
    """The pseudo-scores at covariates 0 (:func:`lb.covariate_adjusted`), the slopes with
    their standard errors, and the note that says so.
    """
    if human is not None:
        raise InputError(
            "adjust= and human= together are not built: correct the judge by the labels, or "
            "adjust its scores for the covariates, not both",
            field="adjust",
            value=list(covariates),
        )
    within = c - c.mean(axis=0, keepdims=True)  # across the systems on each item
    for k, col in enumerate(covariates):
        if np.abs(within[..., k]).max() < 1e-12:
            raise InputError(
                f"adjust={col!r} is the same for every system on each item: it moves no rank, "
                "and the items' own effects absorb it; leave it out",
                field="adjust",
                value=col,
            )
    flat = (within - within.mean(axis=1, keepdims=True)).reshape(-1, len(covariates))
    for k, col in enumerate(covariates):
        if np.abs(flat[:, k]).max() < 1e-12:
            raise InputError(
                f"adjust={col!r} is one value per system (the same on every item): the "
                "systems' own effects absorb it, so no slope can be told from quality",
                field="adjust",
                value=col,
            )
    if len(covariates) > 1 and np.linalg.matrix_rank(flat) < len(covariates):
        raise InputError(
            f"adjust={list(covariates)!r}: the covariates are collinear once each system's "
            "and each item's own level is taken out; leave one out",
            field="adjust",
            value=list(covariates),
        )
    phi, beta, se, p = lb.covariate_adjusted(x, c)
    slopes = {
        col: (float(b), float(e), float(q))
        for col, b, e, q in zip(covariates, beta, se, p, strict=True)
    }
    said = ", ".join(f"{col} {b:+.4g} (se {e:.2g})" for col, (b, e, _) in slopes.items())
    note = (
        f"adjusted to {' = '.join(covariates)} = 0: the score's slope on {said}, one for "
        "every system, fitted with an effect per system and item; its uncertainty is in "
        "every interval"
    )
    apart = [f"{col} (p = {q:.2g})" for col, (_, _, q) in slopes.items() if q < ONE_SLOPE_ALPHA]
    if apart:
        note += (
            f"; check failed: the systems are pulled by {', '.join(apart)} with different "
            "slopes, so one slope biases the adjusted means: do not report them"
        )
    return phi, slopes, note


def _matrix(frame, system, item, score, cluster, human=None, covariates=()):
    """The (S, I) score matrix, the systems, each item's cluster code, the notes, the
    (S, I) human labels (NaN = unlabelled; None without ``human``) and the (S, I, K)
    ``covariates`` (None without them; a blank on a kept row is an error).
    """
    df = as_pandas(frame, "frame")
    cols = {"system": system, "item": item, "score": score, "cluster": cluster, "human": human}
    distinct_roles(
        {"score": score, "human": human}, {"system": system, "item": item, "cluster": cluster}
    )
    require_roles(df, cols)
    for col in covariates:
        require_roles(df, {"adjust": col})
    s = group_labels(df[system], system, "system").to_numpy()
    i = group_labels(df[item], item, "item").to_numpy()
    y = numeric_column(df[score], score)
    notes = []
    blank = np.isnan(y)
    if blank.any():
        notes.append(f"{int(blank.sum())} row(s) without a score left out")
    hv = None if human is None else numeric_column(df[human], human)
    keys = pd.DataFrame({"s": s, "i": i, "y": y, "h": np.nan if hv is None else hv})
    for k, col in enumerate(covariates):
        keys[f"c{k}"] = numeric_column(df[col], col)
    keys = keys[~blank]
    dup = keys.duplicated(["s", "i"])
    if dup.any():
        first = keys[dup].iloc[0]
        raise InputError(
            f"system {first['s']!r} has item {first['i']!r} twice; one score per system and item",
            field=item,
            value=str(first["i"]),
        )
    wide = keys.pivot(index="s", columns="i", values="y")
    complete = wide.notna().all(axis=0)
    if not complete.all():
        notes.append(
            f"{int((~complete).sum())} item(s) not scored for every system left out (a "
            "leaderboard compares systems on the same items)"
        )
    wide = wide.loc[:, complete]
    labels = None
    if hv is not None:
        labels = keys.pivot(index="s", columns="i", values="h").loc[wide.index, wide.columns]
        labels = labels.to_numpy(float)
    c = _covariates(keys, wide, covariates)
    if wide.shape[0] < 2 or wide.shape[1] < 2:
        raise InputError(
            f"a leaderboard needs 2 systems and 2 items scored for all of them; got "
            f"{wide.shape[0]} system(s) and {wide.shape[1]} such item(s)",
            field=item,
            value=int(wide.shape[1]),
        )
    if cluster is None:
        g = np.arange(wide.shape[1])
    else:
        c = group_labels(df[cluster], cluster, "cluster")
        of = pd.Series(c.to_numpy(), index=i).groupby(level=0).first()
        g = pd.factorize(of.loc[wide.columns].to_numpy())[0]
    return wide.to_numpy(float), list(map(str, wide.index)), g, notes, labels, c


def _covariates(keys, wide, covariates) -> np.ndarray | None:
    """The (S, I, K) covariates on the score matrix's rows and items."""
    if not covariates:
        return None
    c = np.stack(
        [
            keys.pivot(index="s", columns="i", values=f"c{k}").loc[wide.index, wide.columns]
            for k in range(len(covariates))
        ],
        axis=-1,
    ).astype(float)
    if np.isnan(c).any():
        where = np.argwhere(np.isnan(c))[0]
        raise InputError(
            f"column {covariates[where[2]]!r} (adjust=) is blank for system "
            f"{wide.index[where[0]]!r} on item {wide.columns[where[1]]!r}, a row the "
            "leaderboard keeps: every scored row needs a value",
            field=covariates[where[2]],
            value=None,
        )
    return c


def _index(names: list[str], baseline: str) -> int:
    check_choice(str(baseline), names, "baseline", "system")
    return names.index(str(baseline))


def _against(b: lb.Board, ref: int, alpha: float) -> pd.DataFrame:
    """Each system against the reference: the difference, its two-sided t p-value and
    Holm's step-down over the other systems.
    """
    d, se = b.diff[:, ref], b.diff_se[:, ref]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2 * stats.t.sf(np.abs(d / se), max(b.df, 1))
    p[ref] = np.nan  # the reference itself: no comparison
    adjusted = holm(p)
    return pd.DataFrame(
        {"difference": d, "p_value": p, "p_holm": adjusted, "separated": adjusted < alpha}
    )


def judge_corrected(
    x: np.ndarray, h: np.ndarray, names: list[str], human: str
) -> tuple[np.ndarray, str]:
    r"""Each row's pseudo-score, whose mean over the items is the system's judge-corrected
    mean (the augmented estimator of a shared calibration):

    .. math::

        \phi_{si} = \hat g(x_{si}) + \frac{I}{n_s}\,1[h_{si}\ \text{labelled}]\,
        (h_{si} - \hat g(x_{si})),

    with :math:`\hat g` the human label's mean given the judge's score, learnt from every
    system's labelled rows at once (the judge's errors are the same judge's on every
    system: a few labels correct all rows), per score value when the judge gives at most
    ten, else a least-squares line; and each system's own labelled residuals, so a judge
    kinder to one system costs width, not validity.  Paired by item and resampled by item,
    the pseudo-scores carry the labels' sampling into every interval; the labelled rows
    must be a random choice of each system's rows.
    """
    lab = ~np.isnan(h)
    n_s = lab.sum(axis=1)
    few = np.flatnonzero(n_s < MIN_LABELS)
    if few.size:
        raise InputError(
            f"column {human!r}: system {names[few[0]]!r} has {int(n_s[few[0]])} labelled "
            f"row(s); the correction needs at least {MIN_LABELS} a system",
            field=human,
            value=int(n_s[few[0]]),
        )
    xs, hs = x[lab], h[lab]
    values = np.unique(x)
    if values.size <= 10:
        overall = hs.mean()
        g_of = {
            v: (hs[xs == v].sum() + overall) / ((xs == v).sum() + 1.0) for v in values
        }  # each value's labelled mean, shrunk by one pseudo-label to the overall mean
        g = np.vectorize(g_of.__getitem__)(x)
        how = f"the human mean at each of the judge's {values.size} score values"
    else:
        slope, intercept = np.polyfit(xs, hs, 1)
        g = intercept + slope * x
        how = "a least-squares line of the human label on the score"
    weight = x.shape[1] / n_s[:, None]
    phi = g + np.where(lab, weight * (np.nan_to_num(h) - g), 0.0)
    note = (
        f"judge-corrected by {int(lab.sum())} human label(s) in {human!r} ({how}, from every "
        f"system's labels at once, plus each system's own residual mean; "
        f"{int(n_s.min())}-{int(n_s.max())} labels a system)"
    )
    return phi, note
