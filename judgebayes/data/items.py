r"""One frame, every item judged, a subset labelled by humans: the items design.

The set-up evaluation teams run: an LLM judge scores all :math:`N` outputs of one or
several systems, and humans label some of those same outputs.  A blank human label means
*unlabelled*, never *negative*.  Labelled items are part of the evaluated set (their
verdicts count in the judge's rate and their labels in the rate over the :math:`N`
items), so nothing is counted twice.

Sufficient statistics
---------------------
Per system :math:`s` and stratum :math:`t` (one stratum when none is given), with
:math:`v` the judge's verdict and :math:`h` the human label:

* ``N1, N0``: items judged positive / negative (labelled ones included);
* ``L1, L0``: labelled items judged positive / negative;
* ``H1, H0``: of those, the human-positive ones.

Under any labelling design whose selection probability depends only on what is observed
for every item (the verdict, the stratum), these counts carry everything the likelihood
has to say (:mod:`judgebayes.models.accuracy`, items model).  ``cluster`` and ``weights``
keep the item-level arrays, which the cluster-robust and the unequal-probability
estimators need.

Rows whose verdict is missing are not evaluated items: they are counted per system in
``n_missing`` (and reported by every fit), never silently dropped.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy import normalize_labels
from judgebayes.data.frames import (
    as_pandas,
    column_names,
    column_values,
    distinct_roles,
    group_labels,
    not_scalar,
    numeric_column,
    require_column,
    time_periods,
)
from judgebayes.errors import InputError

__all__ = ["ItemData", "items_from_frame"]


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


def _binary(series, column: str, positive: Any) -> np.ndarray:
    """0/1/NaN labels, normalised once per distinct value (fast on millions of rows).

    ``series``: a Series or a column's array (:func:`~judgebayes.data.frames.column_values`).
    """
    dtype = series.dtype
    if positive is None and (
        pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)
    ):
        if isinstance(dtype, np.dtype):  # numpy dtypes: NaN is the missing value
            x = np.asarray(series).astype(float, copy=False)
        else:  # nullable (Int64, boolean): pd.NA to NaN
            x = series.to_numpy(dtype=float, na_value=np.nan)
        bad = ~np.isnan(x) & (x != 0) & (x != 1)
        if bad.any():
            first = x[bad][0]
            raise InputError(
                f"column {column!r}: label {first:g} is not 0 or 1 "
                f"({int(bad.sum())} row(s)); give positive= to name the positive value",
                field=column,
                value=float(first),
            )
        return x
    try:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    except TypeError:  # unhashable cells: lists, arrays
        raise not_scalar(pd.Series(series), column) from None
    if len(uniques) == 0:  # every value missing (found by tests/data/test_fuzz.py)
        return np.full(len(series), np.nan)
    values = normalize_labels(list(uniques), column=column, positive=positive).values
    return np.where(codes < 0, np.nan, values[np.maximum(codes, 0)])


def _codes(df, col: str | None, role: str) -> tuple[np.ndarray, tuple[str, ...]]:
    if col is None:
        return np.zeros(len(df), np.int64), ("all",)
    codes, uniques = pd.factorize(group_labels(df[col], col, role), sort=False)
    return codes.astype(np.int64), tuple(map(str, uniques))


def _covariate(df, col, keep: np.ndarray, taken) -> np.ndarray:
    """One numeric covariate column: finite on every row with a verdict (no silent drops)."""
    require_column(df, col, "a covariates column", "covariates")
    if col in set(taken):
        raise InputError(
            f"column {col!r} already has a role in this frame; a covariate is a column of its own",
            field="covariates",
            value=col,
        )
    x = numeric_column(df[col], col)  # a value that is not a number is named there
    bad = keep & ~np.isfinite(x)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"column {col!r} (a covariate): every item with a verdict needs a finite number; "
            f"row {i} has {df[col].iloc[i]!r} ({int(bad.sum())} such row(s))",
            field=col,
            value=df[col].iloc[i],
        )
    return x


#: covariate terms ``covariates={"column": term}`` takes
TERMS = ("linear", "spline")
#: quantiles of the kept values at which a spline term's knots sit (Harrell's choice
#: for four knots)
SPLINE_KNOTS = (0.05, 0.35, 0.65, 0.95)


def spline_basis(x: np.ndarray, knots) -> np.ndarray:
    r"""Restricted (natural) cubic spline basis: ``x`` and :math:`K - 2` cubic terms,
    linear beyond the outer knots :math:`t_1 < \dots < t_K`:

    .. math::
        s_j(x) = \frac{(x - t_j)_+^3 - (x - t_{K-1})_+^3\frac{t_K - t_j}{t_K - t_{K-1}}
        + (x - t_K)_+^3\frac{t_{K-1} - t_j}{t_K - t_{K-1}}}{(t_K - t_1)^2}.

    Returns shape (N, K - 1).
    """
    t = np.asarray(knots, float)
    k = t.size

    def cube(u):
        return np.maximum(u, 0.0) ** 3

    cols = [x]
    for j in range(k - 2):
        s = (
            cube(x - t[j])
            - cube(x - t[k - 2]) * (t[k - 1] - t[j]) / (t[k - 1] - t[k - 2])
            + cube(x - t[k - 1]) * (t[k - 2] - t[j]) / (t[k - 1] - t[k - 2])
        )
        cols.append(s / (t[k - 1] - t[0]) ** 2)
    return np.column_stack(cols)


def _covariate_terms(covariates) -> dict[str, str]:
    """``covariates=`` as {column: term}: a name or list (linear terms) or a dict."""
    if isinstance(covariates, dict):
        terms = dict(covariates)
    else:
        terms = dict.fromkeys(column_names(covariates, "covariates"), "linear")
    if not terms:
        raise InputError(
            f"covariates must name one column or several distinct ones; got {covariates!r}",
            field="covariates",
            value=covariates,
        )
    for col, term in terms.items():
        if term not in TERMS:
            raise InputError(
                f"covariate {col!r}: a term is one of {TERMS}; got {term!r}",
                field="covariates",
                value=term,
            )
    return terms


def _multiplicity(series, column: str) -> np.ndarray:
    """Non-negative integer multiplicities of the ``count`` column."""
    x = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
    bad = ~(np.isfinite(x) & (x >= 0) & (x == np.round(x)))
    if pd.api.types.is_bool_dtype(series.dtype) or bad.any():
        i = int(np.flatnonzero(bad)[0]) if bad.any() else 0
        raise InputError(
            f"column {column!r} (the count column): counts must be whole numbers >= 0; "
            f"row {i} has {series.iloc[i]!r}",
            field=column,
            value=series.iloc[i],
        )
    return x.astype(np.int64)


#: quantile bins of a numeric ``labelled_by`` column
LABELLED_BY_BINS = 5


def _design_values(series, col: str) -> np.ndarray:
    """A design column's values: numbers (times as seconds) as float, others as strings."""
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        t = pd.to_datetime(series)
        return np.where(t.isna(), np.nan, t.astype("int64") / 1e9)
    if pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_numeric_dtype(series.dtype):
        return series.to_numpy(dtype=float, na_value=np.nan)
    text = series.astype("string")
    return np.where(text.isna(), None, text.to_numpy(dtype=object))


