"""Plots of fits: the forest of intervals, the posterior predictive check, and an
interval table against known truths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import xarray as xr

from judgebayes.errors import InputError
from judgebayes.results.trees import check_alpha, tree

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.results.fit import Fit


def plot_forest(fits: Sequence[Fit], alpha: float = 0.05, var: str | None = None, **kwargs):
    """Every fit's own estimate and interval of its reported quantity, side by side
    (``arviz.plot_forest``, one colour per fit).

    The intervals drawn are the fits' own (:meth:`Fit.interval`): the thin line the
    ``1 - alpha`` interval, the thick one the 50% interval, the dot the estimate, so a
    closed-form interval (Lang-Reiczigel, PPI) stands beside credible intervals, and a
    point method without an interval shows as its estimate only.  Works for every family;
    extra keywords go to ``arviz.plot_forest``.

    Returns
    -------
    arviz_plots.PlotCollection
        ``.savefig(path)``; the matplotlib figure is ``.viz["figure"].item()``.
    """
    import arviz as az

    fits = list(fits)
    alpha = check_alpha(alpha)
    quantity = var or _common_quantity(fits)
    labels = _unique_labels(fits)

    def intervals(a):
        per = [f.interval(a, var=quantity) for f in fits]
        unit = per[0].index.name or "unit"
        units = [str(u) for u in per[0].index]
        est = np.stack([p["estimate"].to_numpy(float) for p in per])
        ci = np.stack([p[["lower", "upper"]].to_numpy(float) for p in per])
        return unit, units, est, ci

    unit, units, est, twig = intervals(alpha)
    _, _, _, trunk = intervals(0.5)
    coords = {"model": labels, unit: units}

    def ds(values, dims, extra=None):
        c = coords | (extra or {})
        return xr.Dataset({quantity: (dims, values)}, coords=c)

    bound = {"ci_bound": ["lower", "upper"]}
    # the drawn elements all come from ``stats``; the distribution only lays the rows
    # out, so each fit gives its estimate as one draw (equal shapes: nothing to align)
    dist = {
        label: tree(
            {"posterior": {quantity: e.reshape(1, 1, -1)}},
            coords={unit: units},
            dims={quantity: [unit]},
        )
        for label, e in zip(labels, est, strict=True)
    }
    pc = az.plot_forest(
        dist,
        var_names=[quantity],
        combined=True,
        stats={
            "twig": ds(twig, ("model", unit, "ci_bound"), bound),
            "trunk": ds(trunk, ("model", unit, "ci_bound"), bound),
            "point_estimate": ds(est, ("model", unit)),
        },
        backend="matplotlib",
        **kwargs,
    )
    pc.add_legend("model")
    fig = pc.viz["figure"].item()
    fig.suptitle(f"{quantity}: {100 * (1 - alpha):g}% intervals by method")
    return pc


def _unique_labels(fits: Sequence[Fit]) -> list[str]:
    """The fits' labels, numbered where two fits share one (``nuts``, ``nuts#2``)."""
    seen: dict[str, int] = {}
    out = []
    for f in fits:
        seen[f.label] = seen.get(f.label, 0) + 1
        out.append(f.label if seen[f.label] == 1 else f"{f.label}#{seen[f.label]}")
    return out


def plot_check(idata, var: str | None = None, kind: str = "pit", **kwargs):
    r"""A predictive check through ArviZ: ``idata``'s posterior predictive against its
    observed data.

    ``idata`` comes from :meth:`judgebayes.ValidatorPanel.predictive` (each cell's count
    against its posterior predictive) or
    :meth:`judgebayes.AccuracyStudy.transfer_predictive` (calibrated rates carried to
    another stratum or to the test set).  ``kind="pit"`` (default,
    ``arviz.plot_ppc_pit``) plots the ECDF of the per-count predictive probabilities
    :math:`P(y^{rep}_i \le y_i)` against the uniform with a simultaneous band: counts the
    model predicts well follow the diagonal, a pile at 0 or 1 is counts it cannot
    reproduce (a shifted rate).  ``kind="tstat"`` (``arviz.plot_ppc_tstat``) compares
    the replicates' median with the observed one.

    Returns
    -------
    arviz_plots.PlotCollection
    """
    import arviz as az

    names = list(idata["observed_data"].data_vars)
    var = var or names[0]
    if var not in names:
        raise InputError(f"var must be one of {names}; got {var!r}", field="var", value=var)
    plots = {"pit": az.plot_ppc_pit, "tstat": az.plot_ppc_tstat}
    if kind not in plots:
        raise InputError(
            f"kind must be one of {tuple(plots)}; got {kind!r}", field="kind", value=kind
        )
    pc = plots[kind](idata, var_names=[var], backend="matplotlib", **kwargs)
    pc.viz["figure"].item().suptitle(
        f"{var}: predictive {kind} ({idata['observed_data'][var].size} counts)"
    )
    return pc


