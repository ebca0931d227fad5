r"""Bias-aware Bradley-Terry ranking: the user-facing study and its fits.

>>> ranking = PairwiseRanking.from_frames(comparisons, items, covariates=["length"])
>>> fit = ranking.fit(method="nuts", prior="horseshoe", random_seed=0)
>>> fit.top_k(5)  # P(item in top 5) per item
>>> fit.rank_intervals()  # rank median and 95% rank interval per item
>>> fit.bias_table()  # length and position coefficients with intervals

Methods
-------
``"naive"``
    Bradley-Terry without covariates or position (MAP + Laplace, analytic Newton).
``"laplace"``
    MAP + Laplace of the bias-aware model.  With ``prior="normal"`` (the paper's fixed
    precision) or ``"hierarchical"`` (empirical-Bayes tau) the analytic Newton engine
    of :mod:`judgebayes.inference.ranking.newton`; with ``"horseshoe"`` the generic
    Laplace of :mod:`judgebayes.inference.laplace` in PyMC's unconstrained space (a
    Gaussian there, so it cannot represent the horseshoe's spike-and-tail shape: use it
    to see where the approximation fails, not to report).
``"nuts"``
    NUTS (nutpie) on the PyMC model of :mod:`judgebayes.models.ranking`, any
    prior, with the convergence gate.
``"judge_error"``
    Judge-error-corrected ranking (needs human preferences on some comparisons:
    ``from_frames(..., human="human")``): Bradley-Terry on the *human* preference, each
    judge's verdict a noisy channel of it with its own confusion matrix, learned jointly
    with the qualities (:mod:`judgebayes.models.channel`), NUTS with the gate.
``"ppi"``
    Its frequentist comparator: prediction-powered Bradley-Terry (PPI++), the judges'
    verdicts as predictions of the human preference, with a sandwich covariance
    (:mod:`judgebayes.inference.ranking.ppi`; as ``ppi_py`` for two outcomes).

>>> ranking = PairwiseRanking.from_frames(judged, human="human", instance="pair_id")
>>> fit = ranking.fit("judge_error", random_seed=0)
>>> fit.channel_table()  # each judge's confusion matrix against the humans
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.channel import ChannelData, channel_from_frames
from judgebayes.data.frames import as_pandas, numeric_column
from judgebayes.data.ranking import (
    POSITION,
    IdentifiabilityReport,
    PairwiseData,
    component_labels,
    identifiability_report,
    pairwise_from_arrays,
    pairwise_from_frames,
    parse_pairs,
    warn_identifiability,
)
from judgebayes.errors import InputError, require_type, route_keywords
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.ranking.checks import predictive_check_table
from judgebayes.inference.ranking.newton import (
    bt_design,
    fit_map_empirical_bayes,
    laplace_draws,
    log_likelihood,
)
from judgebayes.inference.ranking.ppi import ppi_bradley_terry
from judgebayes.inference.ranking.topk import (
    expected_recall_set,
    identify,
    prob_better,
    rank_draws,
    rank_intervals,
    separable_groups,
    top_k_probabilities,
    top_k_set,
)
from judgebayes.inference.registry import check_count, check_seed
from judgebayes.models.channel import (
    channel_shift,
    channel_var_names,
    judge_channel_model,
    verdict_probs,
)
from judgebayes.models.ranking import PRIORS, RankingPriors, bradley_terry_model, bt_var_names
from judgebayes.results import Fit, check_alpha, tree
from judgebayes.studies.base import FitParts, Study, bonferroni

__all__ = ["PairwiseRanking", "RankingFit", "compare_loo", "compare_posteriors"]

#: methods that rank by the human preference, using the judges as noisy witnesses
CHANNEL_METHODS = ("judge_error", "ppi")


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
        return self.method if self.prior == "none" else f"{self.method}/{self.prior}"

    def channel_table(self, alpha: float = 0.05) -> pd.DataFrame:
        r"""Each judge's confusion matrix against the human preference (judge-error fits):
        :math:`\Pr(\text{verdict} = m \mid \text{human} = k)` with its ``1 - alpha``
        interval, one row per (judge, human outcome, verdict).
        """
        alpha = check_alpha(alpha, "alpha")
        post = self.idata.posterior
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
        th = self.idata.posterior["theta"].values
        return th.reshape(-1, th.shape[-1])

    def bias_draws(self) -> np.ndarray:
        """(S, P) shared bias coefficient draws (covariates then position)."""
        post = self.idata.posterior
        if "b" not in post:
            return np.zeros((self.theta_draws().shape[0], 0))
        b = post["b"].values
        return b.reshape(-1, b.shape[-1])

    @property
    def bias_names(self) -> list[str]:
        """Names of the bias coefficients."""
        post = self.idata.posterior
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
        post = self.idata.posterior
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
            post = self.idata.posterior
            if "b_judge" in post:
                bj = post["b_judge"].values.reshape(-1, *post["b_judge"].shape[-2:])[idx]
                eta = eta + np.einsum("np,snp->sn", F, bj[:, d.judge, :])
            else:
                eta = eta + self.bias_draws()[idx] @ F.T
        post = self.idata.posterior
        if self.instance is not None and "instance_z" in post:
            u = post["instance_z"].values.reshape(-1, post["instance_z"].shape[-1])[idx]
            u = u * post["instance_sd"].values.reshape(-1)[idx, None]
            sign = np.where(d.first < d.second, 1.0, -1.0)
            eta = eta + sign * u[:, self.instance]
        return eta

    def check(
        self,
        *,
        instance: Sequence[int] | None = None,
        draws: int = 500,
        random_seed: int | None = 0,
    ) -> pd.DataFrame:
        r"""Posterior predictive checks of the fitted verdicts.

        Rows ``win_matrix`` (chi-square discrepancy of each pair's scores, p-value
        :math:`\Pr(T^{rep} \ge T)`), ``intransitive`` (3-cycles of the majority graph)
        and, with ``instance`` (one id per kept comparison, shared by the two
        presentation orders of one instance), ``order_swap`` (share of both-order
        instances where the same item wins twice).  See
        :mod:`judgebayes.inference.ranking.checks`.  ``df.attrs["pairs"]`` holds the
        per-pair observed score share and its 95% predictive interval.
        """
        self._require_draws("a predictive check")
        if self.method in CHANNEL_METHODS:
            raise InputError(
                f"a {self.method!r} fit ranks by the human preference, and its verdicts are "
                "the judges'; the predictive checks of judge verdicts apply to the "
                "naive, laplace and nuts fits",
                field="method",
                value=self.method,
            )
        random_seed = check_seed(random_seed)
        check_count(draws, "draws")
        d = self.data
        inst = None
        if instance is not None:
            inst = np.asarray(instance)
            if inst.shape != (d.n,):
                raise InputError(
                    f"instance needs one id per kept comparison ({d.n}), got {inst.shape}",
                    field="instance",
                    value=inst.shape,
                )
            inst = np.unique(inst, return_inverse=True)[1]
        eta = self.eta_draws(draws, random_seed)
        nu = None
        if "nu" in self.idata.posterior:
            nu_all = self.idata.posterior["nu"].values.ravel()
            S = nu_all.size
            idx = np.arange(S)
            if draws < S:
                idx = np.sort(np.random.default_rng(random_seed).choice(S, draws, replace=False))
            nu = nu_all[idx]
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 1])
        rows, pairs = predictive_check_table(
            d.y, d.first, d.second, d.n_items, eta, nu, rng, instance=inst
        )
        df = pd.DataFrame(rows).set_index("statistic")
        pt = pd.DataFrame(pairs)
        pt["item_a"] = [d.items[i] for i in pt.pop("lo")]
        pt["item_b"] = [d.items[i] for i in pt.pop("hi")]
        pt["outside"] = (pt["observed"] < pt["lower"]) | (pt["observed"] > pt["upper"])
        df.attrs["pairs"] = pt.set_index(["item_a", "item_b"])
        return df

    def summary(self, var_names: Sequence[str] | None = None) -> pd.DataFrame:
        """ArviZ summary of ``var_names`` (default: theta and the bias coefficients)."""
        if var_names:
            return super().summary(var_names)
        import arviz as az

        names = ("theta", "b", "b_judge", "nu", "instance_sd", "confusion")
        names = [v for v in names if v in self.idata.posterior]
        return az.summary(self.idata, var_names=names, kind="all" if self.diagnostics else "stats")


def _check_k(k: int, n: int) -> None:
    if not isinstance(k, int | np.integer) or not 1 <= k <= n:
        raise InputError(f"k must be an integer in 1..{n}, got {k!r}", field="k", value=k)


# ------------------------------------------------------------------ study
def _row_covariates(comparisons, data: PairwiseData, parsed) -> tuple[tuple[str, ...], np.ndarray]:
    """Every row's standardised covariate differences (first minus second), on the scales
    of ``data``: the judge channel's covariates (an instance takes its first row's).
    """
    df = as_pandas(comparisons, "comparisons")
    index = {v: i for i, v in enumerate(data.items)}
    a = np.array([index[v] for v in parsed.first], dtype=np.int64)
    b = np.array([index[v] for v in parsed.second], dtype=np.int64)
    cols, k = [], 0
    for name in data.covariates:
        _, sd, kind = data.scales[name]
        if kind == "item":
            z = data.item_X[:, k]
            k += 1
            cols.append(z[a] - z[b])
        else:
            va = numeric_column(df[f"{name}_first"], f"{name}_first")
            vb = numeric_column(df[f"{name}_second"], f"{name}_second")
            cols.append((va - vb) / sd)
    X = np.column_stack(cols) if cols else np.zeros((len(df), 0))
    return tuple(data.covariates), X


class PairwiseRanking(Study):
    """Pairwise verdicts of one or several judges, ready to fit.

    Parameters
    ----------
    data : PairwiseData
        Validated verdicts (use :meth:`from_frames` or :meth:`from_arrays`).
    """

    family = "ranking"
    fit_type = RankingFit
    default_method = "laplace"
    default_methods = ("naive", "laplace", "nuts")

    def __init__(
        self,
        data: PairwiseData,
        *,
        priors: RankingPriors | None = None,
        channel: ChannelData | None = None,
    ):
        self.data = require_type(data, PairwiseData, "data", "use from_frames / from_arrays")
        self.priors = (
            RankingPriors() if priors is None else require_type(priors, RankingPriors, "priors")
        )
        if channel is not None:
            channel = require_type(channel, ChannelData, "channel")
            if channel.items != self.data.items:
                channel = channel.with_items(self.data.items)
        self.channel = channel

    # constructors ------------------------------------------------------
    @classmethod
    def from_frames(
        cls,
        comparisons: pd.DataFrame,
        items: pd.DataFrame | None = None,
        *,
        covariates: Sequence[str] = (),
        ties: str = "davidson",
        priors: RankingPriors | None = None,
        human: str | None = None,
        instance: str | None = None,
        **columns: Any,
    ) -> PairwiseRanking:
        """From the comparisons and items frames of the DESIGN contract.

        See :func:`judgebayes.data.ranking.pairwise_from_frames` for the columns.  Ties
        (counted in ``data.n_ties``) are a third outcome of Davidson's model by default;
        ``ties="drop"`` drops them and ``ties="half"`` counts them as half a win (the
        practitioners' comparator, not a probability model).

        With ``human`` (a column: the human's preferred item, ``"tie"``, or missing where
        no human labelled the comparison) the study also holds the judge-error data
        (``self.channel``, see :func:`judgebayes.data.channel.channel_from_frames`) for
        ``method="judge_error"`` and ``"ppi"``; ``instance`` names the column that ties
        several judges' rows on the same comparison together.
        """
        (columns,) = route_keywords("PairwiseRanking.from_frames", columns, pairwise_from_frames)
        keys = ("first", "second", "winner", "judge")
        parsed = parse_pairs(comparisons, **{k: v for k, v in columns.items() if k in keys})
        data = pairwise_from_frames(
            comparisons, items, covariates=covariates, ties=ties, parsed=parsed, **columns
        )
        channel = None
        if human is not None:
            channel = channel_from_frames(
                comparisons,
                human=human,
                instance=instance,
                items=data.items,
                ties=ties,
                parsed=parsed,
                row_covariates=_row_covariates(comparisons, data, parsed),
            )
        elif instance is not None:
            raise InputError(
                "instance links the rows of one comparison for the judge-error ranking; "
                "it needs human= (the column of human preferences) too",
                field="instance",
                value=instance,
            )
        return cls(data, priors=priors, channel=channel)

    def with_labelled(self, mask: Sequence[bool] | np.ndarray) -> PairwiseRanking:
        """The same study with human labels used only on the instances where ``mask`` is
        true (order of ``self.channel.instance_ids``): a labelled subset of a fully
        labelled set, e.g. to measure what a small human budget buys.
        """
        ch = self._require_channel("with_labelled")
        return PairwiseRanking(self.data, priors=self.priors, channel=ch.with_labelled(mask))

    def human_only(self) -> PairwiseRanking:
        """The human preferences of the labelled instances as a study of their own (one
        verdict per instance, judge ``"human"``): the ranking a small human budget gives
        without the judges.
        """
        ch = self._require_channel("human_only")
        m = ch.human >= 0
        code = ch.human[m]
        y = np.where(code == 0, 1.0, np.where(code == 1, 0.0, 0.5))
        ties = "davidson" if ch.n_outcomes == 3 else "drop"
        data = pairwise_from_arrays(
            ch.first[m], ch.second[m], y, items=self.data.items, judges=("human",), ties=ties
        )
        return PairwiseRanking(data, priors=self.priors)

    def _require_channel(self, what: str) -> ChannelData:
        if self.channel is None:
            raise InputError(
                f"{what} needs human preferences on some comparisons: build the study with "
                "from_frames(..., human='<column>')",
                field="human",
                value=None,
            )
        return self.channel

    @classmethod
    def from_arrays(
        cls, first, second, y, *, priors: RankingPriors | None = None, **kwargs: Any
    ) -> PairwiseRanking:
        """From integer arrays; see :func:`judgebayes.data.ranking.pairwise_from_arrays`."""
        (kwargs,) = route_keywords("PairwiseRanking.from_arrays", kwargs, pairwise_from_arrays)
        return cls(pairwise_from_arrays(first, second, y, **kwargs), priors=priors)

    # checks ------------------------------------------------------------
    def identifiability(self) -> IdentifiabilityReport:
        """Which parameters the design identifies (see :func:`identifiability_report`)."""
        return identifiability_report(self.data)

    # fitting -----------------------------------------------------------
    def learns_spread(self, prior: str) -> bool:
        """Whether the default fit learns the qualities' spread: when the bias-aware model
        has an item-level covariate (its coefficient is identified through the spread).
        """
        return prior != "none" and any(v[2] == "item" for v in self.data.scales.values())

    def model_spec(
        self,
        prior: str = "horseshoe",
        *,
        position: bool = True,
        theta: str = "prior",
        learn_spread: bool | None = None,
        instance: np.ndarray | None = None,
    ):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of a PyMC model
        (``instance``: an index 0..I-1 per comparison for the instance effect).
        """
        d = self.data if prior != "none" else self.data.without_covariates()
        data = {"first": d.first, "second": d.second, "y": d.y, "X": d.X, "judge": d.judge}
        n_inst = 0
        if instance is not None:
            data["instance"] = np.asarray(instance, dtype=np.int64)
            n_inst = int(data["instance"].max()) + 1
        return ModelSpec(
            builder=bradley_terry_model,
            data=data,
            structure={
                "n_instances": n_inst,
                "items": d.items,
                "covariates": d.covariates,
                "judges": d.judges,
                "prior": prior,
                "position": position,
                "theta": theta,
                "half_ties": d.has_ties and d.ties == "half",
                "davidson": d.has_ties and d.ties == "davidson",
                "learn_spread": (
                    self.learns_spread(prior) if learn_spread is None else bool(learn_spread)
                )
                and theta == "prior",
                "priors": self.priors,
            },
            var_names=bt_var_names(
                prior, len(d.judges), davidson=d.has_ties and d.ties == "davidson"
            ),
        )

    def build_model(self, prior: str = "horseshoe", **kwargs: Any):
        """The PyMC model (not sampled)."""
        return self.model_spec(prior, **kwargs).build()

    def fit(
        self,
        method: str | None = None,
        prior: str | None = None,
        *,
        random_seed: int | None = None,
        **options: Any,
    ) -> RankingFit:
        """Fit one model (:meth:`Study.fit <judgebayes.studies.base.Study.fit>`).

        ``prior`` may come second, positionally (``ranking.fit("nuts", "normal")``): the
        bias prior of the ``laplace`` and ``nuts`` methods (default ``"normal"`` for
        Laplace, the paper's lambda_b = 0.1, and ``"horseshoe"`` for NUTS), whose settings
        are the study's :class:`~judgebayes.models.ranking.RankingPriors`.  The
        methods without bias terms (``naive``, ``judge_error``, ``ppi``) take no prior.
        ``ranking.methods.describe()`` lists every method's keywords.
        """
        name = self.methods.resolve(self.default_method if method is None else method).name
        if prior is not None:
            if "prior" in self.methods[name].options:
                options["prior"] = prior
            elif prior != "none":
                raise InputError(
                    f"method {name!r} has no bias terms, so no bias prior; got "
                    f"prior={prior!r} (use method='laplace' or 'nuts' for a bias-aware fit)",
                    field="prior",
                    value=prior,
                )
        return super().fit(name, random_seed=random_seed, **options)

    def _attrs(self, method, parts: FitParts) -> dict:
        return {
            "bias_prior": parts.extra.get("prior", "none"),
            "position": parts.info.get("position", False),
            "identification": parts.info["identification"],
        }

    def _uses_priors(self, method) -> bool:
        return True

    def _checked(
        self, prior: str, *, warn: bool, position: bool, reference, spread=None
    ) -> tuple[str, bool]:
        """The checks common to the Bradley-Terry methods: the prior and the reference are
        known, there is something to fit, identifiability is reported; returns (prior,
        learn the qualities' spread).
        """
        if prior not in PRIORS:
            raise InputError(
                f"prior must be one of {PRIORS}, got {prior!r}", field="prior", value=prior
            )
        if self.data.n == 0:
            raise InputError("there are no comparisons to fit", field="comparisons", value=0)
        self._check_reference(reference)
        if spread not in (None, "learned", "fixed"):
            raise InputError(
                f"theta_spread must be 'learned' or 'fixed', got {spread!r}",
                field="theta_spread",
                value=spread,
            )
        if warn:
            warn_identifiability(
                self.data if prior != "none" else self.data.without_covariates(),
                position=prior != "none" and position,
            )
        return prior, self.learns_spread(prior) if spread is None else spread == "learned"

    def _check_reference(self, reference) -> None:
        if reference is not None and reference not in self.data.items:
            raise InputError(
                f"reference must be one of the items {list(self.data.items)[:10]}"
                f"{' ...' if self.data.n_items > 10 else ''}; got {reference!r}",
                field="reference",
                value=reference,
            )

    def _identified(self, parts: FitParts, reference: str | None, pairs) -> FitParts:
        """``parts`` with theta on the identified scale (draws, point, info, notes);
        ``pairs`` (first, second) are the comparisons that connect the items.
        """
        d = self.data
        comps = component_labels(d.n_items, *pairs)
        ref = None if reference is None else d.items.index(reference)
        post = parts.idata.posterior
        post["theta"] = post["theta"].copy(data=identify(post["theta"].values, comps, ref))
        if parts.point is not None:
            parts.point = identify(np.asarray(parts.point)[None, :], comps, ref)[0]
        n_comp = int(comps.max(initial=-1) + 1)
        if n_comp > 1:
            parts.notes += (
                f"the comparison graph has {n_comp} connected components: qualities are "
                "identified within each (sum to zero"
                + ("" if ref is None else ", or relative to the reference in its own")
                + "); differences across components are set by the prior alone",
            )
        parts.info |= {
            "identification": "sum_to_zero" if ref is None else f"reference={reference}",
            "components": n_comp,
        }
        parts.extra.setdefault("data", self.data)
        return parts

    def judge_bias_terms(self, judge_bias: Any = "auto") -> tuple[tuple[str, ...], bool]:
        """The channel's terms for ``judge_bias`` (see method ``judge_error``): the
        covariates it uses, and whether judges may favour items.
        """
        ch = self._require_channel("the judge-error model")
        if isinstance(judge_bias, str) and judge_bias in ("auto", "none"):
            return (ch.covariates, True) if judge_bias == "auto" else ((), False)
        terms = (judge_bias,) if isinstance(judge_bias, str) else tuple(judge_bias)
        valid = (*ch.covariates, "items")
        for t in terms:
            if t not in valid:
                raise InputError(
                    f"judge_bias: {t!r} is neither 'items' nor a covariate of this study "
                    f"(valid: 'auto', 'none' or some of {list(valid)})",
                    field="judge_bias",
                    value=t,
                )
        return tuple(c for c in ch.covariates if c in terms), "items" in terms

    def channel_spec(self, *, complete: bool = False, judge_bias: Any = "none"):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of the judge-error model
        (``complete``: see :meth:`~judgebayes.data.channel.ChannelData.groups`;
        ``judge_bias``: see method ``judge_error``; default the constant channel).
        """
        ch = self._require_channel("the judge-error model")
        covs, favour = self.judge_bias_terms(judge_bias)
        used = ch.without_covariates()
        if covs:
            cols = [ch.covariates.index(c) for c in covs]
            used = replace(used, X=ch.X[:, cols], covariates=covs)
        pr = self.priors
        structure = {
            "items": ch.items,
            "judges": ch.judges,
            "n_outcomes": ch.n_outcomes,
            "lam": pr.lam,
            "lam_nu": pr.lam_nu,
            "confusion_diag": pr.confusion_diag,
            "confusion_off": pr.confusion_off,
        }
        if covs or favour:
            structure |= {
                "channel_covariates": covs,
                "favour": favour,
                "coef_sd": pr.channel_coef_sd,
                "favour_scale": pr.favour_scale,
            }
        return ModelSpec(
            builder=judge_channel_model,
            data=used.groups(complete=complete),
            structure=structure,
            var_names=channel_var_names(ch.n_outcomes, bool(covs), favour),
        )

    def _channel_info(self) -> dict[str, Any]:
        ch = self.channel
        return {
            "n_instances": ch.n_instances,
            "n_labelled": ch.n_labelled,
            "n_outcomes": ch.n_outcomes,
            "dropped": dict(ch.dropped),
        }

    def _channel_notes(self) -> tuple[str, ...]:
        ch = self.channel
        notes = []
        if ch.dropped["judge_ties"] or ch.dropped["human_ties"]:
            notes.append(
                f"ties dropped: {ch.dropped['judge_ties']} judge verdict(s) and "
                f"{ch.dropped['human_ties']} human-tied instance(s)"
            )
        if ch.dropped["no_verdict"]:
            notes.append(
                f"{ch.dropped['no_verdict']} instance(s) with neither a verdict nor a human "
                "label left out"
            )
        return tuple(notes)

    def _instance_index(self, instance) -> np.ndarray | None:
        """``instance`` ids (one per kept comparison) as an index 0..I-1, checked."""
        if instance is None:
            return None
        ids = np.asarray(instance)
        if ids.shape != (self.data.n,):
            raise InputError(
                f"instance needs one id per kept comparison ({self.data.n}), got {ids.shape}",
                field="instance",
                value=ids.shape,
            )
        inv = np.unique(ids, return_inverse=True)[1].ravel()
        d = self.data
        lo, hi = np.minimum(d.first, d.second), np.maximum(d.first, d.second)
        head = np.zeros(inv.max() + 1, dtype=np.int64)
        head[inv[::-1]] = np.arange(inv.size)[::-1]  # first comparison of each instance
        bad = (lo != lo[head[inv]]) | (hi != hi[head[inv]])
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"instance {ids[r]!r} shows two different pairs (comparison {r}); the "
                "comparisons of one instance are the presentation orders of one pair",
                field="instance",
                value=str(ids[r]),
            )
        return inv


# ------------------------------------------------------------------ comparisons
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


# =========================================================================== methods


@PairwiseRanking.methods.register("naive", engine="newton", summary="plain BT")
def _naive(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    draws: int = 1500,
    log_likelihood: bool = False,
    warn: bool = True,
    reference: str | None = None,
) -> FitParts:
    """Bradley-Terry without covariates or position: Newton MAP, ``draws`` Laplace draws;
    ``reference`` reports qualities relative to that item (default: sum to zero).
    """
    ranking._checked("none", warn=warn, position=False, reference=reference)
    parts = _newton(ranking, "none", False, draws, random_seed, log_likelihood, False)
    return ranking._identified(parts, reference, (ranking.data.first, ranking.data.second))


@PairwiseRanking.methods.register(
    "laplace", engine="newton", summary="bias-aware BT, MAP + Laplace"
)
def _laplace(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    prior: str = "normal",
    draws: int = 1500,
    position: bool = True,
    log_likelihood: bool = False,
    warn: bool = True,
    theta: str = "prior",
    reference: str | None = None,
    theta_spread: str | None = None,
) -> FitParts:
    """The bias-aware model at its mode with ``draws`` Laplace draws: Newton's method with
    the exact Hessian for the ``normal`` and ``hierarchical`` priors, PyMC's unconstrained
    space for the ``horseshoe`` (to see where a Gaussian fails, not to report).
    ``theta_spread``: learn the qualities' spread (default: when an item-level covariate
    is in the model) or keep it fixed.
    """
    prior, learn = ranking._checked(
        prior, warn=warn, position=position, reference=reference, spread=theta_spread
    )
    if prior in ("normal", "hierarchical"):
        parts = _newton(ranking, prior, position, draws, random_seed, log_likelihood, learn)
    else:
        spec = ranking.model_spec(prior, position=position, theta=theta, learn_spread=learn)
        # the plain Gaussian: the importance check of the accuracy family is not run on the
        # ranking models (their Laplace fits are compared with NUTS in the tests)
        parts = ranking._laplace(spec, random_seed, draws=draws, importance=False)
        # the mode of theta: draws are symmetric around it in the unconstrained space
        parts.point = np.asarray(parts.idata.posterior["theta"].median(("chain", "draw")).values)
        parts.extra = {"prior": prior}
    parts.info["position"] = position
    return ranking._identified(parts, reference, (ranking.data.first, ranking.data.second))


def _newton(ranking, prior, position, draws, seed, loglik, learn_spread) -> FitParts:
    """The Gaussian-prior Bradley-Terry fit of the Newton engine, as fit parts."""
    d = ranking.data
    pr = ranking.priors
    design = bt_design(
        d,
        bias=prior != "none",
        position=position,
        lam=pr.lam,
        lam_b=pr.lam_b,
        lam_judge=pr.lam_judge,
        lam_nu=pr.lam_nu,
    )
    res = fit_map_empirical_bayes(
        design, learn_bias=prior == "hierarchical", learn_theta=learn_spread
    )
    beta = laplace_draws(res, draws, np.random.default_rng(seed))
    N = d.n_items
    post: dict[str, np.ndarray] = {"theta": beta[None, :, :N]}
    coords: dict[str, list] = {"item": list(d.items)}
    dims: dict[str, list[str]] = {"theta": ["item"]}
    shared = np.flatnonzero(design.bias_level == "shared")
    if shared.size:
        b = beta[:, N + shared]
        post["b"] = b[None]
        coords["bias"] = [design.bias_names[i] for i in shared]
        dims["b"] = ["bias"]
        J = len(d.judges)
        if J > 1:
            judge_cols = N + np.flatnonzero(design.bias_level == "judge")
            dev = beta[:, judge_cols].reshape(draws, J, shared.size)
            post["b_judge"] = (b[:, None, :] + dev)[None]
            coords["judge"] = list(d.judges)
            dims["b_judge"] = ["judge", "bias"]
    if design.davidson:
        post["nu"] = np.exp(beta[None, :, -1])
    groups: dict[str, dict] = {"posterior": post}
    if loglik:
        groups |= {
            "log_likelihood": {"y": log_likelihood(design, beta)[None]},
            "observed_data": {"y": d.y},
        }
        coords["comparison"] = list(range(d.n))
        dims["y"] = ["comparison"]
    info = {"iterations": res.iterations, "objective": res.objective, "draws": draws}
    if prior == "hierarchical" and res.lam_b is not None:
        info["lam_b"] = res.lam_b
        info["tau_b"] = float(1 / np.sqrt(res.lam_b))
    if res.lam_theta is not None:
        info["theta_sd"] = float(1 / np.sqrt(res.lam_theta))
    return FitParts(
        tree(groups, coords=coords, dims=dims),
        info=info,
        point=res.theta.copy(),
        extra={"prior": prior, "map_result": res},
    )


@PairwiseRanking.methods.register("nuts", engine="nuts", summary="bias-aware BT, NUTS", mcmc=True)
def _nuts(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    prior: str = "horseshoe",
    sampler=None,
    position: bool = True,
    log_likelihood: bool = False,
    warn: bool = True,
    theta: str = "prior",
    reference: str | None = None,
    theta_spread: str | None = None,
    instance: Sequence | None = None,
    prior_draws: int = 0,
) -> FitParts:
    """NUTS on the bias-aware model with any ``prior`` (the regularized horseshoe by
    default).  ``instance`` (one id per kept comparison): the comparisons of one id (the
    two presentation orders of a pair) share an instance effect, a deviation of that pair's
    quality difference with a learned sd (``instance_sd``).
    """
    prior, learn = ranking._checked(
        prior, warn=warn, position=position, reference=reference, spread=theta_spread
    )
    inst = ranking._instance_index(instance)
    spec = ranking.model_spec(
        prior, position=position, theta=theta, learn_spread=learn, instance=inst
    )
    model = f"ranking.{prior}" if prior in ("horseshoe", "hierarchical") else "ranking"
    if inst is not None and model == "ranking":
        model = "ranking.instance"
    parts = ranking._nuts(
        spec, model, sampler, random_seed, log_likelihood=log_likelihood, prior_draws=prior_draws
    )
    if inst is not None:
        parts.notes = (
            f"instance effect on {int(inst.max()) + 1} instances: the two presentation "
            "orders of a pair share one deviation of its quality difference",
        )
    parts.info["position"] = position
    parts.extra = {"prior": prior, "instance": inst}
    return ranking._identified(parts, reference, (ranking.data.first, ranking.data.second))


@PairwiseRanking.methods.register(
    "judge_error",
    engine="nuts",
    summary="BT on human preferences, judges as noisy channels, NUTS",
    mcmc=True,
)
def _judge_error(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    sampler=None,
    reference: str | None = None,
    warn: bool = True,
    prior_draws: int = 0,
    judge_bias: Any = "auto",
) -> FitParts:
    """Rank by the human preference, each judge's verdict a noisy channel of it (a confusion
    matrix per judge, learned with the qualities from the labelled comparisons).

    ``judge_bias``: what the judge's errors may depend on (:mod:`judgebayes.models.channel`):
    ``"auto"`` (default) the study's covariates and the items (a judge may favour some
    systems' answers: self-preference), ``"none"`` one confusion matrix for every
    comparison, or a list of covariate names and/or ``"items"``.
    """
    ch = ranking._require_channel("method 'judge_error'")
    ranking._check_reference(reference)
    covs, favour = ranking.judge_bias_terms(judge_bias)
    parts = ranking._nuts(
        ranking.channel_spec(judge_bias=judge_bias),
        "ranking.judge_error.bias" if covs or favour else "ranking.judge_error",
        sampler,
        random_seed,
        prior_draws=prior_draws,
    )
    parts.info |= ranking._channel_info() | {
        "channel_covariates": list(covs),
        "judge_favours_items": favour,
    }
    parts.notes = ranking._channel_notes()
    unused = [c for c in ranking.data.covariates if c not in covs]
    if unused:
        parts.notes = (
            *parts.notes,
            f"the judge channel does not use the covariates {unused} (judge_bias="
            f"{judge_bias!r}); study.check(fit)'s 'channel' rows test that on the labelled "
            "comparisons",
        )
    return ranking._identified(parts, reference, (ch.first, ch.second))


@PairwiseRanking.methods.register(
    "ppi", engine="closed_form", summary="prediction-powered BT (PPI++), sandwich"
)
def _ppi(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    draws: int = 1500,
    reference: str | None = None,
    power_tuning: bool = True,
    warn: bool = True,
) -> FitParts:
    """Prediction-powered Bradley-Terry: the judges' verdicts as predictions of the human
    preference, PPI++ (``power_tuning``; False: PPI, lambda = 1), a sandwich covariance and
    ``draws`` draws of its normal.
    """
    ch = ranking._require_channel("method 'ppi'")
    ranking._check_reference(reference)
    K = ch.n_outcomes
    has_v = (ch.verdicts >= 0).any(axis=1)
    counts = np.stack([(ch.verdicts == k).sum(axis=1) for k in range(K)], axis=1)
    pred = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    lab = (ch.human >= 0) & has_v
    unl = (ch.human < 0) & has_v
    res = ppi_bradley_terry(
        ch.first[lab],
        ch.second[lab],
        np.eye(K)[ch.human[lab]],
        pred[lab],
        ch.first[unl],
        ch.second[unl],
        pred[unl],
        len(ch.items),
        lam=None if power_tuning else 1.0,
    )
    th, log_nu = res.draws(draws, np.random.default_rng(random_seed))
    post: dict[str, np.ndarray] = {"theta": th[None]}
    if log_nu is not None:
        post["nu"] = np.exp(log_nu)[None]
    notes = ranking._channel_notes()
    n_skip = int(np.sum((ch.human >= 0) & ~has_v))
    if n_skip:
        notes += (
            f"{n_skip} labelled instance(s) without a judge verdict left out (PPI needs "
            "a prediction on every labelled comparison)",
        )
    parts = FitParts(
        tree({"posterior": post}, coords={"item": list(ch.items)}, dims={"theta": ["item"]}),
        info={
            **ranking._channel_info(),
            "lam": res.lam,
            "n": res.n,
            "N": res.N,
            "iterations": res.iterations,
            "draws": draws,
        },
        notes=notes,
        point=res.theta.copy(),
    )
    return ranking._identified(parts, reference, (ch.first, ch.second))


# =========================================================================== checks


@PairwiseRanking.checks.register(
    "pairs",
    needs="draws",
    summary="win matrix, intransitive cycles (and the order swap given instances)",
    accepts=lambda fit: fit.method not in CHANNEL_METHODS,
)
def _pair_checks(ranking: PairwiseRanking, fit, *, alpha: float) -> pd.DataFrame:
    t = fit.check(instance=fit.instance)
    return pd.DataFrame(
        {
            "unit": t.index.astype(str),
            "observed": t["observed"].to_numpy(float),
            "expected": t["expected"].to_numpy(float) if "expected" in t else np.nan,
            "p_value": t["p_value"].to_numpy(float),
            "flagged": t["p_value"].to_numpy(float) < alpha,
        }
    )


#: labelled verdicts a (judge, item, preferred or not) cell needs to be checked
CHANNEL_CHECK_MIN = 10


@PairwiseRanking.checks.register(
    "channel",
    needs="draws",
    summary="judge agreement with the human, by item and whether the human preferred it",
    accepts=lambda fit: fit.method == "judge_error",
)
def _channel_check(ranking: PairwiseRanking, fit, *, alpha: float) -> pd.DataFrame:
    r"""Posterior predictive check of the judge channel on the labelled comparisons.

    The fit's channel (one confusion matrix per judge, shifted by the covariates and item
    favouritism it was given: :mod:`judgebayes.models.channel`) predicts how often each
    labelled verdict agrees with the human.  A judge whose errors depend on what the fit
    left out (it favours the longer answer, or a system of its own model family) agrees
    with the human more when the human preferred that answer and less when the human
    preferred its opponent.  Cells: for every judge and item, the labelled comparisons
    with that item (human ties left out) split by whether the human preferred it; and for
    every covariate of the study, the labelled comparisons in thirds of the preferred
    answer's side of the difference.  With at least :data:`CHANNEL_CHECK_MIN` verdicts in
    a cell, ``observed`` is the count of verdicts equal to the human's and ``expected``
    its posterior predictive mean, each verdict replicated from its draw's
    :math:`\Pr(\text{verdict} = h \mid \text{human} = h, \text{shift})`; ``p_value`` is
    the two-sided predictive p-value, Bonferroni-adjusted over the rows.
    """
    ch = ranking.channel
    post = fit.idata.posterior
    rng = np.random.default_rng(0)
    keep = None
    draws = {}
    for name in ("confusion", "channel_coef", "favour"):
        if name in post:
            x = post[name].values
            x = x.reshape(-1, *x.shape[2:])
            if keep is None:
                keep = rng.choice(x.shape[0], size=min(1000, x.shape[0]), replace=False)
            draws[name] = x[keep]
    conf = draws["confusion"]
    covs = list(post["channel_covariate"].values) if "channel_coef" in post else []
    X = ch.X[:, [ch.covariates.index(c) for c in covs]]
    preferred = np.where(ch.human == 0, ch.first, np.where(ch.human == 1, ch.second, -1))
    rows = []
    for j, judge in enumerate(ch.judges):
        usable = (preferred >= 0) & (ch.verdicts[:, j] >= 0)
        cells = []
        for i, item in enumerate(ch.items):
            has = usable & ((ch.first == i) | (ch.second == i))
            for won in (True, False):
                what = "preferred" if won else "not preferred"
                mask = has & ((preferred == i) == won)
                cells.append((f"{judge}: {item}, {what} by the human", mask))
        # every covariate of the study, used by the channel or not: the preferred answer's
        # side of the difference, in thirds over the usable labelled verdicts
        for c, name in enumerate(ch.covariates):
            signed = np.where(ch.human == 0, ch.X[:, c], -ch.X[:, c])
            if usable.sum() < 3 * CHANNEL_CHECK_MIN:
                continue
            cuts = np.quantile(signed[usable], [1 / 3, 2 / 3])
            third = np.searchsorted(cuts, signed, side="right")
            for t, label in enumerate(("lowest", "middle", "highest")):
                cells.append(
                    (
                        f"{judge}: {name} of the preferred answer, {label} third",
                        usable & (third == t),
                    )
                )
        for unit, mask in cells:
            idx = np.flatnonzero(mask)
            if idx.size < CHANNEL_CHECK_MIN:
                continue
            h = ch.human[idx]
            shift = channel_shift(draws, X[idx], ch.first[idx], ch.second[idx], j)
            probs = verdict_probs(conf[:, j, h, :], shift)  # (draws, n, verdict)
            agree = np.take_along_axis(probs, h[None, :, None], -1)[..., 0]
            rep = (rng.random(agree.shape) < agree).sum(1)
            obs = int(np.sum(ch.verdicts[idx, j] == h))
            p = 2 * min(np.mean(rep >= obs), np.mean(rep <= obs))
            rows.append(
                {
                    "unit": unit,
                    "observed": float(obs),
                    "expected": float(agree.sum(1).mean()),
                    "p_raw": float(min(1.0, p)),
                    "n": int(idx.size),
                }
            )
    return bonferroni(rows, alpha)
