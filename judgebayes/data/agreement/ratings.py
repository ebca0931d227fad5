"""Ratings of items by several raters (humans or judges), as an item x rater array of
category codes, from a long frame (one row per rating) or a wide one (one column per rater).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgebayes.data.frames import (
    as_pandas,
    column_names,
    distinct_roles,
    finite_values,
    group_labels,
    numeric_column,
    require_column,
)
from judgebayes.errors import InputError

__all__ = [
    "LEVELS",
    "Ratings",
    "cluster_codes",
    "judge_ratings",
    "judge_values",
    "rating_counts",
    "ratings_from_frame",
]

#: levels of measurement, from unordered categories to numbers with a true zero
LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class Ratings:
    """Who rated what.

    Attributes
    ----------
    codes : ndarray of int, shape (items, raters)
        Category index of each rating, -1 where the rater did not rate the item.
    values : ndarray
        The categories in order (numbers sorted; labels in the order of ``categories=``).
    raters : tuple of str
    items : ndarray of str
    clusters : ndarray of int or None
        Cluster code of each item (several responses to one prompt).
    level : str
    numeric : bool
        Whether ``values`` are numbers (interval and ratio levels need them).
    notes : list of str
        Items without any rating (dropped) and items with a single rating, counted.
    """

    codes: np.ndarray
    values: np.ndarray
    raters: tuple[str, ...]
    items: np.ndarray
    clusters: np.ndarray | None
    level: str
    numeric: bool
    notes: list[str] = field(default_factory=list)

    @property
    def counts(self) -> np.ndarray:
        """Item x category counts (:func:`rating_counts`)."""
        return rating_counts(self.codes, len(self.values))

    def subset(self, raters) -> Ratings:
        """The same items, only the named raters' columns (items left without a rating stay)."""
        idx = [self.raters.index(r) for r in raters]
        return Ratings(
            self.codes[:, idx],
            self.values,
            tuple(raters),
            self.items,
            self.clusters,
            self.level,
            self.numeric,
            list(self.notes),
        )


def rating_counts(codes: np.ndarray, q: int) -> np.ndarray:
    """Item x category counts from an item x rater array of category codes (-1 = no rating)."""
    counts = np.zeros((codes.shape[0], q))
    rows, cols = np.nonzero(codes >= 0)
    np.add.at(counts, (rows, codes[rows, cols]), 1.0)
    return counts


def ratings_from_frame(
    frame,
    item: str | None = None,
    rater: str | None = None,
    value: str | None = None,
    *,
    raters=None,
    cluster: str | None = None,
    categories=None,
    level: str = "nominal",
) -> Ratings:
    """Read ratings from a long frame (``item``, ``rater``, ``value`` columns: one row per
    rating) or a wide one (``raters=`` columns: one row per item, blank = not rated).

    Parameters
    ----------
    frame : DataFrame
        The ratings.
    item, rater, value : str, optional
        The long form's columns; ``item`` is optional in the wide form (row ids otherwise).
    raters : str or list of str, optional
        The wide form's rater columns.
    cluster : str, optional
        A column grouping items that are not independent (responses to one prompt); the
        standard errors and the bootstrap resample clusters.
    categories : list, optional
        Every category a rating may take, in order (needed for ordered text labels; a rating
        outside it is an error).  Default: the values seen.
    level : {"nominal", "ordinal", "interval", "ratio"}
        What the ratings measure: unordered categories, ordered ones, numbers whose
        differences mean something, numbers with a true zero.

    Raises
    ------
    InputError
        Naming the field and the value: a missing column, both or neither form, a rater who
        rated one item twice, a cluster that changes within an item, a value outside
        ``categories``, text ratings at the interval or ratio level, negative ratios, fewer
        than two raters.
    """
    df = as_pandas(frame, "frame")
    if level not in LEVELS:
        raise InputError(
            f"level must be one of {list(LEVELS)}; got {level!r}", field="level", value=level
        )
    wide, names, long_form = _wide(df, raters, rater, value, item, cluster)
    cells = wide[list(names)]
    values, codes, numeric = _codes(cells, names, categories, level)
    items = (
        group_labels(wide[item], item, "item").to_numpy()
        if item is not None and item in wide.columns
        else _row_labels(wide.index)
    )
    if not long_form and item is not None and pd.Series(items).duplicated().any():
        dup = pd.Series(items)[pd.Series(items).duplicated()].iloc[0]
        raise InputError(
            f"item {dup!r} has two rows; the wide form has one row per item (use rater= "
            "and value= for one row per rating)",
            field="item",
            value=dup,
        )
    clusters = cluster_codes(wide, cluster)
    rated = (codes >= 0).sum(axis=1)
    if not (rated >= 2).any():
        raise InputError(
            "no item has ratings from two raters: agreement is read off items rated at least twice",
            field="raters" if raters is not None else "rater",
            value=list(names),
        )
    if clusters is not None and np.unique(clusters[rated > 0]).size < 2:
        raise InputError(
            f"column {cluster!r}: the rated items lie in one cluster; cluster-robust errors "
            "need two or more (drop cluster= to treat the items as independent)",
            field="cluster",
            value=cluster,
        )
    notes = _rated_notes(rated)
    keep = rated > 0
    if keep.sum() < 2:
        raise InputError(
            f"agreement needs two or more rated items; got {int(keep.sum())}",
            field="frame",
            value=int(keep.sum()),
        )
    return Ratings(
        codes[keep],
        values,
        tuple(names),
        items[keep],
        None if clusters is None else clusters[keep],
        level,
        numeric,
        notes,
    )


