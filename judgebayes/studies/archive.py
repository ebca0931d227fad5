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
from judgebayes.results import Fit, saved_interval
from judgebayes.studies.accuracy_fit import AccuracyFit
from judgebayes.studies.panel import PanelFit
from judgebayes.studies.ranking import RankingFit

__all__ = ["load_fit"]

_CLASSES = {c.__name__: c for c in (Fit, AccuracyFit, PanelFit, RankingFit)}
_DATA = {c.__name__: c for c in (PairwiseData,)}


def load_fit(path) -> Fit:
    """The fit saved at ``path`` (netCDF, or a ``.zarr`` directory), as the class it was.

    Everything a fit answers from its draws works as before (intervals of either kind,
    the family summaries, ``arviz`` on ``fit.idata``); ``info`` comes back as JSON (a
    ``SamplerConfig`` as a dict, arrays as lists); a point method's own interval is kept
    at :data:`~judgebayes.results.SAVED_ALPHAS` (another level is an
    :class:`~judgebayes.errors.InputError` that lists them); a Newton fit's mode and
    Hessian (``map_result``) are not kept.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"no saved fit at {str(path)!r}", field="path", value=str(path))
    # fit.save writes zarr stores unconsolidated (one file per group stays readable)
    kw = {"engine": "zarr", "consolidated": False} if path.suffix == ".zarr" else {}
    with xr.open_datatree(path, **kw) as t:
        t = t.load()
    raw = t.attrs.get("judgebayes_fit")
    if raw is None:
        raise InputError(
            f"{str(path)!r} holds a DataTree but no judgebayes fit (no judgebayes_fit "
            "attribute); read it with xarray.open_datatree",
            field="path",
            value=str(path),
        )
    own = json.loads(raw)
    cls = _CLASSES[own.pop("class")]
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
