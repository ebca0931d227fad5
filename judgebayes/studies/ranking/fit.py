r"""The ranking family's fit: item quality on an identified scale, with its summaries.

Every summary (``top_k``, ``rank_intervals``, ``groups``, ``bias_table``, ``prob_better``,
``channel_table``) is computed from the draws, so it works for every method that has them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.ranking import POSITION
from judgebayes.errors import InputError
from judgebayes.inference.ranking.topk import (
    expected_recall_set,
    prob_better,
    rank_draws,
    rank_intervals,
    separable_groups,
    top_k_probabilities,
    top_k_set,
)
from judgebayes.models.ranking import NoBias
from judgebayes.results import Fit, check_alpha

__all__ = ["RankingFit"]


@dataclass(frozen=True, eq=False)
class RankingFit(Fit):
    """:class:`~judgebayes.results.Fit` of the ranking family: item quality, with summaries.

    ``quantity`` is ``theta`` (item quality) over the ``item`` unit, on the identified
    scale stated in ``info["identification"]`` (and ``idata.posterior.attrs``):
    ``"sum_to_zero"`` (qualities sum to zero within each connected component of the
    comparison graph) or ``"reference=<item>"`` (quality minus the reference item's).
    Verdicts see only differences, so an interval on any other scale would carry the
    prior's uncertainty about the overall level.  ``idata.posterior``
    also has ``b`` (bias) and, with several judges, ``b_judge`` (judge, bias) for
    bias-aware fits.  ``estimate()`` is the MAP for Laplace fits and the posterior mean
    for NUTS.  Every summary (``top_k``, ``rank_intervals``, ``groups``, ``bias_table``,
    ``prob_better``) is computed from the draws.

    Attributes
    ----------
    prior : str
        Bias prior (``"none"`` for the naive model).
    data : PairwiseData
        The verdicts the fit saw.
    map_result : MapResult or None
        The Newton engine's mode and Hessian (Gaussian-prior Laplace fits).
    """

    family: str = "ranking"
    quantity: str = "theta"
    unit: str = "item"
    prior: str = "none"
    data: Any = field(default=None, repr=False)
    map_result: Any = field(default=None, repr=False)
    instance: Any = field(default=None, repr=False)

    @property
    def point(self) -> np.ndarray:
        """Point quality estimate per item (the MAP for Laplace fits, else the mean)."""
        return self.estimate()

    # ---------------------------------------------------------------- draws
    @property
    def label(self) -> str:
        """Short name, e.g. ``"nuts/horseshoe"``, ``"naive"`` or ``"judge_error"``."""
        return self.method if self.prior == NoBias.name else f"{self.method}/{self.prior}"

    def channel_table(self, alpha: float = 0.05) -> pd.DataFrame:
        r"""Each judge's confusion matrix against the human preference (judge-error fits):
        :math:`\Pr(\text{verdict} = m \mid \text{human} = k)` with its ``1 - alpha``
        interval, one row per (judge, human outcome, verdict).
        """
        alpha = check_alpha(alpha, "alpha")
        post = self.tree.posterior
        if "confusion" not in post:
            raise InputError(
                f"a {self.method!r} fit has no judge confusion matrix; fit method='judge_error'",
                field="method",
                value=self.method,
            )
        c = post["confusion"]
        v = c.values.reshape(-1, *c.shape[-3:])
        rows = []
        for j, judge in enumerate(c["judge"].values):
            for k, h in enumerate(c["human_outcome"].values):
                for m, verdict in enumerate(c["verdict"].values):
                    d = v[:, j, k, m]
                    lo, hi = np.quantile(d, [alpha / 2, 1 - alpha / 2])
                    rows.append(
                        {
                            "judge": str(judge),
                            "human": str(h),
                            "verdict": str(verdict),
                            "estimate": float(d.mean()),
                            "lower": float(lo),
                            "upper": float(hi),
                        }
                    )
        return pd.DataFrame(rows)

    def theta_draws(self) -> np.ndarray:
        """(S, N) quality draws, chains flattened."""
        lazy = self._lazy("theta")
        th = lazy.values["theta"] if lazy is not None else self.tree.posterior["theta"].values
        return th.reshape(-1, th.shape[-1])

    def bias_draws(self) -> np.ndarray:
        """(S, P) shared bias coefficient draws (covariates then position)."""
        post = self.tree.posterior
        if "b" not in post:
            return np.zeros((self.theta_draws().shape[0], 0))
        b = post["b"].values
        return b.reshape(-1, b.shape[-1])

    @property
    def bias_names(self) -> list[str]:
        """Names of the bias coefficients."""
        post = self.tree.posterior
        return [str(v) for v in post["bias"].values] if "b" in post else []

    # ------------------------------------------------------------- summaries
    def bias_table(self, alpha: float = 0.05) -> pd.DataFrame:
        r"""Bias coefficients: mean, interval, P(> 0), per raw unit of the covariate, and
        what identifies each one.

        ``identified_by`` is ``"data"`` for per-comparison covariates and the position
        term (the verdicts see them directly) and ``"prior"`` for item-level covariates:
        the verdicts see only :math:`\theta_i + c\,x_i`, so :math:`c` is identified by the
        prior's independence of quality and covariate, and its interval is honest only
        with the qualities' spread learned (``info["theta_sd"]`` or ``theta_sd`` in the
        posterior).
        """
        rows = []
        post = self.tree.posterior
        if "b" in post:
            blocks = [("all", self.bias_draws())]
            if "b_judge" in post:
                bj = post["b_judge"].values
                bj = bj.reshape(-1, *bj.shape[-2:])
                blocks += [(str(j), bj[:, i]) for i, j in enumerate(post["judge"].values)]
            for judge, draws in blocks:
                for m, name in enumerate(self.bias_names):
                    dm = draws[:, m]
                    sd, level = self.data.scales.get(name, (0.0, 1.0, "comparison"))[1:]
                    lo, hi = np.quantile(dm, [alpha / 2, 1 - alpha / 2])
                    rows.append(
                        {
                            "judge": judge,
                            "coefficient": name,
                            "estimate": float(dm.mean()),
                            "lower": float(lo),
                            "upper": float(hi),
                            "p_positive": float(np.mean(dm > 0)),
                            "per_raw_unit": float(dm.mean() / sd) if name != POSITION else np.nan,
                            "identified_by": "prior" if level == "item" else "data",
                        }
                    )
        return pd.DataFrame(
            rows,
            columns=[
                "judge", "coefficient", "estimate", "lower", "upper", "p_positive",
                "per_raw_unit", "identified_by",
            ],
        )  # fmt: skip

    def point_top_k(self, k: int) -> list[str]:
        """The point top-k set (argtop-k of the point estimate), best first."""
        _check_k(k, self.data.n_items)
        return [self.data.items[i] for i in top_k_set(self.point, k)]

    def top_k_set(self, k: int) -> list[str]:
        """The reported top-k set: the ``k`` items that maximise the expected recall of the
        true top k (the largest P(top-k)), best first.  :meth:`point_top_k` is the top k of
        the point estimate, which can differ when items are close.
        """
        _check_k(k, self.data.n_items)
        p = top_k_probabilities(self.theta_draws(), k)
        return [self.data.items[i] for i in expected_recall_set(p, k)]

    def top_k(self, k: int) -> pd.DataFrame:
        r""":math:`\Pr(i \in \text{top-}k)` per item, from the draws, sorted.

        ``in_top_k`` marks the expected-recall-optimal set (:meth:`top_k_set`),
        ``in_point_top_k`` the point estimate's top k; ``df.attrs["expected_recall"]`` is
        the expected share of the true top k that ``in_top_k`` recovers.
        """
        _check_k(k, self.data.n_items)
        p = top_k_probabilities(self.theta_draws(), k)
        point = set(self.point_top_k(k))
        best = set(expected_recall_set(p, k).tolist())
        df = pd.DataFrame(
            {
                "p_top_k": p,
                "estimate": self.point,
                "in_top_k": [i in best for i in range(len(p))],
                "in_point_top_k": [it in point for it in self.data.items],
            },
            index=pd.Index(self.data.items, name="item"),
        )
        df = df.sort_values(["p_top_k", "estimate"], ascending=False)
        df.attrs["expected_recall"] = float(np.sort(p)[::-1][:k].sum() / k)
        return df

    def rank_intervals(self, alpha: float = 0.05) -> pd.DataFrame:
        """Point rank, median rank and ``1 - alpha`` rank interval per item (1 = best)."""
        r = rank_intervals(self.theta_draws(), alpha)
        point_rank = rank_draws(self.point[None, :])[0]
        df = pd.DataFrame(
            {"estimate": self.point, "rank": point_rank, **r},
            index=pd.Index(self.data.items, name="item"),
        )
        return df.sort_values("rank")

    def groups(self, level: float = 0.95) -> list[list[str]]:
        """Tiers, best first: with posterior probability at least ``level``, every item of
        a tier beats every item of every lower tier (all the stated separations hold at
        once; see :func:`judgebayes.inference.ranking.topk.separable_groups`).
        """
        level = check_alpha(level, "level")

        gs = separable_groups(self.theta_draws(), self.point, level)
        return [[self.data.items[i] for i in g] for g in gs]

    def prob_better(self) -> pd.DataFrame:
        r""":math:`\Pr(\theta_i > \theta_j)` for every pair (row item beats column item)."""
        P = prob_better(self.theta_draws())
        return pd.DataFrame(P, index=list(self.data.items), columns=list(self.data.items))

    def eta_draws(self, n_draws: int | None = None, random_seed: int | None = 0) -> np.ndarray:
        r"""(S, n) linear predictor :math:`\eta` of every comparison at posterior draws
        (``n_draws`` of them, drawn without replacement; all by default).
        """
        th = self.theta_draws()
        S = th.shape[0]
        idx = np.arange(S)
        if n_draws is not None and n_draws < S:
            idx = np.sort(np.random.default_rng(random_seed).choice(S, n_draws, replace=False))
        d = self.data
        eta = th[idx][:, d.first] - th[idx][:, d.second]
        names = self.bias_names
        if names:
            cov = [c for c in names if c != POSITION]
            F = d.X[:, [d.covariates.index(c) for c in cov]]
            if POSITION in names:
                F = np.column_stack([F, np.ones(d.n)])
            post = self.tree.posterior
            if "b_judge" in post:
                bj = post["b_judge"].values.reshape(-1, *post["b_judge"].shape[-2:])[idx]
                eta = eta + np.einsum("np,snp->sn", F, bj[:, d.judge, :])
            else:
                eta = eta + self.bias_draws()[idx] @ F.T
        post = self.tree.posterior
        if self.instance is not None and "instance_z" in post:
            u = post["instance_z"].values.reshape(-1, post["instance_z"].shape[-1])[idx]
            u = u * post["instance_sd"].values.reshape(-1)[idx, None]
            sign = np.where(d.first < d.second, 1.0, -1.0)
            eta = eta + sign * u[:, self.instance]
        return eta

    def summary(self, var_names: Sequence[str] | None = None) -> pd.DataFrame:
        """ArviZ summary of ``var_names`` (default: theta and the bias coefficients)."""
        if var_names:
            return super().summary(var_names)
        import arviz as az

        names = ("theta", "b", "b_judge", "nu", "instance_sd", "confusion")
        names = [v for v in names if v in self.tree.posterior]
        return az.summary(self.tree, var_names=names, kind="all" if self.diagnostics else "stats")


def _check_k(k: int, n: int) -> None:
    if not isinstance(k, int | np.integer) or not 1 <= k <= n:
        raise InputError(f"k must be an integer in 1..{n}, got {k!r}", field="k", value=k)