def judge_ratings(frame, judges, humans, *, item, cluster, categories, level) -> Ratings:
    """The wide frame's ratings by the humans then the judges, each column in one role."""
    distinct_roles({"judges": judges, "humans": humans}, {"item": item, "cluster": cluster})
    return ratings_from_frame(
        frame, item, raters=[*humans, *judges], cluster=cluster, categories=categories, level=level
    )


def judge_values(frame, judges: tuple[str, ...], humans, cluster: str | None):
    """The frame (pandas), the judges' values (items x judges) and the humans' ratings
    (items x humans; None without ``humans``) as floats, each column in one role.
    """
    df = as_pandas(frame, "frame")
    for c in judges:
        require_column(df, c, "a judge's values", "judges", frame="ratings")
    distinct_roles(
        {"judges": judges, "humans": () if humans is None else column_names(humans, "humans")},
        {"cluster": cluster},
    )
    X = np.column_stack([numeric_column(df[c], c) for c in judges])
    if humans is None:
        return df, X, None
    hs = column_names(humans, "humans")
    for c in hs:
        require_column(df, c, "a human's ratings", "humans", frame="ratings")
    return df, X, np.column_stack([numeric_column(df[c], c) for c in hs])


def _wide(df, raters, rater, value, item, cluster):
    """The ratings one column per rater (a long frame pivoted), the raters' names, and
    whether the frame was long.
    """
    long_form = rater is not None or value is not None
    if long_form == (raters is not None):
        raise InputError(
            "give either rater= and value= (a long frame, one row per rating) or raters= "
            "(a wide frame, one column per rater)",
            field="raters" if raters is not None else "rater",
            value=raters if raters is not None else rater,
        )
    if long_form:
        distinct_roles({"value": value, "item": item, "rater": rater}, {"cluster": cluster})
        wide, names = _pivot(df, item, rater, value, cluster)
    else:
        names = column_names(raters, "raters")
        for col in names:
            require_column(df, col, "a rater's ratings", "raters", frame="ratings")
        distinct_roles({"raters": names}, {"item": item, "cluster": cluster})
        wide = df
    if len(names) < 2:
        raise InputError(
            f"agreement needs at least two raters; got {list(names)}",
            field="raters",
            value=list(names),
        )
    if item is not None and not long_form:
        require_column(df, item, "the item id", "item", frame="ratings")
    return wide, names, long_form


def cluster_codes(wide, cluster: str | None) -> np.ndarray | None:
    """Each row's cluster code (None without ``cluster=``)."""
    if cluster is None:
        return None
    require_column(wide, cluster, "the cluster id", "cluster", frame="ratings")
    return pd.factorize(group_labels(wide[cluster], cluster, "cluster"))[0]


