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
    fits: dict[str, RankingFit] | Sequence[RankingFit], *, approximate: bool = False
) -> pd.DataFrame:
    """``az.compare`` (PSIS-LOO) of fits that stored log-likelihoods.

    PSIS-LOO reweights posterior draws; Laplace draws are a Gaussian approximation to
    the posterior, so their LOO is refused unless ``approximate=True``, and is then
    marked in the ``approximate`` column.
    """
    import arviz as az

    if not isinstance(fits, dict):
        fits = {f.label: f for f in fits}
    approx = [k for k, f in fits.items() if f.method != "nuts"]
    if approx and not approximate:
        raise InputError(
            f"fits {approx} have Laplace draws, not posterior draws; PSIS-LOO on them is "
            "an approximation of an approximation. Refit with method='nuts', or pass "
            "approximate=True to get it marked as approximate",
            field="fits",
            value=approx,
        )
    missing = [k for k, f in fits.items() if "log_likelihood" not in f.idata.children]
    if missing:
        raise InputError(
            f"fits {missing} have no log-likelihood; refit with log_likelihood=True",
            field="log_likelihood",
            value=missing,
        )
    with warnings.catch_warnings():
        # Pareto k warnings: the table's diag_elpd column carries them
        warnings.simplefilter("ignore", UserWarning)
        table = az.compare({k: f.idata for k, f in fits.items()})
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
    var_names = [v for v in ("b", "theta") if all(v in fits[n].idata.posterior for n in names)]
    pc = az.plot_forest(
        {n: fits[n].idata for n in names},
        var_names=var_names,
        combined=True,
        ci_kind="eti",
        ci_probs=(0.5, 1 - alpha),
        backend="matplotlib",
    )
    pc.add_legend("model")
    return df, pc
