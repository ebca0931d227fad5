r"""A leaderboard's fit: each system's rate, the table of the board, a new system.

:meth:`BoardFit.leaderboard` is the family's one table, for every method: the closed
form (its means and their covariance, kept in the fit's tree, so a saved fit gives the
same table), the item bootstrap (its resampled means) and the Bayesian models (their
draws) (:mod:`judgebayes.inference.leaderboard.table`).
:meth:`BoardFit.new_system` reads a system not on the board from a few of its items,
:meth:`BoardFit.plan_items` says which.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.leaderboard import new_system_outcomes
from judgebayes.errors import InputError, check_choice
from judgebayes.inference.leaderboard import new_system as lb_new
from judgebayes.inference.leaderboard import paired, ranks
from judgebayes.inference.leaderboard.table import BoardTable, posterior_table, sampling_table
from judgebayes.inference.registry import check_count, check_seed
from judgebayes.models.leaderboard import BoardPriors
from judgebayes.results import check_alpha
from judgebayes.studies.accuracy.fit import AccuracyFit

__all__ = ["BoardFit"]

#: the ways a closed form's claims are controlled over all pairs
CONTROLS = ("stepdown", "holm")
#: null draws behind the closed form's simultaneous claims and P(top k), by default (as
#: csranks' R; more at a smaller alpha: :data:`MIN_TAIL_DRAWS`)
NULL_DRAWS = 1000
#: the fewest null draws (or bootstrap resamples) a simultaneous claim is read from at
#: level alpha: the critical value is the 1 - alpha quantile of their maxima, which this
#: many draws beyond it pin down to a few percent
MIN_TAIL_DRAWS = 20
#: the most null draws a closed-form table draws (a smaller alpha than
#: :data:`MIN_TAIL_DRAWS` / this is refused rather than filling the memory)
MAX_NULL_DRAWS = 200_000


@dataclass(frozen=True, eq=False)
class BoardFit(AccuracyFit):
    """:class:`~judgebayes.results.Fit` of a leaderboard: each system's ``theta`` (or
    ``theta_process``), the board's table and a new system's rate from a few items.
    """

    family: str = "leaderboard"
    quantity: str = "theta"

    # ----------------------------------------------------------------- the table
    def leaderboard(
        self,
        alpha: float = 0.05,
        top_k: int = 1,
        *,
        estimand: str | None = None,
        baseline: str | None = None,
        control: str = "stepdown",
        draws: int | None = None,
    ) -> BoardTable:
        """One row per system, best first; every claim holds for all systems at once.

        Parameters
        ----------
        alpha : float
            1 - the level of the intervals, and of the rank intervals and tiers jointly.
        top_k : int
            The ``p_top_k`` column's ``k``.
        estimand : {"items", "process"}, optional
            Rank the systems' means on these items, or on the item population (new items
            like these).  Default: what the method estimates (the closed form and the
            bootstrap: the population; the Bayesian models: these items).
        baseline : str, optional
            The system every other is compared with; default the leader, with the
            comparison controlled for the data having chosen it.
        control : {"stepdown", "holm"}
            Closed form: the step-down over all pairs (default, the shorter), or Holm's.
        draws : int, optional
            Closed form: the null draws behind the step-down and ``p_top_k``
            (default :data:`NULL_DRAWS`, or :data:`MIN_TAIL_DRAWS` / ``alpha`` when that is
            more; fewer than that is refused).

        Returns
        -------
        BoardTable
            A DataFrame, its ``header`` naming the estimand and the rule: ``system``,
            ``estimate``, ``lower``, ``upper``, ``rank``, ``rank_lower``, ``rank_upper``,
            ``tier``, ``p_top_k``, ``difference`` (against the reference), and for the
            closed form and the bootstrap ``se``, ``p_value``, ``p_holm``, ``separated``;
            for the Bayesian models ``p_below`` (the posterior probability of being
            below the reference).  ``attrs`` hold the settings, ``reference`` and
            ``surely_above`` (each system to those the claims put below it).
        """
        alpha = check_alpha(alpha)
        if alpha < MIN_TAIL_DRAWS / MAX_NULL_DRAWS:
            raise InputError(
                f"alpha={alpha:g} asks for claims beyond what {MAX_NULL_DRAWS} draws pin down: "
                f"give an alpha of at least {MIN_TAIL_DRAWS / MAX_NULL_DRAWS:g}",
                field="alpha",
                value=alpha,
            )
        table = self._table(alpha, top_k, estimand, baseline, control, draws)
        table.attrs["notes"] = list(self.notes)
        return table

    def _table(self, alpha, top_k, estimand, baseline, control, draws) -> BoardTable:
        names = list(self.units)
        top_k = _top_k(top_k, len(names))
        ref = None
        if baseline is not None:
            check_choice(str(baseline), names, "baseline", "system")
            ref = names.index(str(baseline))
        check_choice(control, CONTROLS, "control", "control")
        kind = self.info.get("table", "posterior")
        estimand = _estimand(estimand, self.info.get("estimand", "items"), kind)
        if kind == "posterior":
            if control != "stepdown" or draws is not None:
                raise InputError(
                    f"control= and draws= set the closed form's claims; the {self.method!r} "
                    "fit's claims come from its joint posterior",
                    field="control" if control != "stepdown" else "draws",
                    value=control if control != "stepdown" else draws,
                )
            var = "theta" if estimand == "items" else "theta_process"
            x = self.draws(var).values
            least = int(np.ceil(MIN_TAIL_DRAWS / alpha))
            if x.shape[0] < least:
                raise InputError(
                    f"this fit has {x.shape[0]} posterior draws, too few for claims that hold "
                    f"at once at alpha={alpha:g}: fit it with {least} or more",
                    field="alpha",
                    value=alpha,
                )
            return posterior_table(
                names, x, alpha=alpha, top_k=top_k, baseline=ref, estimand=estimand
            )
        least = int(np.ceil(MIN_TAIL_DRAWS / alpha))
        reps = max(NULL_DRAWS, least) if draws is None else check_count(draws, "draws", minimum=2)
        if reps < least:
            raise InputError(
                f"draws={reps} leaves {reps * alpha:.3g} draws beyond the critical value at "
                f"alpha={alpha:g}; give at least {least}",
                field="draws",
                value=reps,
            )
        if kind == "bootstrap":
            return self._bootstrap_table(names, alpha, top_k, ref, control, least, draws)
        return self._closed_form_table(names, alpha, top_k, ref, control, reps, estimand)

    def _closed_form_table(self, names, alpha, top_k, ref, control, reps, estimand):
        post = self.tree.posterior
        mean = self.estimate("theta_process")
        cov = post["cov_process" if estimand == "process" else "cov_items"].values[0, 0]
        info = self.info
        scale = tuple(info["scale"])
        units = int(info["n_clusters"])
        dfs = (
            np.asarray(info["df"], float)
            if estimand == "process"
            else np.asarray(info["df_items"], float)
        )
        seed = json.loads(str(self.tree.attrs.get("random_seed", "null")))
        rng = np.random.default_rng([0 if seed is None else int(seed), 31])
        df_joint = float(dfs.min())
        null = ranks.null_draws(cov, df_joint, reps, rng)
        v = np.diag(cov)
        lo, hi = paired.bounded_interval(mean, v, units, dfs, alpha, scale)
        if estimand == "items" and info.get("items_exact"):  # the scores are the answer
            lo, hi = np.where(v > 0, lo, mean), np.where(v > 0, hi, mean)
        diff_se = paired.difference_se(cov, units, scale)
        return sampling_table(
            names, mean, (lo, hi), np.sqrt(np.maximum(v, 0)), diff_se, null, df_joint,
            alpha=alpha, top_k=top_k, control=control, baseline=ref, estimand=estimand,
        )  # fmt: skip

    def _bootstrap_table(self, names, alpha, top_k, ref, control, least, draws):
        if draws is not None:
            raise InputError(
                f"draws= sets the closed form's null draws; this bootstrap's claims come from "
                f"its {self.draws('theta_process').shape[0]} resamples (fit it with reps=)",
                field="draws",
                value=draws,
            )
        x = self.draws("theta_process").values
        if x.shape[0] < least:
            raise InputError(
                f"this bootstrap has {x.shape[0]} resamples, too few for claims at "
                f"alpha={alpha:g}: fit it with reps of at least {least}",
                field="alpha",
                value=alpha,
            )
        est = self.estimate("theta_process")
        lo, hi = np.quantile(x, [alpha / 2, 1 - alpha / 2], axis=0)
        lo, hi = np.clip(lo, *self.info["scale"]), np.clip(hi, *self.info["scale"])
        flat = hi <= lo  # resamples all alike: the closed form's worst case instead
        if flat.any():
            units, scale = int(self.info["n_clusters"]), tuple(self.info["scale"])
            wlo, whi = paired.bounded_interval(est, np.zeros(est.size), units, np.inf, alpha, scale)
            lo, hi = np.where(flat, wlo, lo), np.where(flat, whi, hi)
        null = x - x.mean(axis=0)
        cov = np.cov(null, rowvar=False)
        diff_se = paired.difference_se(cov, int(self.info["n_clusters"]), tuple(self.info["scale"]))
        return sampling_table(
            names, est, (lo, hi), np.sqrt(np.diag(cov)), diff_se, null, np.inf,
            alpha=alpha, top_k=top_k, control=control, baseline=ref, estimand="process",
        )  # fmt: skip

    @property
    def has_contrasts(self) -> bool:
        """Every leaderboard fit has contrasts (the closed form from its covariance)."""
        return True

    def contrasts(self, alpha: float = 0.05) -> pd.DataFrame:
        r"""Every ordered pair of systems: the difference of their estimates, its interval
        and P(a > b): from the draws, or for the closed form paired by item from its
        covariance (Student's t at the smaller of the two systems' degrees of freedom,
        :math:`\Phi(d / \mathrm{se})` as P(a > b)).
        """
        if self.info.get("table") != "closed_form":
            return super().contrasts(alpha)
        alpha = check_alpha(alpha)
        names = list(self.units)
        mean = self.estimate("theta_process")
        cov = self.tree.posterior["cov_process"].values[0, 0]
        se = paired.difference_se(cov, int(self.info["n_clusters"]), tuple(self.info["scale"]))
        dfs = np.asarray(self.info["df"], float)
        a, b = np.nonzero(~np.eye(len(names), dtype=bool))
        d = mean[a] - mean[b]
        q = stats.t.ppf(1 - alpha / 2, np.minimum(dfs[a], dfs[b]))
        span = float(self.info["scale"][1] - self.info["scale"][0])
        return pd.DataFrame(
            {
                "a": np.asarray(names)[a],
                "b": np.asarray(names)[b],
                "difference": d,
                "lower": np.maximum(-span, d - q * se[a, b]),
                "upper": np.minimum(span, d + q * se[a, b]),
                "p_a_greater": stats.norm.cdf(d / se[a, b]),
                "estimand": f"process, paired on {self.info['n_paired_items']} items",
                "se": se[a, b],
            }
        )

    # ----------------------------------------------------------------- a new system
    def _item_draws(self, limit: int) -> dict:
        """At most ``limit`` draws of the items' parameters a new system is read against."""
        post = self.tree.posterior
        if "difficulty" not in post:
            raise InputError(
                "a new system's rate needs the items' difficulties: fit a model with item "
                "effects (RaschBoard, TwoPLBoard or GuessingBoard) by NUTS or Laplace",
                field="fit",
                value=self.method,
            )
        total = post.sizes["chain"] * post.sizes["draw"]
        keep = np.linspace(0, total - 1, min(total, limit)).astype(int)
        names = ("difficulty", "discrimination", "guessing", "concentration", "ability")
        out = {}
        for v in names:
            if v in post:  # (chain, draw, ...) as (draws, ...) without xarray's stacking
                x = post[v].values
                out[v] = x.reshape(total, *x.shape[2:])[keep]
        return out

    def new_system(self, outcomes, *, trials=None, alpha: float = 0.05, random_seed=0):
        """A system not on the board, from its outcomes on some of the board's items.

        Parameters
        ----------
        outcomes : Series or dict
            Item label to 0/1 outcome (with ``trials``: a whole count of successes), each
            item once (:func:`~judgebayes.data.leaderboard.new_system_outcomes`).  The
            outcomes are the truth (exact match, or a human's label): a judged board's
            model is of the true rates, and a new system's verdicts by the judge are not
            corrected here.
        trials : Series or dict, optional
            Item label to the number of samples.
        alpha : float
            1 - the interval's level.
        random_seed : int
            The seed of the ability draws.

        Returns
        -------
        Series
            ``estimate``, ``lower``, ``upper`` of its rate over every item of the board
            (the benchmark's items), and ``items`` (how many it answered).
        """
        alpha = check_alpha(alpha)
        seed = check_seed(random_seed)
        draws = self._item_draws(lb_new.DRAWS)
        items = tuple(str(v) for v in self.tree.posterior["item"].values)
        code, k, n = new_system_outcomes(outcomes, trials, items)
        sd = float(self.info.get("ability_sd", BoardPriors().ability_sd))
        rng = np.random.default_rng(seed)
        _, acc = lb_new.new_system(k, n, code, draws, sd, rng)
        lo, hi = np.quantile(acc, [alpha / 2, 1 - alpha / 2])
        return pd.Series(
            {"estimate": float(acc.mean()), "lower": lo, "upper": hi, "items": int(code.size)}
        )

    def plan_items(self, budget: int) -> list[str]:
        """The ``budget`` items a new system should answer (most informative at the
        board's abilities, spread over the difficulties:
        :func:`~judgebayes.inference.leaderboard.new_system.informative_items`).
        """
        budget = check_count(budget, "budget", minimum=1)
        draws = self._item_draws(lb_new.DRAWS)
        n_items = draws["difficulty"].shape[1]
        if budget > n_items:
            raise InputError(
                f"budget {budget} is more than the board's {n_items} items: a new system "
                "answering all of them needs no plan",
                field="budget",
                value=budget,
            )
        a = draws.get("discrimination")
        codes = lb_new.informative_items(
            draws["ability"].mean(0),
            draws["difficulty"].mean(0),
            None if a is None else a.mean(0),
            budget,
        )
        items = self.tree.posterior["item"].values.astype(str)
        return [str(items[c]) for c in codes]


def _top_k(top_k, n: int) -> int:
    if isinstance(top_k, bool) or not isinstance(top_k, int | np.integer) or not 1 <= top_k <= n:
        raise InputError(
            f"top_k must be a whole number from 1 to {n}; got {top_k!r}", field="top_k", value=top_k
        )
    return int(top_k)


def _estimand(estimand, default: str, kind: str) -> str:
    if estimand is None:
        return default
    check_choice(estimand, ("items", "process"), "estimand", "estimand")
    if kind == "bootstrap" and estimand == "items":
        raise InputError(
            "the item bootstrap resamples the items, so it estimates the item population "
            "(estimand='process'); the closed form and the Bayesian models also give these "
            "items'",
            field="estimand",
            value=estimand,
        )
    return estimand