def _rated_notes(rated: np.ndarray) -> list[str]:
    """What the items rated by no one, or by one rater, contribute (said, not hidden)."""
    notes = []
    if (rated == 0).any():
        notes.append(f"{int((rated == 0).sum())} item(s) without any rating were left out")
    if (rated == 1).any():
        notes.append(
            f"{int((rated == 1).sum())} item(s) with a single rating count in the category "
            "shares, not in the observed agreement (Krippendorff's alpha leaves them out)"
        )
    return notes


def _pivot(df, item, rater, value, cluster):
    for col, what, name in (
        (item, "the item id", "item"),
        (rater, "the rater id", "rater"),
        (value, "the rating", "value"),
    ):
        if col is None:
            raise InputError(f"the long form needs {name}= ({what})", field=name, value=None)
        require_column(df, col, what, name, frame="ratings")
    it = group_labels(df[item], item, "item")
    who = group_labels(df[rater], rater, "rater")
    dup = pd.DataFrame({"i": it, "r": who}).duplicated()
    if dup.any():
        j = int(np.flatnonzero(dup.to_numpy())[0])
        raise InputError(
            f"rater {who.iloc[j]!r} rated item {it.iloc[j]!r} twice ({int(dup.sum())} such "
            "row(s)); keep one rating per rater and item",
            field=rater,
            value=who.iloc[j],
        )
    long = pd.DataFrame(
        {"item": it.to_numpy(), "rater": who.to_numpy(), "value": df[value].to_numpy()}
    )
    wide = long.pivot(index="item", columns="rater", values="value")
    names = tuple(str(c) for c in wide.columns)
    wide.columns = list(names)
    wide = wide.reset_index().rename(columns={"item": item})
    if cluster is not None:
        require_column(df, cluster, "the cluster id", "cluster", frame="ratings")
        cl = pd.DataFrame(
            {
                "item": it.to_numpy(),
                "cluster": group_labels(df[cluster], cluster, "cluster").to_numpy(),
            }
        ).drop_duplicates()
        if cl["item"].duplicated().any():
            bad = cl.loc[cl["item"].duplicated(), "item"].iloc[0]
            raise InputError(
                f"item {bad!r} is in two clusters of column {cluster!r}; an item belongs "
                "to one cluster",
                field=cluster,
                value=bad,
            )
        wide[cluster] = wide[item].map(dict(zip(cl["item"], cl["cluster"], strict=True)))
    if item in names or (cluster is not None and cluster in names):
        raise InputError(f"a rater is named like a column ({item!r})", field=rater, value=item)
    return wide, names


def _row_labels(index: pd.Index) -> np.ndarray:
    """The rows' labels as text (a default range index without pandas' string arrays)."""
    if isinstance(index, pd.RangeIndex):
        return np.arange(index.start, index.stop, index.step).astype(str).astype(object)
    return np.asarray(index.astype(str))


def _some_rating(blank: pd.DataFrame, names) -> None:
    """At least one cell of the rating columns is rated."""
    if blank[list(names)].to_numpy(bool).all():
        raise InputError(
            f"columns {list(names)}: no rating at all (every cell is blank)",
            field=str(names[0]),
            value=None,
        )


def _finite_ratings(nums: np.ndarray, names) -> None:
    """A rating of infinity is named, not averaged into every coefficient."""
    for j, name in enumerate(names):
        finite_values(nums[:, j], name)


def _numeric_codes(nums: np.ndarray, names, categories, level):
    """:func:`_codes` of all-numeric rating columns, in whole-array operations."""
    if np.isnan(nums).all():
        raise InputError(
            f"columns {list(names)}: no rating at all (every cell is blank)",
            field=str(names[0]),
            value=None,
        )
    _finite_ratings(nums, names)
    seen = np.unique(nums[~np.isnan(nums)])
    values = seen if categories is None else np.unique(np.asarray(categories, float))
    given = ~np.isnan(nums)
    k = np.minimum(np.searchsorted(values, np.nan_to_num(nums)), len(values) - 1)
    bad = given & (values[k] != nums)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise InputError(
            f"column {names[j]!r}: rating {nums[i, j]!r} in row {i} is not one of categories "
            f"{values.tolist()}",
            field=names[j],
            value=nums[i, j],
        )
    if level == "ratio" and (values < 0).any():
        raise InputError(
            f"level='ratio' needs ratings >= 0; got {float(values.min())}",
            field="level",
            value=float(values.min()),
        )
    return values, np.where(given, k, -1).astype(np.int64), True


