r"""A leaderboard's data: many systems' outcomes on the same items, cell by cell.

A (system, item) pair is a *cell*.  :class:`BoardData` holds, per cell, what every method
of the family reads:

* the closed forms: ``scores``, each cell's mean outcome (a 0/1 verdict, a win
  probability, a pass fraction; with trials, successes over trials), on the declared
  ``scale``; ``labels``, its human label where one was given; the covariates a judge
  follows (``adjust=``);
* the Bayesian models: the counts of the unlabelled outcomes (``k`` successes of ``n``)
  and of the labelled ones (``h1`` human positives of ``n_l``), the judge's confusion
  counts per system, each item's cluster.

A cell with no row holds NaN scores and zero counts (a system not run on an item): the
Bayesian models predict it, the closed forms leave the item out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["BoardData"]


@dataclass(frozen=True, eq=False)
class BoardData:
    """A leaderboard as cells (module docstring); arrays are (systems, items).

    Attributes
    ----------
    systems, items : tuple of str
        The labels, sorted.
    scores : ndarray of float
        Each cell's mean outcome (NaN: no row); with trials, its successes over trials.
    rows : ndarray of int
        The outcomes behind each cell (rows, or trials).
    labels : ndarray of float
        Each cell's mean human label over its labelled rows (NaN: none).
    k, n, h1, n_l : ndarray of int
        Counts for the Bayesian models: successes and outcomes of the unlabelled rows;
        human positives and outcomes of the labelled rows (zero when ``counts`` is False).
    confusion : ndarray of int, shape (systems, 4)
        The judge's (tp, fn, tn, fp) on each system's labelled rows.
    judged_labelled : ndarray, shape (systems,)
        The judge's positive verdicts on each system's labelled rows.
    cluster : ndarray of int, shape (items,)
        Each item's cluster code (all 0 without clusters).
    clusters : tuple of str
        The cluster labels (empty without ``cluster=``).
    judged : bool
        The outcomes are a judge's and some rows carry a human label.
    counts : bool
        Every outcome is 0/1 or a whole count of trials, and every human label 0/1
        (what the Bayesian models read).
    trials : bool
        Rows hold counts of successes in several trials (``trials=``).
    scale : (float, float)
        The outcomes' declared range.
    covariates : ndarray or None, shape (systems, items, K)
        The covariates a judge follows (``adjust=``), per cell.
    covariate_names : tuple of str
    columns : dict
        Role to the column it was read from (for messages).
    item_groups : dict
        Without ``cluster=``: each other column of the frame that is one value on every
        row of an item and takes 2 to I/2 values, as (items,) codes (a grouping the items
        may share undeclared; :mod:`judgebayes.checks.leaderboard.clustering`).
    row_columns : dict
        With ``human=``: each other numeric column of the frame as its (systems, items)
        cell means (what the labelling may have followed, an answer's length say;
        :mod:`judgebayes.checks.leaderboard.labelling`).
    n_missing : int
        Rows without an outcome, left out.
    n_repeated : int
        Cells holding several rows (averaged in ``scores``).
    blank_systems : tuple of str
        Systems every row of which has no outcome (not on the board).
    """

    systems: tuple[str, ...]
    items: tuple[str, ...]
    scores: np.ndarray
    rows: np.ndarray
    labels: np.ndarray
    k: np.ndarray
    n: np.ndarray
    h1: np.ndarray
    n_l: np.ndarray
    confusion: np.ndarray
    judged_labelled: np.ndarray
    cluster: np.ndarray
    clusters: tuple[str, ...] = ()
    judged: bool = False
    counts: bool = True
    trials: bool = False
    scale: tuple[float, float] = (0.0, 1.0)
    covariates: np.ndarray | None = None
    covariate_names: tuple[str, ...] = ()
    columns: dict = field(default_factory=dict)
    item_groups: dict = field(default_factory=dict)
    row_columns: dict = field(default_factory=dict)
    n_missing: int = 0
    n_repeated: int = 0
    blank_systems: tuple[str, ...] = ()

    @property
    def shape(self) -> tuple[int, int]:
        """(systems, items)."""
        return self.scores.shape

    def column(self, role: str) -> str:
        """The column a role was read from (the role's name when it was not a column)."""
        return str(self.columns.get(role) or role)

    def complete_items(self) -> np.ndarray:
        """(items,) booleans: the items every system has an outcome on (the closed forms
        compare systems on these).
        """
        return np.all(self.rows > 0, axis=0)

    def observed_rate(self) -> np.ndarray:
        """Each system's raw rate over its rows: the uncorrected leaderboard (labelled
        rows counted by the judge's verdict).
        """
        w = self.rows.astype(float)
        return np.nansum(self.scores * w, axis=1) / w.sum(axis=1)
