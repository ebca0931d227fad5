"""One active ranking run: pairs chosen by the rule, the Bradley-Terry fit refitted as
verdicts arrive.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.ranking import PairwiseData
from judgebayes.errors import InputError
from judgebayes.inference.ranking.newton import bt_design, fit_map, laplace_draws
from judgebayes.inference.ranking.topk import top_k_probabilities, top_k_set
from judgebayes.workflows.active.oracles import (
    RULES,
    CallableOracle,
    MatrixOracle,
    _round_robin_pairs,
    acquisition_scores,
)


@dataclass
class ActiveResult:
    """Outcome of one active run.

    Attributes
    ----------
    first, second, y : ndarray
        Queried comparisons in order (presentation order as shown; y = NaN for a tie or
        a missing verdict, which is kept in the history but not in the fit).
    top_k : ndarray of int
        Point top-k of the final fit, best first.
    p_top_k : ndarray
        Final membership probabilities.
    theta : ndarray
        Final MAP quality.
    bias : ndarray
        Final MAP bias coefficients (empty for the naive model).
    recall : dict
        Budget -> top-k recall of the point set fitted on the first ``budget`` verdicts
        (only when ``truth`` was given).
    refits : int
        Laplace refits performed.
    seconds : float
    """

    first: np.ndarray
    second: np.ndarray
    y: np.ndarray
    top_k: np.ndarray
    p_top_k: np.ndarray
    theta: np.ndarray
    bias: np.ndarray
    recall: dict[int, float] = field(default_factory=dict)
    refits: int = 0
    seconds: float = 0.0

    def history(self):
        """The queries as a DataFrame (step, first, second, y)."""
        return pd.DataFrame(
            {
                "step": np.arange(1, self.first.size + 1),
                "first": self.first,
                "second": self.second,
                "y": self.y,
            }
        )


class _Fitter:
    def __init__(self, n_items, X, model, lam, lam_b, samples, rng, k):
        self.N = n_items
        self.X = X
        self.bias = model == "bias"
        self.lam, self.lam_b = lam, lam_b
        self.samples = samples
        self.rng = rng
        self.k = k
        self.beta = None
        self.refits = 0

    def data(self, a, b, y) -> PairwiseData:
        ok = ~np.isnan(y)
        a, b, y = a[ok], b[ok], y[ok]
        d = self.X.shape[1] if self.X is not None else 0
        Xd = self.X[a] - self.X[b] if d else np.zeros((a.size, 0))
        names = tuple(f"x{m}" for m in range(d))
        return PairwiseData(
            items=tuple(range(self.N)),
            first=a,
            second=b,
            y=y,
            judge=np.zeros(a.size, dtype=np.int64),
            judges=("judge",),
            X=Xd,
            covariates=names,
        )

    def fit(self, a, b, y):
        data = self.data(a, b, y)
        design = bt_design(data, bias=self.bias, lam=self.lam, lam_b=self.lam_b)
        res = fit_map(design, self.beta)
        self.beta = res.beta
        self.refits += 1
        return res

    def posterior(self, res):
        N = self.N
        cov = res.covariance()[:N, :N]
        draws = laplace_draws(res, self.samples, self.rng)[:, :N]
        offset, kappa = np.zeros(N), 0.0
        if self.bias:
            d = self.X.shape[1] if self.X is not None else 0
            if d:
                offset = self.X @ res.bias[:d]
            kappa = float(res.bias[d])
        return res.theta, cov, top_k_probabilities(draws, self.k), offset, kappa

    def prior(self):
        cov = np.eye(self.N) / self.lam
        return np.zeros(self.N), cov, np.full(self.N, self.k / self.N), np.zeros(self.N), 0.0


def _check_run(rule, model, k, N, budget, refit_every) -> None:
    """The rule, the model, the top-set size and the budget."""
    if rule not in RULES:
        raise InputError(f"rule must be one of {RULES}, got {rule!r}", field="rule", value=rule)
    if model not in ("bias", "naive"):
        raise InputError(
            f"model must be 'bias' or 'naive', got {model!r}", field="model", value=model
        )
    if not 1 <= k < N:
        raise InputError(f"k must be in 1..{N - 1}, got {k}", field="k", value=k)
    if budget < 1 or refit_every < 1:
        raise InputError("budget and refit_every must be >= 1", field="budget", value=budget)


def _standardised(item_covariates, N: int) -> np.ndarray | None:
    """The items' covariates, each centred and scaled (None without any)."""
    if item_covariates is None:
        return None
    X = np.asarray(item_covariates, dtype=float).reshape(N, -1)
    sd = X.std(axis=0)
    if np.any(sd == 0):
        raise InputError("an item covariate is constant", field="item_covariates", value=0)
    return (X - X.mean(axis=0)) / sd


def _recall(truth, sel, k: int) -> float | None:
    """The share of the true top ``k`` in ``sel`` (None without a truth)."""
    if truth is None:
        return None
    if hasattr(truth, "recall"):
        return float(truth.recall(sel))
    tt = set(np.asarray(truth).tolist())
    return len(set(sel.tolist()) & tt) / k


class _RoundRobin:
    """Pairs in a round-robin schedule, handed out in order, skipping those asked."""

    def __init__(self, order: list[int]):
        self.order, self.pos = order, 0

    def take(self, batch: int, queried: np.ndarray) -> np.ndarray:
        """The next ``batch`` pairs not yet asked (fewer when the schedule runs out)."""
        n_pairs = queried.size
        chosen: list[int] = []
        while len(chosen) < batch and self.pos < 10 * n_pairs:
            pid = self.order[self.pos % n_pairs]
            self.pos += 1
            if not queried[pid] and pid not in chosen:
                chosen.append(pid)
        return np.array(chosen, dtype=np.int64)


