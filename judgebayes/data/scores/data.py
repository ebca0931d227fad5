"""Validated scores of one frame (:class:`ScoreData`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ScoreData:
    """Validated item-level data of the scores design.

    Attributes
    ----------
    score : ndarray of float, shape (N, J)
        Each judge's score (a probability vector's expected level).
    human : ndarray of float, shape (N,)
        The human label (the raters' mean, or 0/1 after ``threshold``); NaN = unlabelled.
    system : ndarray of int, shape (N,)
        Codes into :attr:`systems`.
    item, cluster : ndarray of int, shape (N,), or None
        The prompt each row answers (pairs systems) and clusters of correlated rows.
    period : ndarray of int, shape (N,), or None
        Codes into :attr:`periods` (``time=``), in time order.
    systems, judges : tuple of str
    score_scale : ndarray, shape (J, 2)
        Each judge's (low, high): ``scale=`` or the observed range.
    human_scale : tuple of float
        The human label's (low, high): ``human_scale=``, (0, 1) after ``threshold``, or
        the observed range.
    n_missing : ndarray of int
        Rows per system without every judge's score (excluded).
    n_raters : ndarray of int, shape (N,)
        Human ratings behind each label (0 on unlabelled rows).
    probabilities : dict
        Judge name -> (levels, (N, K) probabilities) for judges given as a probability
        vector over levels.
    weights : ndarray of float, shape (N,), or None
        ``label_prob=``: each labelled row's inverse labelling probability (NaN elsewhere);
        with ``labelled_by=`` its stratum's rows over its labels.
    label_strata : ndarray of int, shape (N,), or None
        ``labelled_by=``: each row's stratum (within its system), in which the labels are
        a random choice.
    label_covariates : ndarray of float, shape (N, K), or None
        ``labelled_by=``'s numeric columns (a blank is the system's mean), which the
        weighted closed form also regresses its residuals on.
    columns : dict
        Column names given, for messages.
    rows : ndarray
        The frame's index labels of the kept rows.
    """

    score: np.ndarray
    human: np.ndarray
    system: np.ndarray
    systems: tuple[str, ...]
    judges: tuple[str, ...]
    score_scale: np.ndarray
    human_scale: tuple[float, float]
    n_missing: np.ndarray
    n_raters: np.ndarray
    columns: dict
    rows: np.ndarray
    item: np.ndarray | None = None
    cluster: np.ndarray | None = None
    probabilities: Any = None
    threshold: float | None = None
    period: np.ndarray | None = None
    periods: tuple[str, ...] = ()
    weights: np.ndarray | None = None
    label_strata: np.ndarray | None = None
    label_covariates: np.ndarray | None = None

    @property
    def mean_score(self) -> np.ndarray:
        """Each row's score, averaged over the judges."""
        return self.score.mean(axis=1)

    @property
    def labelled(self) -> np.ndarray:
        """Rows with a human label."""
        return ~np.isnan(self.human)

    @property
    def n_judges(self) -> int:
        """How many judges scored each row."""
        return self.score.shape[1]

    @property
    def binary(self) -> bool:
        """Whether the human label is 0/1 (a pass rate)."""
        h = self.human[self.labelled]
        return bool(np.all((h == 0) | (h == 1)))

    def summary(self) -> pd.DataFrame:
        """Items, labelled items, mean score per judge, mean human label, missing rows."""
        lab = self.labelled
        ns = len(self.systems)
        n = np.bincount(self.system, minlength=ns)
        nl = np.bincount(self.system[lab], minlength=ns)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = {
                "n_items": n,
                "n_labelled": nl,
                **{
                    f"mean_score[{j}]": np.bincount(
                        self.system, weights=self.score[:, k], minlength=ns
                    )
                    / n
                    for k, j in enumerate(self.judges)
                },
                "mean_human_labelled": np.bincount(
                    self.system[lab], weights=self.human[lab], minlength=ns
                )
                / nl,
                "n_missing": self.n_missing,
            }
        return pd.DataFrame(out, index=pd.Index(self.systems, name="system"))
