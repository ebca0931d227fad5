r"""Judge verdicts with human preferences on a subset: the data of a judge-error ranking.

One comparison *instance* is a pair shown in one order (first, second).  Each judge gives
at most one verdict on it, and a human may have given a preference too.  The judge's
verdict is read as a noisy copy of the human preference (see
:mod:`judgebayes.models.ranking.channel`); instances without a human label still inform the
ranking through their verdicts, instances with one also inform the judges' error rates.

Outcome codes, for humans and judges alike: 0 the first-shown item wins, 1 the second
wins, 2 a tie (only when ties are modelled), -1 missing.

Because only counts matter, the instances are reduced to *groups*: one row per distinct
(first, second, human outcome, verdict of every judge), with a frequency weight.  The
group table always holds every human state (missing, 0, 1[, 2]) for every verdict pattern
that occurs, so hiding or revealing human labels (:meth:`ChannelData.with_labelled`)
changes only the weights, and a compiled model is reused.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from judgebayes.data.frames import as_pandas, distinct_roles, numeric_column
from judgebayes.data.ranking.frames import ParsedPairs, column, outcome_codes, parse_pairs
from judgebayes.data.ranking.pairs import PairwiseData
from judgebayes.errors import InputError

__all__ = ["HUMAN_TIE_WORDS", "ChannelData", "channel_from_frames", "row_covariates"]

#: human preferences spelled as a tie (case-insensitive); missing values mean "no label"
HUMAN_TIE_WORDS = frozenset({"tie", "draw"})


@dataclass(frozen=True)
class ChannelData:
    """Instances of judged comparisons, some with a human preference.

    Attributes
    ----------
    items, judges : tuple of str
        Item ids and judge names.
    first, second : ndarray of int, shape (I,)
        Items of each instance, in presentation order.
    human : ndarray of int, shape (I,)
        Human outcome code (-1 where no human label is used).
    human_all : ndarray of int, shape (I,)
        Every human label the data had (``human`` may hide some; see
        :meth:`with_labelled`).
    verdicts : ndarray of int, shape (I, J)
        Each judge's verdict code (-1 where that judge gave none).
    n_outcomes : int
        2 (first / second) or 3 (with ties, Davidson's model).
    instance_ids : tuple
        The user's instance ids, in row order of the arrays.
    dropped : dict
        What was left out and why (``judge_ties``, ``human_ties``, ``no_verdict``).
    X : ndarray, shape (I, P)
        Standardised covariate differences (first minus second) of each instance, for a
        judge channel whose errors depend on them (P = 0: none).
    covariates : tuple of str
        Their names, in the column order of ``X``.
    """

    items: tuple[str, ...]
    judges: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    human: np.ndarray
    human_all: np.ndarray
    verdicts: np.ndarray
    n_outcomes: int
    instance_ids: tuple
    dropped: dict[str, int]
    X: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    covariates: tuple[str, ...] = ()

    def __post_init__(self):
        if self.X.size == 0 and self.X.shape != (self.first.size, 0):  # no covariates
            object.__setattr__(self, "X", np.zeros((self.first.size, 0)))

    @property
    def n_instances(self) -> int:
        """Number of instances kept."""
        return int(self.first.size)

    @property
    def n_labelled(self) -> int:
        """Instances whose human label is used."""
        return int(np.sum(self.human >= 0))

    def with_labelled(self, mask: Sequence[bool] | np.ndarray) -> ChannelData:
        """The same instances with human labels used only where ``mask`` is true (and the
        data had one): the split of a labelled subset from the rest.
        """
        m = np.asarray(mask, dtype=bool)
        if m.shape != (self.n_instances,):
            raise InputError(
                f"mask needs one value per instance ({self.n_instances}), got {m.shape}",
                field="mask",
                value=m.shape,
            )
        return replace(self, human=np.where(m, self.human_all, -1))

    def without_covariates(self) -> ChannelData:
        """The same instances with no channel covariates."""
        return replace(self, X=np.zeros((self.n_instances, 0)), covariates=())

    def with_items(self, items: Sequence[str]) -> ChannelData:
        """The same instances indexed into ``items`` (the same ids in another order)."""
        items = tuple(str(v) for v in items)
        if sorted(items) != sorted(self.items):
            missing = sorted(set(self.items) - set(items))
            raise InputError(
                f"the judge-error data and the verdicts must name the same items; "
                f"{missing[:3] or sorted(set(items) - set(self.items))[:3]} differ",
                field="items",
                value=len(items),
            )
        pos = {v: i for i, v in enumerate(items)}
        order = np.array([pos[v] for v in self.items], dtype=np.int64)
        return replace(self, items=items, first=order[self.first], second=order[self.second])

    def groups(self, *, complete: bool = False) -> dict[str, np.ndarray]:
        """Sufficient statistics: distinct (first, second, verdicts) patterns crossed with
        every human state, and the number of instances in each.

        Parameters
        ----------
        complete : bool
            Every ordered pair and every verdict pattern, seen or not (a table whose
            shape depends only on the items, judges and outcomes, so that one compiled
            model serves any data set on them: simulation studies).

        Returns
        -------
        dict
            ``first``, ``second`` (G,), ``verdicts`` (G, J), ``human`` (G,) and
            ``weight`` (G,) (float; zero for a human state no instance of the pattern has);
            with covariates also ``X`` (G, P) (a pattern is then also its covariates).
        """
        if complete and self.X.shape[1]:
            raise InputError(
                "a complete group table has one row per pattern, which covariates do not "
                "have; use the data's own groups",
                field="complete",
                value=True,
            )
        if complete:
            N, J, B = len(self.items), len(self.judges), self.n_outcomes + 1
            a, b = np.nonzero(~np.eye(N, dtype=bool))  # ordered pairs, row-major
            codes = np.array(list(itertools.product(range(-1, B - 1), repeat=J)), np.int64)
            codes = codes.reshape(-1, J)
            patterns = np.column_stack(
                [np.repeat(a, len(codes)), np.repeat(b, len(codes)), np.tile(codes, (a.size, 1))]
            )
            # mixed radix: the pair's row-major index, then each judge's code + 1 in base B
            pair = self.first * (N - 1) + self.second - (self.second > self.first)
            digits = (self.verdicts + 1) @ (B ** np.arange(J - 1, -1, -1))
            pat_idx = pair * len(codes) + digits
        else:
            key = np.column_stack([self.first, self.second, self.verdicts, self.X])
            patterns, pat_idx = np.unique(key, axis=0, return_inverse=True)
        pat_idx = pat_idx.ravel()
        states = np.arange(-1, self.n_outcomes)  # -1 (no label), 0, 1[, 2]
        S = states.size
        P = patterns.shape[0]
        weight = np.zeros(P * S)
        np.add.at(weight, pat_idx * S + (self.human + 1), 1.0)
        rep = np.repeat(np.arange(P), S)
        J = self.verdicts.shape[1]
        out = {
            "first": patterns[rep, 0].astype(np.int64),
            "second": patterns[rep, 1].astype(np.int64),
            "verdicts": patterns[rep, 2 : 2 + J].astype(np.int64),
            "human": np.tile(states, P).astype(np.int64),
            "weight": weight,
        }
        if self.X.shape[1]:
            out["X"] = patterns[rep, 2 + J :].astype(float)
        return out

    def frame(self) -> pd.DataFrame:
        """The instances as a tidy frame (outcome codes as words)."""
        words = np.array(["first", "second", "tie"])

        def word(c):
            return np.where(c >= 0, words[np.clip(c, 0, 2)], None)

        out = pd.DataFrame(
            {
                "instance": list(self.instance_ids),
                "first": [self.items[i] for i in self.first],
                "second": [self.items[i] for i in self.second],
                "human": word(self.human),
            }
        )
        for j, name in enumerate(self.judges):
            out[name] = word(self.verdicts[:, j])
        return out


def channel_from_frames(
    comparisons: pd.DataFrame,
    *,
    human: str = "human",
    instance: str | None = None,
    first: str = "first",
    second: str = "second",
    winner: str = "winner",
    judge: str | None = None,
    items: Sequence[str] | None = None,
    ties: str = "davidson",
    parsed: ParsedPairs | None = None,
    row_covariates: tuple[tuple[str, ...], np.ndarray] | None = None,
) -> ChannelData:
    """Judge verdicts plus human preferences, one row per judge verdict.

    Parameters
    ----------
    comparisons : DataFrame
        ``first``, ``second``, ``winner`` (the judge's verdict: an item id, or empty /
        ``"tie"`` for a tie, as in the pairwise contract), ``judge`` (optional) and the
        ``human`` column: the human's preferred item, ``"tie"``/``"draw"`` for a tie, and
        missing (NA, NaN, None or empty) where no human label exists.
    human : str
        Name of the human-preference column.
    instance : str, optional
        Column that ties the rows of one instance together (several judges on the same
        pair shown in the same order).  Default: every row is its own instance.
    first, second, winner, judge : str
        Column names of the pairwise contract (``judge`` optional: default the column
        ``"judge"`` if present, else one judge).
    items : sequence of str, optional
        Item ids (default: the sorted ids seen).
    ties : {"davidson", "drop"}
        ``"davidson"``: ties are a third outcome for humans and judges (when any occur).
        ``"drop"``: a judge's tie verdict is left out (that judge gave no verdict there)
        and an instance whose human says tie is left out altogether; both are counted in
        ``dropped``.
    parsed : ParsedPairs, optional
        The frame's shared columns already read
        (:func:`~judgebayes.data.ranking.parse_pairs`).
    row_covariates : (names, array of shape (rows, P)), optional
        Standardised covariate differences of every row of ``comparisons``; an instance
        takes its first row's (they describe the pair shown, the same for its judges).

    Raises
    ------
    InputError
        A human preference that is neither shown item nor a tie; one instance shown with
        two different pairs or orders, or with two different human labels; two verdicts
        of one judge on one instance; ``ties="half"`` (half wins are not a probability
        model, so they cannot be the input of a noisy channel).
    """
    if ties not in ("davidson", "drop"):
        raise InputError(
            f"ties must be 'davidson' or 'drop' for a judge-error ranking, got {ties!r} "
            "(a tie counted as half a win is not a probability model, so it cannot be "
            "the human outcome the judge's verdict is a noisy copy of)",
            field="ties",
            value=ties,
        )
    df = as_pandas(comparisons, "comparisons")
    if parsed is None:
        parsed = parse_pairs(df, first=first, second=second, winner=winner, judge=judge)
    av, bv, y = parsed.first, parsed.second, parsed.outcome
    judge = parsed.columns["judge"]
    distinct_roles(
        {"winner": parsed.columns["winner"], "human": human},
        {k: parsed.columns[k] for k in ("first", "second", "judge")} | {"instance": instance},
    )
    h = outcome_codes(
        column(df, human, "comparisons"), av, bv, human, blank="missing", tie_words=HUMAN_TIE_WORDS
    )
    if parsed.judge is not None and parsed.judges is not None:
        judge_names, jidx = parsed.judges, parsed.judge
    else:
        judge_names, jidx = ("judge",), np.zeros(len(df), dtype=np.int64)
    uniq, inv = _instances(df, instance)
    n_inst = uniq.size
    # one instance, one pair in one order, one human label
    first_row = np.full(n_inst, -1)
    first_row[inv[::-1]] = np.arange(len(df))[::-1]
    _one_pair_one_label(uniq, inv, first_row, {first: av, second: bv}, h, human)
    J = len(judge_names)
    _one_verdict_per_judge(uniq, inv, jidx, judge_names, judge)
    item_ids, index = _item_index(items, av, bv, first)
    verdicts, hum, keep, dropped = _kept(y, h[first_row], inv, jidx, J, ties)
    fi = np.array([index[v] for v in av[first_row]], dtype=np.int64)
    si = np.array([index[v] for v in bv[first_row]], dtype=np.int64)
    ties_seen = bool(np.any(verdicts[keep] == 2) or np.any(hum[keep] == 2))
    K = 3 if ties == "davidson" and ties_seen else 2
    if int(np.sum(hum[keep] >= 0)) == 0:
        raise InputError(
            f"column {human!r} has no human label on any kept instance; a judge-error "
            "ranking learns the judges' error rates from labelled instances",
            field=human,
            value=0,
        )
    return ChannelData(
        items=item_ids,
        judges=judge_names,
        first=fi[keep],
        second=si[keep],
        human=hum[keep],
        human_all=hum[keep],
        verdicts=verdicts[keep],
        n_outcomes=K,
        instance_ids=tuple(uniq[keep].tolist()),
        dropped=dropped,
        X=(
            np.zeros((0, 0))
            if row_covariates is None
            else np.asarray(row_covariates[1], float)[first_row][keep]
        ),
        covariates=() if row_covariates is None else tuple(row_covariates[0]),
    )


def row_covariates(comparisons, data: PairwiseData, parsed) -> tuple[tuple[str, ...], np.ndarray]:
    """Every row's standardised covariate differences (first minus second), on the scales
    of ``data``: the judge channel's covariates (an instance takes its first row's).
    """
    df = as_pandas(comparisons, "comparisons")
    a, b = parsed.codes_in(data.items)
    cols, k = [], 0
    for name in data.covariates:
        _, sd, kind = data.scales[name]
        if kind == "item":
            assert data.item_X is not None  # an item covariate is a column of item_X
            z = data.item_X[:, k]
            k += 1
            cols.append(z[a] - z[b])
        else:
            va = numeric_column(df[f"{name}_first"], f"{name}_first")
            vb = numeric_column(df[f"{name}_second"], f"{name}_second")
            cols.append((va - vb) / sd)
    X = np.column_stack(cols) if cols else np.zeros((len(df), 0))
    return tuple(data.covariates), X


def _instances(df, instance: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The instance ids (one per row without ``instance``) and each row's index into them."""
    if instance is None:
        inst_vals = np.arange(len(df))
    else:
        icol = column(df, instance, "comparisons")
        if icol.isna().any():
            r = int(np.flatnonzero(icol.isna().to_numpy(bool))[0])
            raise InputError(
                f"column {instance!r}: missing instance id in row {r}", field=instance, value=None
            )
        inst_vals = icol.to_numpy()
    uniq, inv = np.unique(inst_vals.astype(str) if instance else inst_vals, return_inverse=True)
    return uniq, inv.ravel()


