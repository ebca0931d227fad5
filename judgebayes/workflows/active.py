r"""Active acquisition of pairwise comparisons for top-k identification (Xu et al., Alg. 1).

After every ``refit_every`` verdicts the Laplace posterior
:math:`N(\hat\beta, H^{-1})` of the naive or bias-aware model is refitted (Newton,
warm-started), :math:`S` draws of :math:`\theta` give the membership probabilities
:math:`p_i = \Pr(i \in S_k)`, and every unqueried unordered pair is scored by

.. math::
    s(i, j) = I_{ij}\;
    \operatorname{Var}(\theta_i - \theta_j)\;
    \big(\mathcal H(p_i) + \mathcal H(p_j)\big),
    \qquad I_{ij} = \tfrac12\big[\sigma'(\hat\eta_{ij}^{+}) + \sigma'(\hat\eta_{ij}^{-})\big],

(``rule="topk"``), where :math:`\hat\eta^{\pm}_{ij} = \hat\theta_i - \hat\theta_j +
\hat c^\top(x_i - x_j) \pm \hat\kappa` is the full linear predictor in the two
presentation orders (each is shown with probability 1/2) and :math:`\sigma' =
\sigma(1-\sigma)` is a verdict's Fisher information about the quality difference.  The
paper's score uses :math:`\sigma'(\hat\theta_i - \hat\theta_j)`, the quality difference
alone: a pair the judge's bias makes predictable carries less information than that says.
``rule="topk_quality"`` keeps the paper's score as the comparator.  The next
``refit_every`` pairs are the best-scoring unqueried ones, each shown in a random order
that is recorded (it is what identifies kappa).

Rules: ``"topk"`` (the score above), ``"topk_quality"`` (the paper's), ``"global"``
(without the boundary factor: the D-optimal / global-uncertainty rule), ``"entropy"``
(boundary factor only),
``"no_variance"`` and ``"no_informativeness"`` (the ablations that drop one factor),
``"round_robin"`` (rounds of a round-robin tournament, every item once per round,
random within a round) and ``"random"``.  Ties of the score are broken at random.

Oracles: :class:`MatrixOracle` reveals entries of a full ordered verdict matrix
(offline evaluation: every strategy faces the same judge); :class:`CallableOracle`
asks a callable (an online judge).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.data.ranking import PairwiseData
from judgebayes.errors import InputError
from judgebayes.inference.executors import describe_executor, run_tasks
from judgebayes.inference.ranking.newton import bt_design, fit_map, laplace_draws
from judgebayes.inference.ranking.topk import binary_entropy, top_k_probabilities, top_k_set

__all__ = [
    "RULES",
    "ActiveResult",
    "CallableOracle",
    "MatrixOracle",
    "acquisition_scores",
    "budget_study",
    "run_active",
]

RULES = (
    "topk",
    "topk_quality",
    "global",
    "entropy",
    "no_variance",
    "no_informativeness",
    "round_robin",
    "random",
)


class MatrixOracle:
    """Offline judge: ``verdicts[a, b]`` is 1 when ``a`` shown first beats ``b``.

    Entries that are not 0 or 1 (e.g. -1 on the diagonal, NaN for a missing verdict)
    are ties/missing and returned as NaN.
    """

    def __init__(self, verdicts: np.ndarray):
        v = np.asarray(verdicts, dtype=float)
        if v.ndim != 2 or v.shape[0] != v.shape[1]:
            raise InputError(
                f"verdict matrix must be square, got shape {v.shape}",
                field="verdicts",
                value=v.shape,
            )
        self.verdicts = v
        self.n_items = v.shape[0]

    def __call__(self, first: int, second: int) -> float:
        """Verdict for ``first`` shown first."""
        y = self.verdicts[first, second]
        return float(y) if y in (0.0, 1.0) else float("nan")


class CallableOracle:
    """Online judge: ``judge(first, second)`` returns 1 (first preferred), 0, or None/0.5 (tie)."""

    def __init__(self, judge: Callable[[int, int], Any], n_items: int):
        self.judge = judge
        self.n_items = int(n_items)

    def __call__(self, first: int, second: int) -> float:
        """Ask the judge."""
        y = self.judge(int(first), int(second))
        if y is None:
            return float("nan")
        y = float(y)
        if y not in (0.0, 0.5, 1.0):
            raise InputError(
                f"the judge returned {y!r} for ({first}, {second}); expected 1, 0 or a tie",
                field="verdict",
                value=y,
            )
        return float("nan") if y == 0.5 else y


def acquisition_scores(
    rule: str,
    theta: np.ndarray,
    cov: np.ndarray,
    p_top: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    *,
    offset: np.ndarray | None = None,
    kappa: float = 0.0,
) -> np.ndarray:
    r"""Score of each candidate pair ``(i[r], j[r])`` under a score-based ``rule``.

    ``offset`` is the per-item bias term :math:`\hat c^\top x_i` and ``kappa`` the position
    term; both enter the information factor of every rule but ``"topk_quality"``.
    """
    d = theta[i] - theta[j]
    if rule == "topk_quality" or offset is None:
        full = d
    else:
        full = d + offset[i] - offset[j]
    if rule == "topk_quality":
        kappa = 0.0
    pp, pm_ = expit(full + kappa), expit(full - kappa)
    info = 0.5 * (pp * (1 - pp) + pm_ * (1 - pm_))
    var = np.maximum(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0)
    h = binary_entropy(p_top)
    bound = h[i] + h[j]
    if rule in ("topk", "topk_quality"):
        return info * var * bound
    if rule == "global":
        return info * var
    if rule == "entropy":
        return bound
    if rule == "no_variance":
        return info * bound
    if rule == "no_informativeness":
        return var * bound
    raise InputError(f"rule {rule!r} has no score", field="rule", value=rule)


def _round_robin_pairs(n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """All unordered pairs as rounds of a round-robin tournament (circle method)."""
    players = list(rng.permutation(n))
    if n % 2:
        players.append(-1)
    m = len(players)
    out: list[tuple[int, int]] = []
    for _ in range(m - 1):
        rnd = [(players[t], players[m - 1 - t]) for t in range(m // 2)]
        rnd = [(min(a, b), max(a, b)) for a, b in rnd if a >= 0 and b >= 0]
        out += [rnd[t] for t in rng.permutation(len(rnd))]
        players = [players[0], players[-1], *players[1:-1]]
    return out


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
    rng = np.random.default_rng(seed)
    X = None
    if item_covariates is not None and model == "bias":
        X = np.asarray(item_covariates, dtype=float).reshape(N, -1)
        sd = X.std(axis=0)
        if np.any(sd == 0):
            raise InputError("an item covariate is constant", field="item_covariates", value=0)
        X = (X - X.mean(axis=0)) / sd
    fitter = _Fitter(N, X, model, lam, lam_b, samples, rng, k)

    iu, ju = np.triu_indices(N, 1)
    n_pairs = iu.size
    queried = np.zeros(n_pairs, dtype=bool)
    pair_id = {(int(a), int(b)): t for t, (a, b) in enumerate(zip(iu, ju, strict=True))}
    rr = [pair_id[p] for p in _round_robin_pairs(N, rng)] if rule == "round_robin" else []
    rr_pos = 0
    first = np.empty(budget, dtype=np.int64)
    second = np.empty(budget, dtype=np.int64)
    y = np.empty(budget)
    record = sorted({int(b) for b in record_at if 0 < b <= budget} | {budget})
    recall: dict[int, float] = {}

    def recall_of(sel):
        if truth is None:
            return None
        if hasattr(truth, "recall"):
            return float(truth.recall(sel))
        tt = set(np.asarray(truth).tolist())
        return len(set(sel.tolist()) & tt) / k

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
            chosen = []
            while len(chosen) < batch and rr_pos < 10 * n_pairs:
                pid = rr[rr_pos % n_pairs]
                rr_pos += 1
                if not queried[pid] and pid not in chosen:
                    chosen.append(pid)
            chosen = np.array(chosen, dtype=np.int64)
        else:
            theta, cov, p_top, offset, kappa = state
            sc = acquisition_scores(
                rule, theta, cov, p_top, iu[free], ju[free], offset=offset, kappa=kappa
            )
            # random tie-break: lexsort by (random key, -score)
            order = np.lexsort((rng.random(free.size), -sc))
            chosen = free[order[:batch]]
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
                recall[t] = recall_of(top_k_set(r.theta, k))
        if len(chosen) == 0:
            break
    first, second, y = first[:t], second[:t], y[:t]
    if np.any(~np.isnan(y)):
        res = fitter.fit(first, second, y)
        theta_hat, _, p_top, *_ = fitter.posterior(res)
        bias = res.bias.copy()
    else:
        theta_hat, _, p_top, *_ = fitter.prior()
        bias = np.zeros(0)
    top = top_k_set(theta_hat, k)
    if truth is not None:
        recall[t] = recall_of(top)
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


#: keywords of :func:`run_active` a budget study passes through to every run
_RUN_OPTIONS = ("refit_every", "samples", "lam", "lam_b", "allow_repeats")


def _budget_task(task) -> list[float]:
    """One (pool, seed, strategy) run of :func:`budget_study`: recall at each budget."""
    pool, seed, model, rule, budgets, k, options = task
    r = run_active(
        pool.verdicts,
        k=k,
        budget=max(budgets),
        rule=rule,
        model=model,
        item_covariates=pool.x,
        truth=pool,
        record_at=budgets,
        seed=seed,
        **options,
    )
    return [r.recall.get(b, float("nan")) for b in budgets]


def budget_study(
    pools: Sequence[Any],
    strategies: Sequence[tuple[str, str]],
    *,
    k: int,
    budgets: Sequence[int],
    seeds: Sequence[int] = (0,),
    executor: Any = None,
    progress: bool | None = None,
    **options: Any,
):
    """Top-k recall against the comparison budget, for several strategies on several
    pools: the active loop's budget grid as one sweep.

    Every (pool, seed, strategy) is one :func:`run_active` run up to the largest budget,
    recording recall at each budget; runs are independent, each seeded by its own
    ``seed`` (a run on the same pool with the same seed faces the same presentation
    orders and tie breaks whatever the strategy), so the table is the same serially, on
    local processes or on a Dask cluster (``executor``, as in
    :func:`~judgebayes.inference.executors.run_tasks`).

    Parameters
    ----------
    pools : sequence
        Simulated pools with ``verdicts`` (N x N), ``x`` (item covariates) and
        ``recall(selected)``, e.g. :func:`judgebayes.simulate.controlled_benchmark`.
    strategies : sequence of (model, rule)
        ``model`` in {"bias", "naive"}, ``rule`` one of :data:`RULES`.
    k : int
        Size of the target set.
    budgets : sequence of int
        Budgets at which recall is recorded.
    seeds : sequence of int
        Seeds per pool (every strategy runs once per pool and seed).
    executor : None, int, concurrent.futures.Executor or dask.distributed.Client
        Where the runs go.
    progress : bool, optional
        A bar over the runs.
    **options
        Passed to every :func:`run_active` call: ``refit_every``, ``samples``, ``lam``,
        ``lam_b``, ``allow_repeats``.

    Returns
    -------
    DataFrame
        One row per (pool, seed, model, rule, budget) with ``recall``; ``attrs`` record
        the executor.  ``df.groupby(["model", "rule", "budget"]).recall.mean()`` is the
        budget curve.
    """
    bad = sorted(set(options) - set(_RUN_OPTIONS))
    if bad:
        raise InputError(
            f"budget_study takes no option {bad[0]!r}; it passes {_RUN_OPTIONS} to run_active",
            field=bad[0],
            value=options[bad[0]],
        )
    budgets = sorted({int(b) for b in budgets})
    if not budgets or budgets[0] < 1:
        raise InputError("budgets must be integers >= 1", field="budgets", value=budgets)
    for model, rule in strategies:
        if model not in ("bias", "naive") or rule not in RULES:
            raise InputError(
                f"a strategy is (model in ('bias', 'naive'), rule in {RULES}); got "
                f"{(model, rule)!r}",
                field="strategies",
                value=(model, rule),
            )
    keys = [(j, int(s), m, r) for j in range(len(pools)) for s in seeds for m, r in strategies]
    tasks = [(pools[j], s, m, r, budgets, k, options) for j, s, m, r in keys]
    out = run_tasks(_budget_task, tasks, executor, progress=progress, desc="active runs")
    rows = [
        {"pool": j, "seed": s, "model": m, "rule": r, "budget": b, "recall": rec}
        for (j, s, m, r), recalls in zip(keys, out, strict=True)
        for b, rec in zip(budgets, recalls, strict=True)
    ]
    df = pd.DataFrame(rows)
    df.attrs["executor"] = describe_executor(executor)
    return df
