"""The rounds of active labelling in an items frame: the judge's verdicts or scores and the
human labels as numbers, the round each label was drawn in and each round's probabilities,
checked against each other (what :mod:`judgebayes.workflows.label_next` plans and reads).
"""

from __future__ import annotations

import re

import numpy as np

from judgebayes.data.frames import as_pandas, distinct_roles, numeric_column, require_column
from judgebayes.errors import InputError

#: a round with no labels whose plan expected at least this many is planned, not labelled
#: (a round that drew nobody is then at most e^-5 likely): refused instead of read as exact
PLANNED_NOT_LABELLED = 5.0


def _numbers(df, col: str, what: str, field: str) -> np.ndarray:
    require_column(df, col, what, field, frame="items")
    return numeric_column(df[col], col)


def planned_columns(frame, judge: str, human: str, *, uncertainty, cost, round, probs):
    """The frame (pandas) and its judge, human, uncertainty and cost columns as floats (None
    where not given), every item judged: what a round is planned from.
    """
    df = as_pandas(frame, "frame")
    distinct_roles(
        {"judge": judge, "human": human},
        {"uncertainty": uncertainty, "cost": cost, "round": round, "probs": probs},
    )
    f = _numbers(df, judge, "judge verdicts or scores", "judge")
    y = _numbers(df, human, "human labels", "human")
    if np.isnan(f).any():
        raise InputError(
            f"column {judge!r}: {int(np.isnan(f).sum())} item(s) have no verdict; every item "
            "of the round must be judged",
            field=judge,
            value=None,
        )
    u = None if uncertainty is None else _numbers(df, uncertainty, "uncertainty", "uncertainty")
    c = None if cost is None else _numbers(df, cost, "labelling costs", "cost")
    return df, f, y, u, c


def labelled_columns(frame, judge: str, human: str, *, round: str, probs, uncertainty):
    """The frame (pandas) and its judge, human, round and uncertainty columns as floats,
    every label with its round and every round with a probability column.
    """
    df = as_pandas(frame, "frame")
    distinct_roles(
        {"judge": judge, "human": human},
        {"round": round, "uncertainty": uncertainty, "probs": probs},
    )
    f = _numbers(df, judge, "judge verdicts or scores", "judge")
    y = _numbers(df, human, "human labels", "human")
    rd = _numbers(df, round, "the round each item was labelled in", "round")
    if not isinstance(probs, list | tuple) or not probs:
        raise InputError("probs must list one probability column per round", field="probs")
    _check_rounds(y, rd, probs, human=human, round=round)
    u = None if uncertainty is None else _numbers(df, uncertainty, "uncertainty", "uncertainty")
    return df, f, y, rd, u


#: what :func:`returned_rounds` does with an item drawn for a label that never came back
LOST = ("refuse", "at_random", "by_score")
#: ``lost="by_score"``: the returned share is taken within at most this many bins of the
#: judge's score among a round's drawn items...
SCORE_BINS = 5
#: ...of at least this many drawn items each
BIN_ITEMS = 20
#: a round with labels lost needs at least this many back
MIN_RETURNED = 5
#: a round whose label count lies beyond this many standard deviations of its plan's
#: expectation (above or below) was not labelled as planned
OFF_PLAN_Z = 4.0


def returned_rounds(y: np.ndarray, rd: np.ndarray, lost: str, human: str, f=None):
    r"""The rounds with the labels that came back, and each round's returned share.

    An item drawn in round :math:`r` whose label never came back (blank ``human``) is
    refused by name with ``lost="refuse"``; with ``lost="at_random"`` (labels lost
    independently of everything) it counts as not drawn, and round :math:`r`'s
    probabilities are scaled by the share returned, :math:`\pi_i \rho_r` with
    :math:`\rho_r = n_r^{\text{returned}} / n_r^{\text{drawn}}`.  With
    ``lost="by_score"`` (labels lost more often on some items, at a rate that depends on
    the judge's score ``f`` alone: hard items the labellers skip) the share is taken
    within bins of the score, :math:`\pi_i \rho_{r,b(i)}`, the bins the quantiles of
    the round's drawn items' scores (:data:`SCORE_BINS` at most, :data:`BIN_ITEMS` drawn
    items each at least); a bin where no label came back is refused by name.  Returns the
    rounds and each round's share: a number, or one per item.
    """
    if lost not in LOST:
        raise InputError(f"lost must be one of {LOST}; got {lost!r}", field="lost", value=lost)
    missing = ~np.isnan(rd) & np.isnan(y)
    if not missing.any():
        return rd, {}
    shares: dict = {}
    for r in np.unique(rd[missing]).astype(int):
        drawn = rd == r
        shares[int(r)] = float((drawn & ~missing).sum() / drawn.sum())
        back = int((drawn & ~missing).sum())
        if lost != "refuse" and back < MIN_RETURNED:
            raise InputError(
                f"column {human!r}: {back} of the {int(drawn.sum())} labels requested in round "
                f"{r} came back: too few to stand for the round (at least {MIN_RETURNED}); "
                "label more of its items, or leave the round out",
                field=human,
                value=None,
            )
        if lost == "by_score":
            shares[int(r)] = _binned_shares(f, drawn, missing, int(r), human)
    if lost == "refuse":
        r, share = next(iter(shares.items()))
        n = int((rd == r).sum())
        raise InputError(
            f"column {human!r}: {int((missing & (rd == r)).sum())} of the {n} items drawn in "
            f"round {r} have no label (requested, not returned: {share:.0%} came back); label "
            "them, or if they were lost at random give lost='at_random' (each round's "
            "probabilities scaled by its returned share), or lost='by_score' if they were "
            "lost more often at some judge scores (the share taken within score bins)",
            field=human,
            value=None,
        )
    return np.where(missing, np.nan, rd), shares


