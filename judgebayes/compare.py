"""One result contract for every method, the tidy comparison table, and ArviZ plots.

Every fit — closed form, Laplace, exact, NUTS — is an :class:`AccuracyFit` holding an
``arviz.InferenceData``.  A point method's posterior has one chain and one draw (one
atom); it may carry its own frequentist interval (Lang-Reiczigel, delta method), which
:meth:`AccuracyFit.interval` returns for either ``kind``.  Sampling methods report the
posterior mean and an equal-tailed or HDI credible interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.schema import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "COMPARISON_COLUMNS",
    "AccuracyFit",
    "comparison_table",
    "interval_summary",
    "plot_forest",
    "plot_intervals",
]

COMPARISON_COLUMNS = (
    "method",
    "system",
    "quantity",
    "estimate",
    "lower",
    "upper",
    "level",
    "width",
    "r_hat",
    "ess_bulk",
    "ess_tail",
    "divergences",
    "seconds",
)

IntervalFn = Callable[[float], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class AccuracyFit:
    """Result of one method on one study.

    Attributes
    ----------
    method : str
        "closed_form", "laplace", "exact" or "nuts".
    idata : arviz.InferenceData
        Posterior (one atom for point methods) of every model variable.
    quantity : str
        The reported variable ("theta", or "prevalence" for a K-class judge).
    diagnostics : Diagnostics or None
        NUTS convergence numbers (None for other methods).
    seconds : float
        Wall time of the fit, compile time included.
    info : dict
        Method settings and engine details (seed, draws, cache hit, version).
    """

    method: str
    idata: Any
    quantity: str = "theta"
    diagnostics: Any = None
    seconds: float = float("nan")
    info: dict = field(default_factory=dict)
    interval_fn: IntervalFn | None = None
    estimate_override: np.ndarray | None = None

    # --------------------------------------------------------------- draws
    def draws(self, var: str | None = None):
        """Posterior draws of ``var`` (default: the reported quantity), dims (sample, ...)."""
        da = self.idata.posterior[var or self.quantity]
        return da.stack(sample=("chain", "draw")).transpose("sample", ...)

    @property
    def is_point(self) -> bool:
        """True when the posterior has a single atom."""
        post = self.idata.posterior
        return post.sizes["chain"] * post.sizes["draw"] == 1

    def _index(self, var: str):
        import pandas as pd

        da = self.idata.posterior[var]
        dims = [d for d in da.dims if d not in ("chain", "draw")]
        if not dims:
            return pd.Index([var], name="quantity"), dims
        if len(dims) == 1:
            return pd.Index([str(v) for v in da[dims[0]].values], name=dims[0]), dims
        return pd.MultiIndex.from_product(
            [[str(v) for v in da[d].values] for d in dims], names=dims
        ), dims

    def estimate(self, var: str | None = None) -> np.ndarray:
        """Point estimate: the atom, or the posterior mean (flattened over the var's dims)."""
        var = var or self.quantity
        if self.estimate_override is not None and var == self.quantity:
            return np.ravel(self.estimate_override)
        return np.ravel(self.draws(var).mean("sample").values)

    def interval(self, alpha: float = 0.05, kind: str = "equal_tailed", var: str | None = None):
        """Estimate and interval per element of ``var``.

        Parameters
        ----------
        alpha : float
            1 - level.
        kind : {"equal_tailed", "hdi"}
            For sampling methods, quantiles or the highest-density interval (ArviZ).
            A point method returns its own interval (or the atom) for both kinds.
        var : str, optional
            Variable to summarise (default: the reported quantity).

        Returns
        -------
        DataFrame
            Indexed by the variable's dims (``system`` for theta): ``estimate, lower,
            upper``.
        """
        import pandas as pd

        if kind not in ("equal_tailed", "hdi"):
            raise InputError(
                f"kind must be 'equal_tailed' or 'hdi'; got {kind!r}", field="kind", value=kind
            )
        if not 0 < alpha < 1:
            raise InputError(f"alpha must lie in (0, 1); got {alpha!r}", field="alpha", value=alpha)
        var = var or self.quantity
        index, _ = self._index(var)
        est = self.estimate(var)
        if (
            self.interval_fn is not None
            and var == self.quantity
            and (self.is_point or kind == "equal_tailed")
        ):
            lo, hi = self.interval_fn(alpha)
        elif self.is_point:
            lo, hi = est, est
        elif kind == "equal_tailed":
            d = self.draws(var)
            lo = np.ravel(d.quantile(alpha / 2, dim="sample").values)
            hi = np.ravel(d.quantile(1 - alpha / 2, dim="sample").values)
        else:
            import arviz as az

            h = az.hdi(self.idata, var_names=[var], hdi_prob=1 - alpha)[var]
            lo = np.ravel(h.sel(hdi="lower").values)
            hi = np.ravel(h.sel(hdi="higher").values)
        return pd.DataFrame(
            {"estimate": est, "lower": np.ravel(lo), "upper": np.ravel(hi)}, index=index
        )

    # --------------------------------------------------------------- systems
    def contrasts(self, alpha: float = 0.05) -> pd.DataFrame:
        """Every ordered pair of systems: mean of theta_a - theta_b, its interval, P(a > b)."""
        import pandas as pd

        if self.is_point:
            raise InputError(
                f"contrasts need posterior draws; method {self.method!r} gives a point",
                field="method",
                value=self.method,
            )
        d = self.draws("theta")
        names = [str(v) for v in d["system"].values]
        x = d.values
        rows = []
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i == j:
                    continue
                diff = x[:, i] - x[:, j]
                rows.append(
                    {
                        "a": a,
                        "b": b,
                        "difference": diff.mean(),
                        "lower": np.quantile(diff, alpha / 2),
                        "upper": np.quantile(diff, 1 - alpha / 2),
                        "p_a_greater": float((diff > 0).mean()),
                    }
                )
        return pd.DataFrame(rows)

    def prob_best(self) -> pd.Series:
        """Posterior probability that each system has the highest theta."""
        import pandas as pd

        if self.is_point:
            raise InputError(
                f"prob_best needs posterior draws; method {self.method!r} gives a point",
                field="method",
                value=self.method,
            )
        d = self.draws("theta")
        best = np.argmax(d.values, axis=1)
        names = [str(v) for v in d["system"].values]
        counts = np.bincount(best, minlength=len(names)) / best.size
        return pd.Series(counts, index=pd.Index(names, name="system"), name="p_best")

    def summary_rows(self, alpha: float = 0.05, kind: str = "equal_tailed") -> list[dict]:
        """Rows of the comparison table for this fit."""
        tab = self.interval(alpha, kind)
        diag = self.diagnostics
        rows = []
        for idx, r in tab.iterrows():
            label = "/".join(map(str, idx)) if isinstance(idx, tuple) else str(idx)
            rows.append(
                {
                    "method": self.method,
                    "system": label,
                    "quantity": self.quantity,
                    "estimate": r["estimate"],
                    "lower": r["lower"],
                    "upper": r["upper"],
                    "level": 1 - alpha,
                    "width": r["upper"] - r["lower"],
                    "r_hat": diag.r_hat_max if diag else np.nan,
                    "ess_bulk": diag.ess_bulk_min if diag else np.nan,
                    "ess_tail": diag.ess_tail_min if diag else np.nan,
                    "divergences": diag.divergences if diag else np.nan,
                    "seconds": self.seconds,
                }
            )
        return rows


def comparison_table(
    fits: Sequence[AccuracyFit], alpha: float = 0.05, kind: str = "equal_tailed"
) -> pd.DataFrame:
    """Tidy frame: one row per method x system (columns :data:`COMPARISON_COLUMNS`)."""
    import pandas as pd

    rows = [r for f in fits for r in f.summary_rows(alpha, kind)]
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def interval_summary(results: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Repeated-estimate summary against a known truth, per group of ``by``.

    ``results`` has one row per replicate with ``estimate`` and ``truth`` and, for methods
    that give one, ``lower``/``upper``.  Returns ``n_splits`` (rows), ``n_defined`` (finite
    estimates), ``bias`` and ``mae`` (over defined rows), ``coverage`` and ``width`` (over
    rows with a finite interval; NaN for a method without intervals).
    """
    none = np.full(len(results), np.nan)
    lo = results["lower"].to_numpy(float) if "lower" in results else none
    hi = results["upper"].to_numpy(float) if "upper" in results else none
    truth = results["truth"].to_numpy(float)
    has = np.isfinite(lo) & np.isfinite(hi)
    d = results[list(by)].assign(
        _truth=truth,
        err=results["estimate"].to_numpy(float) - truth,
        width=np.where(has, hi - lo, np.nan),
        covered=np.where(has, ((lo <= truth) & (truth <= hi)).astype(float), np.nan),
    )
    return (
        d.groupby(list(by), sort=False)
        .agg(
            n_splits=("_truth", "size"),
            n_defined=("err", "count"),
            bias=("err", "mean"),
            mae=("err", lambda e: float(e.abs().mean())),
            coverage=("covered", "mean"),
            width=("width", "mean"),
        )
        .reset_index()
    )


def plot_forest(fits: Sequence[AccuracyFit], alpha: float = 0.05, ax=None, **kwargs):
    """The methods' posteriors side by side through ``az.plot_forest``.

    ``az.plot_forest`` draws credible intervals of draws, so a point method shows as its
    atom only; :func:`plot_intervals` draws every method's own interval (Lang-Reiczigel
    included) from the comparison table.
    """
    import arviz as az
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * sum(f.interval(alpha).shape[0] for f in fits)))
    quantity = fits[0].quantity
    axes = az.plot_forest(
        [f.idata for f in fits],
        model_names=[f.method for f in fits],
        var_names=[quantity],
        combined=True,
        hdi_prob=1 - alpha,
        ax=ax,
        **kwargs,
    )
    ax = np.ravel(axes)[0]
    ax.set_title(f"{quantity}: {100 * (1 - alpha):g}% intervals by method")
    return ax


def plot_intervals(table: pd.DataFrame, ax=None, truth: dict | None = None):
    """Each method's estimate and interval per system, from :func:`comparison_table`.

    ``truth`` optionally maps system names to known values (drawn as vertical ticks).
    """
    import matplotlib.pyplot as plt

    systems = list(dict.fromkeys(table["system"]))
    methods = list(dict.fromkeys(table["method"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1 + 0.35 * len(systems) * len(methods)))
    y = 0
    ticks, labels = [], []
    for s in systems:
        for i, m in enumerate(methods):
            r = table[(table["system"] == s) & (table["method"] == m)]
            if r.empty:
                continue
            r = r.iloc[0]
            ax.plot([r["lower"], r["upper"]], [y, y], color=f"C{i}", lw=2)
            ax.plot([r["estimate"]], [y], "o", color=f"C{i}")
            ticks.append(y)
            labels.append(f"{s}: {m}")
            y -= 1
        if truth and s in truth:
            ax.plot([truth[s]] * 2, [y + len(methods) + 0.5, y + 0.5], "k:", lw=1)
        y -= 0.5
    ax.set_yticks(ticks, labels)
    level = table["level"].iloc[0]
    ax.set_xlabel(f"{table['quantity'].iloc[0]} ({100 * level:g}% intervals)")
    return ax
