"""A saved fit read back: :func:`load_fit` is the inverse of :meth:`Fit.save
<judgebayes.results.Fit.save>`.

The file is ArviZ's own format (a ``DataTree`` in netCDF or zarr), so ``arviz`` reads it
too; the root's ``judgebayes_fit`` attribute holds what makes it a fit again: the class,
the members (JSON), the convergence gate's numbers, and a point method's own interval at
the levels :data:`~judgebayes.results.SAVED_ALPHAS` (its closure does not save).
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np
import xarray as xr

from judgebayes.data.ranking import PairwiseData
from judgebayes.errors import InputError
from judgebayes.inference.nuts import Diagnostics
from judgebayes.results import FIT_CLASSES, Fit, saved_interval
from judgebayes.studies import STUDIES  # noqa: F401  (every family's fit class registered)

__all__ = ["load_fit"]

_DATA = {c.__name__: c for c in (PairwiseData,)}


def load_fit(path) -> Fit:
    """The fit saved at ``path`` (netCDF, or a ``.zarr`` directory), as the class it was.

    Everything a fit answers from its draws works as before (intervals of either kind,
    the family summaries, ``arviz`` on ``fit.tree``); ``info`` comes back as JSON (a
    ``SamplerConfig`` as a dict, arrays as lists); a point method's own interval is kept
    at :data:`~judgebayes.results.SAVED_ALPHAS` (another level is an
    :class:`~judgebayes.errors.InputError` that lists them); a Newton fit's mode and
    Hessian (``map_result``) are not kept.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"no saved fit at {str(path)!r}", field="path", value=str(path))
    # fit.save writes zarr stores (directories, unconsolidated: one file per group stays
    # readable) and netCDF files
    kw = {"engine": "zarr", "consolidated": False} if path.is_dir() else {}
    try:
        with xr.open_datatree(path, **kw) as t:
            t = t.load()
    except Exception as e:  # any reader's failure on a file that is no saved fit
        what = "directory (a zarr store?)" if path.is_dir() else "file (netCDF?)"
        reason = (str(e).splitlines() or [""])[0][:200]
        raise InputError(
            f"{str(path)!r} is not a readable saved fit: this {what} could not be read as "
            f"an ArviZ DataTree ({type(e).__name__}: {reason}); fit.save writes netCDF, or "
            "zarr for a path ending in .zarr",
            field="path",
            value=str(path),
        ) from None
    raw = t.attrs.get("judgebayes_fit")
    if raw is None:
        raise InputError(
            f"{str(path)!r} holds a DataTree but no judgebayes fit (no judgebayes_fit "
            "attribute); read it with xarray.open_datatree",
            field="path",
            value=str(path),
        )
    try:
        own = json.loads(raw)
        cls = FIT_CLASSES[own.pop("class")]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError(
            f"{str(path)!r}: its judgebayes_fit attribute is damaged (not the JSON a fit "
            "writes, or an unknown fit class)",
            field="path",
            value=str(path),
        ) from None
    kwargs = {}
    for f in fields(cls):
        if f.name not in own:
            continue
        v = own[f.name]
        if isinstance(v, dict) and "__dataset__" in v:
            v = _DATA[v["__dataset__"]].from_dataset(t[f"judgebayes_{f.name}"].to_dataset())
        elif f.name == "notes":
            v = tuple(v)
        elif f.name == "diagnostics" and v is not None:
            v = Diagnostics(**{k: tuple(x) if isinstance(x, list) else x for k, x in v.items()})
        elif f.name == "seconds" and v is None:
            v = float("nan")
        elif f.name == "instance" and v is not None:
            v = np.asarray(v, dtype=np.int64)
        kwargs[f.name] = v
    if "estimate_override" in own:
        kwargs["estimate_override"] = np.asarray(own["estimate_override"], float)
    if "interval" in t.children:
        kwargs["interval_fn"] = saved_interval(t["interval"].to_dataset())
    idata = t.copy()
    for group in ("interval", *(g for g in t.children if g.startswith("judgebayes_"))):
        if group in idata.children:
            del idata[group]
    del idata.attrs["judgebayes_fit"]
    method = kwargs.pop("method")
    return cls(method, idata, **kwargs)