def _codes(cells: pd.DataFrame, names, categories, level):
    if all(pd.api.types.is_numeric_dtype(t) for t in cells.dtypes) and _numbers(categories):
        return _numeric_codes(cells.to_numpy(float), names, categories, level)
    blank = cells.isna()
    for c in names:  # text columns: an empty or all-space cell is a blank too
        if not pd.api.types.is_numeric_dtype(cells[c].dtype):
            blank[c] = blank[c] | cells[c].astype("string").str.strip().eq("").fillna(False)
    _some_rating(blank, names)
    try:
        nums = np.column_stack(
            [
                cells[c].to_numpy(float)
                if pd.api.types.is_numeric_dtype(cells[c].dtype)
                else numeric_column(cells[c], c)
                for c in names
            ]
        )
        numeric = True
    except InputError:
        numeric = False
    if numeric:
        _finite_ratings(nums, names)
    if numeric and categories is not None:
        try:
            np.asarray(categories, float)
        except (TypeError, ValueError):
            numeric = False
    if numeric:
        seen = np.unique(nums[~np.isnan(nums)])
        values = seen if categories is None else np.unique(np.asarray(categories, float))
        flat = nums
    else:
        if level in ("interval", "ratio"):
            c = next((c for c in names if not _numeric_ok(cells[c])), None)
            if c is None:  # numeric ratings, text categories
                raise InputError(
                    f"level={level!r} needs numeric categories; got {list(categories)}",
                    field="categories",
                    value=list(categories),
                )
            raise InputError(
                f"level={level!r} needs numeric ratings; column {c!r} holds text "
                f"({cells[c].dropna().astype(str).iloc[0]!r})",
                field=c,
                value=str(cells[c].dropna().iloc[0]),
            )
        values, flat = _text_categories(cells, categories, level)
    codes = np.full(cells.shape, -1, dtype=np.int64)
    for j, c in enumerate(names):
        given = ~blank[c].to_numpy(bool)
        if numeric:
            x = flat[:, j]
            k = np.minimum(np.searchsorted(values, np.nan_to_num(x)), len(values) - 1)
            found = values[k] == x
        else:
            k = pd.Categorical(flat[:, j], categories=values).codes.astype(np.int64)
            found = k >= 0
        bad = given & ~found
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"column {c!r}: rating {flat[i, j]!r} in row {i} is not one of categories "
                f"{values.tolist()}",
                field=c,
                value=flat[i, j],
            )
        codes[given, j] = k[given]
    if numeric and level == "ratio" and (values < 0).any():
        raise InputError(
            f"level='ratio' needs ratings >= 0; got {float(values.min())}",
            field="level",
            value=float(values.min()),
        )
    return values, codes, numeric


def _numbers(categories) -> bool:
    """No categories given, or numeric ones."""
    if categories is None:
        return True
    try:
        np.asarray(categories, float)
    except (TypeError, ValueError):
        return False
    return True


def _text_categories(cells: pd.DataFrame, categories, level) -> tuple[np.ndarray, np.ndarray]:
    """Text ratings: the categories (given, or those seen) and the stripped ratings."""
    text = cells.astype("string").apply(lambda s: s.str.strip())
    seen = sorted(set(text.stack().dropna().tolist()) - {""})
    if categories is None:
        if level == "ordinal":
            raise InputError(
                "level='ordinal' with text ratings needs categories= in their order "
                f"(seen: {seen[:6]})",
                field="categories",
                value=None,
            )
        values = np.asarray(seen, dtype=object)
    else:
        values = np.asarray([str(v).strip() for v in categories], dtype=object)
        if len(set(values)) != len(values):
            raise InputError(
                "categories has a value twice", field="categories", value=list(categories)
            )
    return values, text.to_numpy(dtype=object)


def _numeric_ok(col) -> bool:
    try:
        numeric_column(col, "x")
    except InputError:
        return False
    return True