def _best(rule: str, state, free, batch: int, iu, ju, rng) -> np.ndarray:
    """The ``batch`` free pairs with the highest acquisition scores (ties broken at random)."""
    theta, cov, p_top, offset, kappa = state
    sc = acquisition_scores(rule, theta, cov, p_top, iu[free], ju[free], offset=offset, kappa=kappa)
    # random tie-break: lexsort by (random key, -score)
    order = np.lexsort((rng.random(free.size), -sc))
    return free[order[:batch]]


def _finished(fitter, first, second, y, k, truth, recall, t0) -> ActiveResult:
    """The run's last fit (the prior when no verdict came back), its top set and recall."""
    if np.any(~np.isnan(y)):
        res = fitter.fit(first, second, y)
        theta_hat, _, p_top, *_ = fitter.posterior(res)
        bias = res.bias.copy()
    else:
        theta_hat, _, p_top, *_ = fitter.prior()
        bias = np.zeros(0)
    top = top_k_set(theta_hat, k)
    if truth is not None:
        recall[y.size] = _recall(truth, top, k)
    return ActiveResult(
        first,
        second,
        y,
        top,
        p_top,
        theta_hat,
        bias,
        recall,
        fitter.refits,
        time.perf_counter() - t0,
    )


def run_active(
    oracle: MatrixOracle | CallableOracle | np.ndarray,
    *,
    k: int,
    budget: int,
    rule: str = "topk",
    model: str = "bias",
    item_covariates: np.ndarray | Sequence[float] | None = None,
    refit_every: int = 8,
    samples: int = 1500,
    lam: float = 1.0,
    lam_b: float = 0.1,
    allow_repeats: bool = False,
    truth: Any = None,
    record_at: Sequence[int] = (),
    seed: int | None = None,
) -> ActiveResult:
    """Run one budgeted active-acquisition loop.

    Parameters
    ----------
    oracle : MatrixOracle, CallableOracle or ndarray
        The judge; an (N, N) array is wrapped in a :class:`MatrixOracle`.
    k : int
        Size of the target set.
    budget : int
        Number of comparisons to query.
    rule : str
        One of :data:`RULES`.
    model : {"bias", "naive"}
        Bias-aware (covariates + position, Gaussian prior ``lam_b``) or naive model.
    item_covariates : array (N,) or (N, d), optional
        Item covariates (standardised here over the items); required for ``"bias"``
        only if there is a covariate bias to model (position is always modelled).
    refit_every : int
        Refit the Laplace posterior after this many verdicts (8 in the paper).
    samples : int
        Draws for the membership probabilities (S = 1500 in the paper).
    lam, lam_b : float
        Prior precisions of theta and of the bias coefficients (1 and 0.1 in the paper).
    allow_repeats : bool
        Allow a pair to be queried again once every pair has been queried (otherwise
        the loop stops early when the pairs run out).
    truth : SimulatedPairwise or array of int, optional
        Object with ``recall(selected)`` or the true top-k indices, for recall.
    record_at : sequence of int
        Budgets at which to record recall (the final budget is always recorded).
    seed : int, optional
        Seeds the strategy (presentation order, tie breaks, draws).
    """
    t0 = time.perf_counter()
    if not isinstance(oracle, MatrixOracle | CallableOracle):
        oracle = MatrixOracle(np.asarray(oracle))
    N = oracle.n_items
    _check_run(rule, model, k, N, budget, refit_every)
    rng = np.random.default_rng(seed)
    X = _standardised(item_covariates, N) if model == "bias" else None
    fitter = _Fitter(N, X, model, lam, lam_b, samples, rng, k)

    iu, ju = np.triu_indices(N, 1)
    n_pairs = iu.size
    queried = np.zeros(n_pairs, dtype=bool)
    pair_id = {(int(a), int(b)): t for t, (a, b) in enumerate(zip(iu, ju, strict=True))}
    rr = _RoundRobin(
        [pair_id[p] for p in _round_robin_pairs(N, rng)] if rule == "round_robin" else []
    )
    first = np.empty(budget, dtype=np.int64)
    second = np.empty(budget, dtype=np.int64)
    y = np.empty(budget)
    record = sorted({int(b) for b in record_at if 0 < b <= budget} | {budget})
    recall: dict[int, float] = {}

    state = fitter.prior()
    res = None
    t = 0
    while t < budget:
        if t > 0 and np.any(~np.isnan(y[:t])):
            res = fitter.fit(first[:t], second[:t], y[:t])
            state = fitter.posterior(res)
        if queried.all():
            if not allow_repeats:
                break
            queried[:] = False
        batch = min(refit_every, budget - t)
        free = np.flatnonzero(~queried)
        if rule == "random":
            chosen = rng.permutation(free)[:batch]
        elif rule == "round_robin":
            chosen = rr.take(batch, queried)
        else:
            chosen = _best(rule, state, free, batch, iu, ju, rng)
        for pid in chosen:
            a, b = int(iu[pid]), int(ju[pid])
            if rng.random() < 0.5:
                a, b = b, a
            first[t], second[t] = a, b
            y[t] = oracle(a, b)
            queried[pid] = True
            t += 1
            if t in record and truth is not None and t != budget:
                r = fitter.fit(first[:t], second[:t], y[:t])
                recall[t] = _recall(truth, top_k_set(r.theta, k), k)
        if len(chosen) == 0:
            break
    return _finished(fitter, first[:t], second[:t], y[:t], k, truth, recall, t0)