def _strata_cols(labelled_by) -> tuple[str, ...]:
    cols = list(labelled_by) if isinstance(labelled_by, dict) else labelled_by
    return column_names(cols, "labelled_by")


def _strata_by(items, stratum: str | None, labelled_by, keep: np.ndarray) -> pd.Series:
    """Strata crossed with quantile bins of each ``labelled_by`` column."""
    bins = labelled_by if isinstance(labelled_by, dict) else {}
    label = (
        pd.Series("", index=items.index)
        if stratum is None
        else group_labels(items[stratum], stratum, "stratum")
    )
    for col in _strata_cols(labelled_by):
        require_column(items, col, "a labelled_by column", "labelled_by")
        x = _design_values(items[col], col)
        if x.dtype == object:
            part = pd.Series(x, index=items.index).fillna("missing").astype(str)
        else:
            k = int(bins.get(col, LABELLED_BY_BINS))
            q = np.full(len(items), k)  # bin k: "missing"
            ok = keep & np.isfinite(x)
            q[ok] = pd.qcut(x[ok], k, labels=False, duplicates="drop")
            names = np.array([f"{col} {b + 1}/{k}" for b in range(k)] + [f"{col} missing"])
            part = pd.Series(names[q], index=items.index)
        label = part if (label == "").all() else label + " | " + part
    return label


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
        (:func:`~judgebayes.models.accuracy.items_covariate_model`).  Every kept row needs
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
    judges = list(column_names(judge, "judge"))
    for j in judges:
        require_column(items, j, "a judge column", "judge")
    humans = list(column_names(human, "human"))
    for col in humans:
        require_column(items, col, "a human-label column", "human")
    if truth not in ("latent", "majority"):
        raise InputError(
            f"truth must be 'latent' or 'majority'; got {truth!r}", field="truth", value=truth
        )
    roles = {
        "count": count,
        "judge": judges[0],
        "human": humans[0],
        "system": system,
        "stratum": stratum,
        "cluster": cluster,
        "weights": weights,
        "item": item,
    }
    for role, col in roles.items():
        if col is not None:
            require_column(items, col, f"the {role} column", role)
    others = {k: c for k, c in roles.items() if k not in ("judge", "human")}
    distinct_roles({"judge": judges, "human": humans}, {**others, "time": time})
    if len(judges) == 1:
        v = _binary(column_values(items, judges[0]), judges[0], positive)
        vmat = v[:, None]
    else:
        vmat = np.column_stack([_binary(items[j], j, positive) for j in judges])
        v = vmat.sum(1)  # NaN where any judge is missing
    rmat, tied = None, None
    if len(humans) == 1:
        h = _binary(column_values(items, humans[0]), humans[0], positive)
    else:
        rmat = np.column_stack([_binary(items[c], c, positive) for c in humans])
        rated = (~np.isnan(rmat)).sum(1)
        share = np.nansum(rmat, axis=1) / np.maximum(rated, 1)
        h = np.where(
            rated == 0, np.nan, np.where(share > 0.5, 1.0, np.where(share < 0.5, 0.0, np.nan))
        )
        tied = (rated > 0) & (share == 0.5)
    sys_codes, systems = _codes(items, system, "system")
    keep = ~np.isnan(v)
    mult = None if count is None else _multiplicity(items[count], count)
    n_missing = np.bincount(
        sys_codes[~keep], weights=None if mult is None else mult[~keep], minlength=len(systems)
    ).astype(np.int64)
    periods = time_periods(items, time, freq)
    if periods is not None:
        if stratum is not None or labelled_by is not None:
            given = "stratum" if stratum is not None else "labelled_by"
            raise InputError(
                f"time= and {given}= together: with time= the periods are the strata (labels "
                "drawn at random within each period); give one of them",
                field=given,
                value=stratum if stratum is not None else labelled_by,
            )
        str_codes, strata = periods[0], tuple(periods[1])
    elif labelled_by is None:
        str_codes, strata = _codes(items, stratum, "stratum")
    else:
        by = _strata_by(items, stratum, labelled_by, keep)
        str_codes, strata = _codes(items.assign(_labelled_by=by), "_labelled_by", "stratum")
    by_names = () if labelled_by is None else tuple(dict.fromkeys(_strata_cols(labelled_by)))
    design = {}
    if design_columns is not None:
        for col in column_names(design_columns, "design_columns"):
            require_column(items, col, "a design_columns column", "design_columns")
            if col not in by_names:
                design[col] = _design_values(items[col], col)
    if order is True:
        pos = None if count is not None else np.arange(len(items), dtype=float)
    elif order is False or order is None:
        pos = None
    else:
        if not isinstance(order, str) or order not in items.columns:
            raise InputError(
                f"order must be True, False or a column of the items frame; got {order!r}",
                field="order",
                value=order,
            )
        pos = _design_values(items[order], order)
        if pos.dtype == object:
            raise InputError(
                f"column {order!r} (the order column) must hold numbers or times",
                field="order",
                value=order,
            )
    cl = None
    if cluster is not None:
        cl, _ = _codes(items, cluster, "cluster")
    it = None
    if item is not None:
        if count is not None:
            raise InputError(
                "item= pairs single rows across systems; a reduced frame (count=) has no "
                "rows per item: give one of them",
                field="item",
                value=item,
            )
        it, _ = _codes(items, item, "item")
        dup = pd.DataFrame({"i": it, "s": sys_codes}).duplicated().to_numpy()
        if dup.any():
            r = int(np.flatnonzero(dup)[0])
            raise InputError(
                f"column {item!r}: item {items[item].iloc[r]!r} appears twice for system "
                f"{systems[sys_codes[r]]!r} ({int(dup.sum())} repeated (item, system) "
                "row(s)); a paired comparison takes one row per item and system",
                field=item,
                value=items[item].iloc[r],
            )
    cov, cov_names = None, ()
    if covariates is not None:
        taken = {*roles.values(), *judges}
        cols, names = [], []
        for c, term in _covariate_terms(covariates).items():
            x = _covariate(items, c, keep, taken)
            if term == "linear":
                cols.append(x[:, None])
                names.append(c)
                continue
            knots = np.quantile(x[keep], SPLINE_KNOTS)
            if np.any(np.diff(knots) <= 0):
                raise InputError(
                    f"covariate {c!r}: a spline term needs distinct knots at its "
                    f"{SPLINE_KNOTS} quantiles; they are {knots.tolist()} (too few distinct "
                    "values: give it as a linear term)",
                    field="covariates",
                    value=c,
                )
            cols.append(spline_basis(np.where(keep, x, knots[0]), knots))
            names += [c, *(f"{c} (spline {j})" for j in range(1, len(knots) - 1))]
        cov, cov_names = np.column_stack(cols), tuple(names)
    w = None
    if weights is not None:
        w = pd.to_numeric(items[weights], errors="coerce").to_numpy(dtype=float)
        lab = ~np.isnan(h)
        bad = lab & ~(np.isfinite(w) & (w >= 1))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"column {weights!r}: a labelled item's design weight (1 / its probability "
                f"of being labelled) must be a number >= 1; row {i} has "
                f"{items[weights].iloc[i]!r} ({int(bad.sum())} such row(s))",
                field=weights,
                value=items[weights].iloc[i],
            )
        w = np.where(lab, w, np.nan)
    if mult is None and keep.all():

        def rows(a):
            return a
    elif mult is None:

        def rows(a):
            return a[keep]
    else:  # each row stands for mult identical items

        def rows(a):
            return np.repeat(a[keep], mult[keep], axis=0)

    data = ItemData(
        judge=rows(v),
        human=rows(h),
        system=rows(sys_codes),
        stratum=rows(str_codes),
        cluster=None if cl is None else rows(cl),
        weights=None if w is None else rows(w),
        systems=systems,
        strata=strata,
        n_missing=n_missing,
        columns={k: c for k, c in roles.items() if k != "count"}
        | {"time": time}
        | ({"order": order} if isinstance(order, str) else {}),
        rows=rows(items.index.to_numpy()),
        votes=None if len(judges) == 1 else rows(vmat),
        judges=tuple(judges) if len(judges) > 1 else (),
        item=None if it is None else rows(it),
        covariates=None if cov is None else rows(cov),
        covariate_names=cov_names,
        order=None if pos is None else rows(pos),
        design={c: rows(x) for c, x in design.items()},
        labelled_by=by_names,
        raters=None if rmat is None else rows(rmat),
        rater_names=tuple(humans) if rmat is not None else (),
        truth="human" if rmat is None else truth,
        n_ties=0 if tied is None else int(rows(tied).sum()),
    )
    if len(systems) == 1:  # a bincount of 50,000 zeros takes 0.1 ms
        n, lab = [data.system.size], [np.count_nonzero(data.labelled)]
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
        if lab[i] == 0 and not (rmat is not None and truth == "latent"):
            raise InputError(
                f"system {s!r} has no human-labelled item (column {human!r} is blank on all "
                f"{int(n[i])} of its rows): its rate cannot be corrected",
                field=human,
                value=s,
            )
    return data