def _binned_shares(f, drawn, missing, r: int, human: str) -> np.ndarray:
    """Each item's returned share of round ``r`` within its bin of the judge's score
    (:func:`returned_rounds`).
    """
    k = int(max(1, min(SCORE_BINS, drawn.sum() // BIN_ITEMS)))
    # a judge of few scores (a verdict of 0 or 1) has fewer distinct quantiles than bins
    levels = np.linspace(0, 1, k + 1)[1:-1]
    inner: np.ndarray = np.unique(np.quantile(f[drawn], levels)) if k > 1 else np.empty(0)
    k = inner.size + 1
    b = np.searchsorted(inner, f, side="right")
    back = np.bincount(b[drawn & ~missing], minlength=k)
    asked = np.bincount(b[drawn], minlength=k)
    if ((back == 0) & (asked > 0)).any():
        e = np.r_[-np.inf, inner, np.inf]
        j = int(np.flatnonzero((back == 0) & (asked > 0))[0])
        raise InputError(
            f"column {human!r}: none of the {int(asked[j])} labels requested in round {r} on "
            f"items with judge scores in [{e[j]:.3g}, {e[j + 1]:.3g}) came back: the "
            "returned share cannot stand for them (label them, or mark them not drawn)",
            field=human,
            value=None,
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        share = back / asked
    # a bin no item of the round was drawn from: its items take the round's share
    return np.where(asked > 0, share, back.sum() / asked.sum())[b]


def round_probabilities(
    df, probs, rd: np.ndarray, y: np.ndarray, human: str, shares: dict | None = None
) -> list:
    """Each round's probabilities (column ``probs[r - 1]``), in (0, 1] for the items drawn
    then or before, with labels on every item drawn by then; scaled by the round's
    returned share (``shares``, :func:`returned_rounds`) for the items not drawn before,
    and a round whose label count is far from its plan's refused.
    """
    out = []
    for r, col in enumerate(probs, start=1):
        pi = _numbers(df, col, f"round {r}'s probabilities", "probs")
        before, now = rd < r, rd == r
        bad = ((before | now) & ~(pi > 0)) | (pi > 1)
        if bad.any() or np.isnan(pi).any():
            raise InputError(
                f"column {col!r}: every item needs a probability in round {r}, in (0, 1] "
                "for the items drawn then or before",
                field=col,
                value=None if not bad.any() else float(pi[bad][0]),
            )
        expected = float(pi[~before].sum())
        if not now.any() and expected >= PLANNED_NOT_LABELLED:
            raise InputError(
                f"round {r} ({col!r}) has no labels, and its plan expected {expected:.1f}: "
                "label the items it drew, or estimate from the rounds before it "
                f"(probs={list(probs[: r - 1])!r})",
                field="probs",
                value=col,
            )
        if np.isnan(y[before | now]).any():
            raise InputError(
                f"column {human!r}: an item drawn in round {r} or before has no label",
                field=human,
                value=None,
            )
        share = (shares or {}).get(r, 1.0)
        pi = np.where(before, pi, pi * share)
        _as_planned(pi[~before], int(now.sum()), r, col)
        out.append(pi)
    return out


def _as_planned(pi: np.ndarray, labelled: int, r: int, col: str) -> None:
    r"""Refuse a round whose label count is more than :data:`OFF_PLAN_Z` standard
    deviations from its plan's (the count of a Poisson sampling design: mean
    :math:`\sum \pi_i`, variance :math:`\sum \pi_i (1 - \pi_i)`): labels added beyond
    the plan's draw, or left out of it, bias the estimate.
    """
    mean, var = float(pi.sum()), float(np.sum(pi * (1 - pi)))
    if var > 0 and abs(labelled - mean) > OFF_PLAN_Z * np.sqrt(var):
        raise InputError(
            f"round {r} has {labelled} labels and its plan ({col!r}) expected {mean:.1f} "
            f"(sd {np.sqrt(var):.1f}): label exactly the items the plan drew (label_next's "
            "draw), or mark items labelled off the plan as a round of their own",
            field="round",
            value=r,
        )


def _check_rounds(y: np.ndarray, rd: np.ndarray, probs, *, human: str, round: str) -> None:
    """Every label has its round, every round its probabilities and its labels: a label
    read without its round, or a round without labels yet, would be dropped or counted as
    exact without a word.
    """
    drawn = ~np.isnan(rd)
    orphans = ~np.isnan(y) & ~drawn
    if orphans.any():
        raise InputError(
            f"column {human!r}: {int(orphans.sum())} labelled item(s) have no round in "
            f"column {round!r}; give each its round (earlier labels drawn at random are a "
            "round of their own, every item's probability the share labelled then)",
            field=round,
            value=None,
        )
    rounds = rd[drawn]
    if rounds.size and (np.any(rounds != np.round(rounds)) or np.any(rounds < 1)):
        bad = rounds[(rounds != np.round(rounds)) | (rounds < 1)][0]
        raise InputError(
            f"column {round!r}: rounds are 1, 2, ...; got {bad!r}", field=round, value=float(bad)
        )
    if rounds.size and rounds.max() > len(probs):
        raise InputError(
            f"column {round!r}: round {int(rounds.max())} has labels, and probs names "
            f"{len(probs)} probability column(s): one per round",
            field="probs",
            value=len(probs),
        )


def recorded_rounds(df, col: str) -> np.ndarray:
    """The rounds written in column ``col`` (none when the frame has no such column)."""
    if col not in df.columns:
        return np.empty(0)
    r = numeric_column(df[col], col)
    return r[r == r]


#: the probability column a planned round writes (``prob_1``, ``prob_2``, ...)
PROB_COLUMN = re.compile(r"^prob_(\d+)$")


def next_round(df, round_col: str, human: str) -> tuple[int, list[str]]:
    """The round a log's next plan is, and the probability columns of the rounds before it.

    Raises
    ------
    InputError
        Rounds that are not 1, 2, ... (naming ``round_col``); items drawn in an earlier
        round with no label yet (naming ``human``); an earlier round's probability column
        missing (naming it).
    """
    done = recorded_rounds(df, round_col)
    if ((done < 1) | (done % 1 != 0)).any():
        raise InputError(
            f"column {round_col!r} must hold rounds 1, 2, ...", field=round_col, value=None
        )
    r = (int(done.max()) if done.size else 0) + 1
    if r > 1 and human in df.columns:
        waiting = int((df[round_col].notna() & df[human].isna()).sum())
        if waiting:
            raise InputError(
                f"{waiting} item(s) drawn in an earlier round have no {human!r} label yet: "
                f"label them before planning round {r}",
                field=human,
                value=None,
            )
    earlier = [f"prob_{i}" for i in range(1, r)]
    missing = [c for c in earlier if c not in df.columns]
    if missing:
        raise InputError(
            f"round {r} follows rounds 1-{r - 1}, but the frame has no column {missing[0]!r} "
            "(their probabilities, written when they were planned)",
            field=missing[0],
            value=None,
        )
    return r, earlier


def probability_columns(df) -> list[str]:
    """The rounds' probability columns ``prob_1``, ``prob_2``, ... of a log, in order; a gap
    in their numbers is an :class:`InputError` naming ``probs``.
    """
    found = sorted((int(m.group(1)), c) for c in df.columns if (m := PROB_COLUMN.match(str(c))))
    probs = [c for _, c in found]
    if [n for n, _ in found] != list(range(1, len(found) + 1)):
        raise InputError(
            f"the estimate needs the columns prob_1, prob_2, ... of every round (found "
            f"{probs}); or name them",
            field="probs",
            value=probs,
        )
    if not probs:
        raise InputError(
            "the estimate found no round (no prob_1 column)", field="probs", value=None
        )
    return probs
