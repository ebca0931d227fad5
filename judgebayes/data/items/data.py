"""Validated item-level data of the items design (:class:`ItemData`) and its sufficient
statistics.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.errors import InputError


@dataclass(frozen=True)
class ItemData:
    """Validated item-level data of the items design.

    Attributes
    ----------
    judge : ndarray of float, shape (N,)
        The judge's verdict, 0 or 1 (rows without a verdict are excluded and counted).
    human : ndarray of float, shape (N,)
        The human label, 0, 1 or NaN (unlabelled).
    system, stratum : ndarray of int, shape (N,)
        Codes into :attr:`systems` and :attr:`strata`.
    cluster : ndarray of int, shape (N,), or None
        Cluster codes (several responses to one prompt, turns of one conversation).
    weights : ndarray of float, shape (N,), or None
        Design weight of each labelled item, 1 / its probability of being labelled
        (NaN on unlabelled items, where it is not used).
    systems, strata : tuple of str
        Unit names.
    n_missing : ndarray of int, shape (n_systems,)
        Rows of each system without a verdict (excluded).
    columns : dict
        The column names given, for messages.
    rows : ndarray, optional
        The frame's index labels of the kept rows (to name items to label next).
    item : ndarray of int, shape (N,), or None
        The prompt each item answers (``item=``): the same code across systems pairs them.
    votes : ndarray of float, shape (N, J), or None
        Several judges: every judge's verdict (``judge`` then holds the number of
        positive votes, 0..J).
    judges : tuple of str
        The judges' column names (several judges only).
    covariates : ndarray of float, shape (N, P), or None
        Item covariates the judge's rates may depend on (``covariates=``), as given.
    covariate_names : tuple of str
        Their column names.
    order : ndarray of float, shape (N,), or None
        When each item was judged: the row position, or the ``order=`` column (times as
        seconds); None when not known (a reduced frame, ``order=False``).
    design : dict of str to ndarray
        The ``design_columns=`` the labelling check compares (numbers as float, other
        values as strings; missing as NaN / None).
    labelled_by : tuple of str
        Columns the strata were built from (``labelled_by=``).
    """

    judge: np.ndarray
    human: np.ndarray
    system: np.ndarray
    stratum: np.ndarray
    cluster: np.ndarray | None
    weights: np.ndarray | None
    systems: tuple[str, ...]
    strata: tuple[str, ...]
    n_missing: np.ndarray
    columns: dict
    rows: np.ndarray | None = None
    votes: np.ndarray | None = None
    judges: tuple[str, ...] = ()
    item: np.ndarray | None = None
    covariates: np.ndarray | None = None
    covariate_names: tuple[str, ...] = ()
    order: np.ndarray | None = None
    design: dict = dataclasses.field(default_factory=dict)
    labelled_by: tuple[str, ...] = ()
    raters: np.ndarray | None = None
    rater_names: tuple[str, ...] = ()
    truth: str = "human"
    n_ties: int = 0

    @property
    def unpaired(self) -> np.ndarray:
        """Per system, its items no other system answered (``item=`` given; else zeros)."""
        if self.item is None:
            return np.zeros(len(self.systems), dtype=np.int64)
        answered = np.bincount(self.item, minlength=int(self.item.max()) + 1)
        alone = answered[self.item] == 1
        return np.bincount(self.system[alone], minlength=len(self.systems))

    @property
    def n_judges(self) -> int:
        """How many judges scored every item (1 unless ``judge=`` named several)."""
        return 1 if self.votes is None else int(self.votes.shape[1])

    @functools.cached_property
    def category(self) -> np.ndarray:
        """Each item's verdict category: the verdict (one judge) or the positive votes."""
        return self.judge.astype(np.int64)

    @functools.cached_property
    def cell(self) -> np.ndarray:
        """Each item's labelling-design cell: (system, stratum, verdict category) as one
        code, laid out system-major (computed once: the estimators and the labelling check
        share it).
        """
        k = self.n_judges + 1
        if len(self.systems) * len(self.strata) == 1:
            return self.category
        return (self.system * len(self.strata) + self.stratum) * k + self.category

    @functools.cached_property
    def labelled(self) -> np.ndarray:
        """Mask of items with a human label (computed once: the data never change)."""
        return ~np.isnan(self.human)

    def cells(self) -> dict[str, np.ndarray]:
        """The sufficient statistics, each of shape (n_systems, n_strata) (module docstring).

        One judge only (several judges have a vote pattern, not one verdict).
        """
        if self.n_judges > 1:
            raise InputError(
                f"this method takes one judge's verdicts; {self.n_judges} judges were given "
                f"({list(self.judges)}): use method='closed_form' or 'exact' (over the vote "
                "count) or 'nuts' / 'laplace' (the joint latent-class model)",
                field="judge",
                value=list(self.judges),
            )
        shape = (len(self.systems), len(self.strata))
        flat = self.system * shape[1] + self.stratum
        size = shape[0] * shape[1]
        lab = self.labelled
        v = self.judge
        h = np.where(lab, self.human, 0.0)

        def count(weights):
            return np.bincount(flat, weights=weights, minlength=size).reshape(shape)

        out = {
            "N1": count(v),
            "N0": count(1 - v),
            "L1": count(lab * v),
            "L0": count(lab * (1 - v)),
            "H1": count(h * v),
            "H0": count(h * (1 - v)),
        }
        return {k: np.rint(x).astype(np.int64) for k, x in out.items()}

    @staticmethod
    def model_counts(c: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The models' counts from :meth:`cells` ``c``: unlabelled judged positives ``k`` of
        ``n``, the labelled positives' true positives ``tp`` of ``m1`` and the labelled
        negatives' true negatives ``tn`` of ``m0``.
        """
        m1 = c["H1"] + c["H0"]
        return {
            "k": c["N1"] - c["L1"],
            "n": c["N1"] + c["N0"] - c["L1"] - c["L0"],
            "tp": c["H1"],
            "m1": m1,
            "tn": c["L0"] - c["H0"],
            "m0": c["L1"] + c["L0"] - m1,
        }

    def summary(self):
        """Per system: items, labelled, judged positive, human positive among labelled, missing."""
        if self.n_judges > 1:
            lab = self.labelled
            ns = len(self.systems)
            return pd.DataFrame(
                {
                    "n_items": np.bincount(self.system, minlength=ns),
                    "n_labelled": np.bincount(self.system[lab], minlength=ns),
                    "mean_positive_votes": np.bincount(
                        self.system, weights=self.judge, minlength=ns
                    )
                    / np.bincount(self.system, minlength=ns),
                    "human_positive": np.rint(
                        np.bincount(self.system[lab], weights=self.human[lab], minlength=ns)
                    ).astype(np.int64),
                    "n_missing": self.n_missing,
                },
                index=pd.Index(list(self.systems), name="system"),
            )
        c = self.cells()
        n = (c["N1"] + c["N0"]).sum(1)
        lab = (c["L1"] + c["L0"]).sum(1)
        return pd.DataFrame(
            {
                "n_items": n,
                "n_labelled": lab,
                "judged_positive": c["N1"].sum(1),
                "human_positive": (c["H1"] + c["H0"]).sum(1),
                "n_missing": self.n_missing,
                **({"n_unpaired": self.unpaired} if self.item is not None else {}),
            },
            index=pd.Index(list(self.systems), name="system"),
        )