def _common_quantity(fits: Sequence[Fit]) -> str:
    """The first fit's quantity, or else the first reported quantity every fit has.

    (The items design's fits report ``theta_items`` or ``theta`` by estimand; its
    comparators only ``theta``, which every one of its fits also carries.)
    """
    for q in dict.fromkeys(f.quantity for f in fits):
        if all(q in f.tree.posterior for f in fits):
            return q
    raise InputError(
        "the fits report different quantities "
        f"{sorted({f.quantity for f in fits})} and share none; pass var=",
        field="var",
        value=None,
    )


def plot_intervals(table: pd.DataFrame, ax=None, truth: dict | None = None):
    """Each method's estimate and interval per unit, from :func:`compare`'s table.

    ``truth`` optionally maps unit names to known values (drawn as vertical ticks).
    """
    import matplotlib.pyplot as plt

    systems = list(dict.fromkeys(table["unit"]))
    methods = list(dict.fromkeys(table["method"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1 + 0.35 * len(systems) * len(methods)))
    y = 0.0
    ticks, labels = [], []
    for s in systems:
        for i, m in enumerate(methods):
            r = table[(table["unit"] == s) & (table["method"] == m)]
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


def plot_ranks(table: pd.DataFrame, ax=None, truth: dict | None = None):
    """Each system's rank interval, best at the top, coloured by tier.

    ``table`` is a leaderboard: :func:`judgebayes.leaderboard`'s or
    :meth:`BoardFit.leaderboard <judgebayes.studies.leaderboard.BoardFit.leaderboard>`'s (columns
    ``system``, ``rank``, ``rank_lower``, ``rank_upper``, ``tier``).  A bar spans the ranks
    the system may hold when every system's interval holds at once, the dot is its rank by
    estimate, and ``truth`` optionally maps systems to their true ranks (crosses).

    Returns the matplotlib axes.
    """
    import matplotlib.pyplot as plt

    need = ("system", "rank", "rank_lower", "rank_upper", "tier")
    if not isinstance(table, pd.DataFrame):
        raise InputError(
            f"plot_ranks takes a leaderboard table (a DataFrame); got {type(table).__name__}",
            field="table",
            value=type(table).__name__,
        )
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise InputError(
            f"plot_ranks takes a leaderboard table; it lacks the column(s) {missing}",
            field="table",
            value=missing,
        )
    rows = table.sort_values(["rank", "system"], kind="stable").reset_index(drop=True)
    if truth is not None:
        _check_truth(truth, set(rows["system"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.8 + 0.28 * len(rows)))
    y = -np.arange(len(rows), dtype=float)
    colour = [f"C{(int(t) - 1) % 10}" for t in rows["tier"]]
    ax.hlines(y, rows["rank_lower"] - 0.3, rows["rank_upper"] + 0.3, colors=colour, lw=5, alpha=0.5)
    ax.scatter(rows["rank"], y, c=colour, zorder=3, s=18)
    if truth:
        known = rows["system"].map(truth)
        ok = known.notna().to_numpy()
        ax.scatter(known[ok], y[ok], marker="x", color="k", zorder=4, s=24, label="true rank")
        ax.legend(loc="upper right", frameon=False)
    ax.set_yticks(y, [f"{s} (tier {t})" for s, t in zip(rows["system"], rows["tier"], strict=True)])
    ax.set_xlim(0.3, len(rows) + 0.7)
    level = table.attrs.get("alpha")
    at = "" if level is None else f" ({100 * (1 - level):g}%, every system at once)"
    ax.set_xlabel(f"rank{at}")
    ax.grid(axis="x", alpha=0.3)
    return ax


def _check_truth(truth, systems: set) -> None:
    """``truth`` of :func:`plot_ranks`: a mapping of the table's systems to numbers."""
    if not isinstance(truth, dict | pd.Series):
        raise InputError(
            f"truth maps systems to their true ranks (a dict or a Series); got "
            f"{type(truth).__name__}",
            field="truth",
            value=type(truth).__name__,
        )
    items = list(dict(truth).items())
    unknown = [k for k, _ in items if k not in systems]
    if unknown:
        raise InputError(
            f"truth names {unknown[0]!r}, which is not a system of the table",
            field="truth",
            value=unknown[0],
        )
    bad = [k for k, v in items if isinstance(v, bool) or not isinstance(v, int | float | np.number)]
    if bad:
        raise InputError(
            f"truth gives system {bad[0]!r} the rank {dict(items)[bad[0]]!r}, not a number",
            field="truth",
            value=bad[0],
        )
