"""Panels from frames: one row per generator x validator cell, or one per output."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy import normalize_labels
from judgebayes.data.frames import as_pandas, distinct_roles, group_labels
from judgebayes.data.panel.arrays import panel_from_arrays
from judgebayes.errors import CountError, InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgebayes.data.panel.arrays import PanelData


def _require(df, cols, what):
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(
            f"{what} has no column {missing[0]!r} (columns: {list(df.columns)})",
            field=missing[0],
            value=None,
        )


def panel_from_frames(
    cells: pd.DataFrame,
    annotations: pd.DataFrame | None = None,
    *,
    annotations_disjoint: bool = False,
) -> PanelData:
    """Build a panel from the cell table and the annotation table (see module docstring).

    ``annotations_disjoint=True`` declares that the annotated outputs are not among the
    judged ones (the cells hold only unannotated outputs).  Otherwise an annotated
    generator should have confusion counts (tn, fp, fn, tp) in its cells: without them the
    Bayesian models refuse the panel (:attr:`PanelData.annotation_overlap`), because the
    same outputs would count twice.
    """
    cells = as_pandas(cells, "cells")
    annotations = as_pandas(annotations, "annotations", optional=True)
    _require(cells, ["generator", "validator", "n_judged", "n_valid"], "cells")
    if len(cells) == 0:  # found by tests/data/test_fuzz.py
        raise InputError("the cells frame has no rows", field="cells", value=0)
    c = cells.copy()
    for col in ("generator", "validator"):
        c[col] = group_labels(c[col], col, col)
    dup = c.duplicated(["generator", "validator"])
    if dup.any():
        r = c[dup].iloc[0]
        raise InputError(
            f"cells: duplicate cell ({r['generator']!r}, {r['validator']!r})",
            field="generator",
            value=r["generator"],
        )
    gens = tuple(dict.fromkeys(c["generator"]))
    vals = tuple(dict.fromkeys(c["validator"]))
    gi = c["generator"].map({g: i for i, g in enumerate(gens)}).to_numpy()
    vi = c["validator"].map({v: i for i, v in enumerate(vals)}).to_numpy()
    G, V = len(gens), len(vals)

    def grid(col, default=0.0):
        out = np.full((G, V), default, dtype=float)
        if col in c.columns:
            vals_ = pd.to_numeric(c[col], errors="coerce").to_numpy(float)
            bad = ~np.isfinite(vals_)
            if col in ("n_judged", "n_valid") and bad.any():
                raise CountError(
                    f"cells column {col!r}: missing or non-numeric value in row "
                    f"{int(np.flatnonzero(bad)[0])}",
                    field=col,
                    value=None,
                )
            out[gi, vi] = np.where(bad, 0.0, vals_)
        return out

    n_judged, n_valid = grid("n_judged"), grid("n_valid")
    conf = {k: grid(k) for k in ("tp", "fn", "tn", "fp")}
    self_judge = None
    if "self" in c.columns:
        self_judge = np.zeros((G, V), dtype=bool)
        self_judge[gi, vi] = c["self"].astype(bool).to_numpy()
    na = np.zeros(G)
    nh = np.zeros(G)
    if annotations is not None:
        _require(annotations, ["generator", "n_annotated", "n_valid_human"], "annotations")
        dup = annotations["generator"].astype(str).duplicated()
        if dup.any():  # the last row used to win silently
            g = str(annotations["generator"][dup].iloc[0])
            raise InputError(
                f"annotations: two rows for generator {g!r}; give one row per generator "
                "(sum the counts of several annotation rounds)",
                field="generator",
                value=g,
            )
        for _, r in annotations.iterrows():
            g = str(r["generator"])
            if g not in gens:
                raise InputError(
                    f"annotations: generator {g!r} is not in the cells table",
                    field="generator",
                    value=g,
                )
            na[gens.index(g)] = r["n_annotated"]
            nh[gens.index(g)] = r["n_valid_human"]
    data = panel_from_arrays(
        n_judged, n_valid, generators=gens, validators=vals, n_annotated=na, n_valid_human=nh,
        n_missing=grid("n_missing"), self_judge=self_judge, **conf,
    )  # fmt: skip
    return replace(data, annotations_disjoint=bool(annotations_disjoint))


def panel_from_items(
    items: pd.DataFrame,
    *,
    output: str = "output",
    generator: str = "generator",
    validator: str = "validator",
    verdict: str = "verdict",
    human: str | None = "human",
    positive: Any = None,
) -> PanelData:
    """Aggregate an item-level table (one row per output x validator) into a panel.

    A missing verdict counts in ``n_missing`` of its cell.  An output with a human label
    contributes to the generator's annotation counts once (not once per validator) and
    its verdicts to the cell's confusion counts.  Each (output, validator) pair may
    appear once.
    """
    items = as_pandas(items, "items")
    _require(items, [output, generator, validator, verdict], "items")
    distinct_roles(
        {"verdict": verdict, "human": human, "output": output, "generator": generator},
        {"validator": validator},
    )
    df = items[[output, generator, validator, verdict]].copy()
    df.columns = ["output", "generator", "validator", "verdict"]
    for col, name in zip(
        ("output", "generator", "validator"), (output, generator, validator), strict=True
    ):
        df[col] = group_labels(df[col], name, col)
    df["verdict"] = normalize_labels(items[verdict], column=verdict, positive=positive).values
    if human is not None and human in items.columns:
        df["human"] = normalize_labels(items[human], column=human, positive=positive).values
    else:
        df["human"] = np.nan
    dup = df.duplicated(["output", "validator"])
    if dup.any():
        r = df[dup].iloc[0]
        raise InputError(
            f"items: output {r['output']!r} judged twice by validator {r['validator']!r}",
            field=output,
            value=r["output"],
        )
    per_out = df.groupby("output")["generator"].nunique()
    if (per_out > 1).any():
        o = per_out[per_out > 1].index[0]
        raise InputError(
            f"items: output {o!r} belongs to several generators", field=output, value=o
        )
    hum = df.groupby("output")["human"].agg(
        lambda s: s.dropna().iloc[0] if s.notna().any() else np.nan
    )
    conflict = df.dropna(subset=["human"]).groupby("output")["human"].nunique() > 1
    if conflict.any():
        o = conflict[conflict].index[0]
        raise InputError(f"items: output {o!r} has conflicting human labels", field=human, value=o)
    df["human"] = df["output"].map(hum)
    gens = tuple(dict.fromkeys(df["generator"]))
    vals = tuple(dict.fromkeys(df["validator"]))
    G, V = len(gens), len(vals)
    gi = df["generator"].map({g: i for i, g in enumerate(gens)}).to_numpy()
    vi = df["validator"].map({v: i for i, v in enumerate(vals)}).to_numpy()
    y = df["verdict"].to_numpy(float)
    h = df["human"].to_numpy(float)
    ok = ~np.isnan(y)

    def count(mask):
        out = np.zeros((G, V))
        np.add.at(out, (gi[mask], vi[mask]), 1)
        return out

    n_judged = count(ok)
    n_valid = count(ok & (y == 1))
    n_missing = count(~ok)
    tp = count(ok & (h == 1) & (y == 1))
    fn = count(ok & (h == 1) & (y == 0))
    tn = count(ok & (h == 0) & (y == 0))
    fp = count(ok & (h == 0) & (y == 1))
    outs = df.drop_duplicates("output")
    og = outs["generator"].map({g: i for i, g in enumerate(gens)}).to_numpy()
    oh = outs["human"].to_numpy(float)
    na = np.bincount(og[~np.isnan(oh)], minlength=G)
    nh = np.bincount(og[oh == 1], minlength=G)
    return panel_from_arrays(
        n_judged, n_valid, generators=gens, validators=vals, n_annotated=na, n_valid_human=nh,
        tp=tp, fn=fn, tn=tn, fp=fp, n_missing=n_missing, items=df,
    )  # fmt: skip
