"""Several ranking fits side by side: PSIS-LOO between them, and their posteriors."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.studies.ranking.fit import RankingFit

__all__ = ["compare_loo", "compare_posteriors"]


def compare_loo(
    fits: dict[str, RankingFit] | Sequence[RankingFit],
    *,
    approximate: bool = False,
    var_name: str | None = None,
) -> pd.DataFrame:
    """``az.compare`` (PSIS-LOO) of fits that stored log-likelihoods.

    PSIS-LOO reweights posterior draws; Laplace draws are a Gaussian approximation to
    the posterior, so their LOO is refused unless ``approximate=True``, and is then
    marked in the ``approximate`` column.  A model with several observed variables (the
    accuracy model's test and calibration counts) is compared on all its observations
    at once, or on the one named by ``var_name``.
    """
    import arviz as az

    if not isinstance(fits, dict):
        fits = _named(list(fits))
    approx = [k for k, f in fits.items() if f.method != "nuts"]
    if approx and not approximate:
        raise InputError(
            f"fits {approx} have Laplace draws, not posterior draws; PSIS-LOO on them is "
            "an approximation of an approximation. Refit with method='nuts', or pass "
            "approximate=True to get it marked as approximate",
            field="fits",
            value=approx,
        )
    missing = [k for k, f in fits.items() if "log_likelihood" not in f.tree.children]
    if missing:
        raise InputError(
            f"fits {missing} have no log-likelihood; refit with log_likelihood=True",
            field="log_likelihood",
            value=missing,
        )
    with warnings.catch_warnings():
        # Pareto k warnings: the table's diag_elpd column carries them
        warnings.simplefilter("ignore", UserWarning)
        trees = {k: _one_log_likelihood(f.tree, var_name) for k, f in fits.items()}
        table = az.compare(trees)
    table["approximate"] = [k in approx for k in table.index]
    return table


def compare_posteriors(
    fits: dict[str, RankingFit] | Sequence[RankingFit], *, alpha: float = 0.05, plot: bool = False
):
    """Posterior mean, sd and interval of theta and the bias coefficients, per fit.

    Returns a tidy DataFrame (parameter, fit, mean, sd, lower, upper); with
    ``plot=True`` also an ``arviz.plot_forest`` of the fits side by side (a
    ``PlotCollection``).
    """
    if not isinstance(fits, dict):
        fits = {f.label: f for f in fits}
    rows = []
    for name, f in fits.items():
        th = f.theta_draws()
        pars = [(f"theta[{it}]", th[:, i]) for i, it in enumerate(f.data.items)]
        b = f.bias_draws()
        pars += [(f"b[{nm}]", b[:, m]) for m, nm in enumerate(f.bias_names)]
        for p, dr in pars:
            lo, hi = np.quantile(dr, [alpha / 2, 1 - alpha / 2])
            rows.append(
                {
                    "parameter": p,
                    "fit": name,
                    "mean": dr.mean(),
                    "sd": dr.std(),
                    "lower": lo,
                    "upper": hi,
                }
            )
    df = pd.DataFrame(rows)
    if not plot:
        return df
    import arviz as az

    names = list(fits)
    var_names = [v for v in ("b", "theta") if all(v in fits[n].tree.posterior for n in names)]
    pc = az.plot_forest(
        {n: fits[n].tree for n in names},
        var_names=var_names,
        combined=True,
        ci_kind="eti",
        ci_probs=(0.5, 1 - alpha),
        backend="matplotlib",
    )
    pc.add_legend("model")
    return df, pc


def _one_log_likelihood(idata, var_name: str | None):
    """``idata`` with one pointwise log-likelihood array: ``var_name``'s, or every observed
    variable's observations side by side along one ``observation`` dim.
    """
    import xarray as xr

    ll = idata["log_likelihood"].to_dataset()
    names = list(ll.data_vars)
    if var_name is not None:
        if var_name not in names:
            raise InputError(
                f"var_name {var_name!r} is not a log-likelihood of the fits (they have {names})",
                field="var_name",
                value=var_name,
            )
        names = [var_name]
    elif len(names) == 1:
        return idata
    parts = []
    for name in names:
        v = ll[name]
        own = [d for d in v.dims if d not in ("chain", "draw")]
        v = v.stack(observation=own) if own else v.expand_dims("observation")
        parts.append(v.drop_vars([c for c in v.coords if c not in ("chain", "draw")]))
    pooled = xr.concat(parts, dim="observation")
    out = idata.copy()
    out["log_likelihood"] = xr.Dataset({"observed": pooled.transpose("chain", "draw", ...)})
    return out


def _named(fits: list) -> dict:
    """Fits by label; fits of one method on several models by label and study class
    (``nuts (TwoPLBoard)``); two fits that still share a name are refused, not dropped.
    """
    labels = [f.label for f in fits]
    if len(set(labels)) < len(labels):
        labels = [f"{f.label} ({f.tree.attrs.get('study', '?')})" for f in fits]
    if len(set(labels)) < len(labels):
        twice = next(x for x in labels if labels.count(x) > 1)
        raise InputError(
            f"two fits are both {twice!r}; pass a dict that names each",
            field="fits",
            value=twice,
        )
    return dict(zip(labels, fits, strict=True))