def _one_pair_one_label(uniq, inv, first_row, pair: dict, h, human: str) -> None:
    """Every row of an instance shows its pair in one order and has its one human label."""
    for name, vals in pair.items():
        bad = vals != vals[first_row[inv]]
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"instance {uniq[inv[r]]!r} is shown with two different pairs or orders "
                f"(column {name!r}, row {r}); give each presentation its own instance id",
                field=name,
                value=str(vals[r]),
            )
    bad = h != h[first_row[inv]]
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"column {human!r}: instance {uniq[inv[r]]!r} has two different human labels (row {r})",
            field=human,
            value=str(uniq[inv[r]]),
        )


def _one_verdict_per_judge(uniq, inv, jidx, judge_names, judge) -> None:
    """A judge speaks once on an instance."""
    cell = inv * len(judge_names) + jidx
    if np.unique(cell).size < cell.size:
        _, first_idx, counts = np.unique(cell, return_index=True, return_counts=True)
        r = int(first_idx[counts > 1][0])
        raise InputError(
            f"judge {judge_names[jidx[r]]!r} has two verdicts on instance {uniq[inv[r]]!r}; "
            "give each verdict its own instance (e.g. the two presentation orders)",
            field=judge or "judge",
            value=judge_names[jidx[r]],
        )


