"""The leaderboard table: one row per system, best first, its claims holding at once.

Two builders, one table:

* :func:`sampling_table` for the closed form and the item bootstrap: each system's
  interval (bounded by the scale for the closed form, percentiles for the bootstrap),
  rank intervals and tiers from the step-down over all pairs
  (:func:`~judgebayes.inference.leaderboard.ranks.stepdown_above`, or Holm's), P(top k)
  from the null draws around the estimates, and each system against the reference:
  against a named ``baseline`` a paired test with Holm's step-down over the systems,
  against the leader the data chose the p-value of "among the best"
  (:func:`~judgebayes.inference.leaderboard.ranks.among_best_pvalues`), which controls
  for the choice;
* :func:`posterior_table` for the Bayesian models: equal-tailed intervals, rank intervals
  holding in at least ``1 - alpha`` of the joint posterior
  (:func:`~judgebayes.inference.leaderboard.posterior.simultaneous_rank_intervals`),
  tiers read off them as the closed form's are, P(top k), and each system's posterior
  probability of being below the reference.  Its point ranks order the posterior means,
  but systems whose means differ by less than :data:`MC_Z` Monte Carlo standard errors of
  their difference share the better rank (:func:`posterior_ranks`): identical data give
  one rank, not an order drawn by the sampler's noise.

The table is a :class:`BoardTable`: a DataFrame whose header (printed above it, and its
caption in a notebook) names the estimand it ranks and the rule its claims keep.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.inference.leaderboard import ranks
from judgebayes.inference.leaderboard.posterior import simultaneous_rank_intervals
from judgebayes.inference.multiplicity import holm

__all__ = [
    "ESTIMANDS",
    "MC_Z",
    "BoardTable",
    "posterior_ranks",
    "posterior_table",
    "sampling_table",
]

#: Monte Carlo standard errors (of independent draws) within which two posterior means are
#: one rank: about 1.7 standard errors of NUTS draws a third of which are effective
MC_Z = 3.0

#: the estimands a leaderboard ranks, in words
ESTIMANDS = {
    "items": "these items (each system's mean on the benchmark's own items)",
    "process": "the item population (each system's mean on new items like these)",
}


class BoardTable(pd.DataFrame):
    """A leaderboard: a DataFrame with a header naming what it ranks (``attrs["header"]``)."""

    @property
    def _constructor(self):
        return pd.DataFrame  # a frame derived from the table is a plain frame

    @property
    def header(self) -> str:
        """What the table ranks and the rule its claims keep."""
        return str(self.attrs.get("header", ""))

    def __repr__(self) -> str:
        body = super().__repr__()
        return f"{self.header}\n\n{body}" if self.header else body

    def _repr_html_(self) -> str | None:
        html = pd.DataFrame._repr_html_(self)  # type: ignore[attr-defined]
        if not self.header or html is None:
            return html
        return f"<p><b>{self.header}</b></p>{html}"


def _finish(out: pd.DataFrame, attrs: dict) -> BoardTable:
    out = out.sort_values(["estimate", "system"], ascending=[False, True], kind="stable")
    table = BoardTable(out.reset_index(drop=True))
    estimand = attrs["estimand"]
    attrs["header"] = (
        f"Leaderboard of {len(table)} systems: {ESTIMANDS[estimand]}; ranks and tiers hold "
        f"for every system at once at {1 - attrs['alpha']:g} ({attrs['control']}); tiers "
        "never split systems of equal means"
    )
    table.attrs = attrs
    return table


def _surely_above(above: np.ndarray, names, order) -> dict[str, list[str]]:
    """Each system (best first) to the systems it is surely above, as plain lists (the
    table's attrs stay JSON).
    """
    at = {n: k for k, n in enumerate(names)}
    return {s: [t for t in order if above[at[s], at[t]]] for s in order}


def sampling_table(
    names: list[str],
    estimate: np.ndarray,
    interval: tuple[np.ndarray, np.ndarray],
    se: np.ndarray,
    diff_se: np.ndarray,
    null: np.ndarray,
    df: float,
    *,
    alpha: float,
    top_k: int,
    control: str = "stepdown",
    baseline: int | None = None,
    estimand: str = "process",
) -> BoardTable:
    """The table of a sampling distribution (module docstring): ``null`` (draws, S) of the
    estimates' error, ``diff_se`` (S, S) of their differences, ``df`` the variance's
    degrees of freedom.
    """
    if control == "holm":
        above = ranks.holm_above(estimate, diff_se, df, alpha)
        rule = "Holm over all pairs"
    else:
        above = ranks.stepdown_above(estimate, diff_se, null, alpha)
        rule = "step-down over all pairs"
    lo_r, hi_r = ranks.rank_bounds(above)
    out = pd.DataFrame(
        {
            "system": names,
            "estimate": estimate,
            "se": se,
            "lower": interval[0],
            "upper": interval[1],
            "rank": stats.rankdata(-estimate, method="min").astype(int),
            "rank_lower": lo_r,
            "rank_upper": hi_r,
            "tier": ranks.tiers(lo_r, hi_r, estimate),
            "p_top_k": ranks.top_k_shares(estimate + null, top_k),
        }
    )
    ref = int(np.argmax(estimate)) if baseline is None else baseline
    out["difference"] = estimate - estimate[ref]
    if baseline is None:
        p = ranks.among_best_pvalues(estimate, diff_se, null, df)
        against = "the best (Hsu's comparisons with the best: the leader is chosen by the data)"
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = 2 * stats.t.sf(np.abs(out["difference"].to_numpy() / diff_se[:, ref]), df)
        p[ref] = np.nan
        against = f"{names[ref]!r} (paired t, Holm over the systems)"
    out["p_value"] = p
    out["p_holm"] = holm(np.where(np.arange(len(names)) == ref, np.nan, p))
    out["separated"] = out["p_holm"] < alpha
    order = list(out.sort_values(["estimate", "system"], ascending=[False, True])["system"])
    return _finish(
        out,
        {
            "estimand": estimand,
            "alpha": alpha,
            "top_k": top_k,
            "control": rule,
            "reference": names[ref],
            "against": against,
            "df": float(df),
            "surely_above": _surely_above(above, names, order),
        },
    )


def posterior_ranks(draws: np.ndarray) -> np.ndarray:
    """Each system's rank by its posterior mean over ``draws`` (draws, S), a system sharing
    the rank of the system it follows in the order when their means differ by less than
    :data:`MC_Z` Monte Carlo standard errors of the difference.
    """
    x = np.asarray(draws, float)
    mean = x.mean(axis=0)
    order = np.argsort(-mean, kind="stable")
    rank = np.empty(mean.size, int)
    lead, at = order[0], 1
    for pos, s in enumerate(order):
        mcse = np.std(x[:, lead] - x[:, s]) / np.sqrt(x.shape[0])
        if mean[lead] - mean[s] > MC_Z * mcse:
            lead, at = s, pos + 1
        rank[s] = at
    return rank


def posterior_table(
    names: list[str],
    draws: np.ndarray,
    *,
    alpha: float,
    top_k: int,
    baseline: int | None = None,
    estimand: str = "items",
) -> BoardTable:
    """The table of posterior draws (draws, S) (module docstring)."""
    x = np.asarray(draws, float)
    mean = x.mean(axis=0)
    lo, hi = np.quantile(x, [alpha / 2, 1 - alpha / 2], axis=0)
    lo_r, hi_r = simultaneous_rank_intervals(x, alpha)
    ref = int(np.argmax(mean)) if baseline is None else baseline
    out = pd.DataFrame(
        {
            "system": names,
            "estimate": mean,
            "lower": lo,
            "upper": hi,
            "rank": posterior_ranks(x),
            "rank_lower": lo_r,
            "rank_upper": hi_r,
            "tier": ranks.tiers(lo_r, hi_r, mean),
            "p_top_k": ranks.top_k_shares(x, top_k),
            "difference": mean - mean[ref],
            "p_below": (x < x[:, [ref]]).mean(axis=0),
        }
    )
    out.loc[ref, "p_below"] = np.nan
    return _finish(
        out,
        {
            "estimand": estimand,
            "alpha": alpha,
            "top_k": top_k,
            "control": "the joint posterior",
            "reference": names[ref],
            "against": f"{names[ref]!r} (posterior probability of being below it)",
        },
    )