def _item_index(items, av, bv, first) -> tuple[tuple, dict]:
    """The item ids (given, or those compared) and each id's index; an id compared but not
    given is an error.
    """
    if items is None:
        item_ids = tuple(sorted(set(av.tolist()) | set(bv.tolist())))
    else:
        item_ids = tuple(str(v) for v in items)
    index = {v: i for i, v in enumerate(item_ids)}
    unknown = sorted((set(av.tolist()) | set(bv.tolist())) - set(index))
    if unknown:
        raise InputError(
            f"unknown item id {unknown[0]!r} (not among the items)", field=first, value=unknown[0]
        )
    return item_ids, index


def _kept(y, hum, inv, jidx, J: int, ties: str):
    """The instance x judge verdicts (-1: none), the human outcome per instance, which
    instances are kept, and what was dropped and why (ties under ``ties="drop"``, an
    instance with neither a verdict nor a human label).
    """
    dropped = {"judge_ties": 0, "human_ties": 0, "no_verdict": 0}
    if ties == "drop":
        dropped["judge_ties"] = int(np.sum(y == 2))
        y = np.where(y == 2, -1, y)
    verdicts = np.full((hum.size, J), -1, dtype=np.int64)
    verdicts[inv, jidx] = y
    keep = np.ones(hum.size, dtype=bool)
    if ties == "drop":
        keep &= hum != 2
        dropped["human_ties"] = int(np.sum(hum == 2))
    no_verdict = (verdicts < 0).all(axis=1) & keep
    # an instance no judge spoke on and no human labelled carries nothing; with a human
    # label it still informs the ranking (its judges' terms are absent)
    dropped["no_verdict"] = int(np.sum(no_verdict & (hum < 0)))
    keep &= ~(no_verdict & (hum < 0))
    return verdicts, hum, keep, dropped
