# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Bias-aware Bradley-Terry: ranking with a verbose, position-biased judge
#
# A pairwise LLM judge shown item `a` first and `b` second prefers `a` with probability
# `sigmoid(theta_a - theta_b + c (x_a - x_b) + kappa)`: `theta` is quality, `x` a presentation
# covariate (here a verbosity flag), `c` the judge's verbosity bias and `kappa` its position
# preference (Xu et al.). Counting wins ranks `theta + c x`, not `theta`. This notebook shows
# that failure, the bias-aware model fitted by Laplace and by NUTS (horseshoe and Gaussian
# shrinkage), rank intervals, and the active loop that chooses the next comparison.

# %%
import warnings

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.estimators import length_residualisation, order_swap_majority, win_counts

warnings.filterwarnings("ignore", message=".*BLAS.*")
# every NUTS fit below prints its own gate result (fit.diagnostics.message())
warnings.simplefilter("ignore", jb.errors.ConvergenceWarning)

# %% tags=["parameters"]
# Full settings (the committed outputs). The test suite runs this file with smaller
# values injected after this cell (tests/test_notebooks.py).
SAMPLER = {"draws": 1000, "tune": 1000}  # NUTS settings
POOLS, SEEDS = 10, 6  # budget grid: simulated pools, seeds per pool

# %% [markdown]
# ## 1. A controlled pool and a biased judge
#
# 30 items, each 6 statements; quality = #true - #false; the 5 fully correct items are the
# target. A verbosity flag is assigned independently of quality (|corr| < 0.12), and the
# simulated judge rewards it (c* = 1 per standardised unit) and prefers the first-shown item
# (kappa* = 0.35). We observe all 870 ordered verdicts.

# %%
sim = jb.simulate.controlled_benchmark(seed=0)
ranking = sim.ranking()
print(
    "true top set:",
    sorted(sim.true_top.tolist()),
    "| corr(quality, verbosity) =",
    round(np.corrcoef(sim.quality, sim.x)[0, 1], 3),
)
print(ranking.identifiability())

# %% [markdown]
# ## 2. Why naive aggregation fails
#
# The naive Bradley-Terry estimate is `theta + c x` up to a constant: verbose items move up,
# terse ones down, and more comparisons only sharpen the wrong answer.

# %%
naive = ranking.fit("naive", random_seed=0)
bias = ranking.fit("laplace", random_seed=0)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharex=True)
for ax, f, title in [(axes[0], naive, "naive BT"), (axes[1], bias, "bias-aware (Laplace)")]:
    col = np.where(sim.x == 1, "tab:red", "tab:blue")
    ax.scatter(sim.quality + np.random.default_rng(0).normal(0, 0.08, 30), f.point, c=col)
    cut = np.sort(f.point)[-5]
    ax.axhline(cut - 1e-9, ls=":", color="k")
    ax.set_title(f"{title}: recall {sim.recall(f.point_top_k(5)):.1f}")
    ax.set_xlabel("true quality (jittered)")
axes[0].set_ylabel("estimated quality (red = verbose)")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 3. Baselines
#
# Win counts and order-swap majority remove nothing of the verbosity bias; residualising the
# naive scores on the covariate does (it is what the prior does implicitly for an item-level
# covariate: `c` is identified only through the prior's independence of quality and covariate,
# see ARCHITECTURE.md).

# %%
d = ranking.data
rows = {
    "win counts": win_counts(d),
    "order-swap majority": order_swap_majority(d),
    "naive BT": naive.point,
    "length residualisation": length_residualisation(d),
    "bias-aware Laplace": bias.point,
}
top5 = {k: np.argsort(-np.asarray(v, float), kind="stable")[:5] for k, v in rows.items()}
pd.DataFrame({k: [sim.recall(t)] for k, t in top5.items()}, index=["top-5 recall"]).T

# %% [markdown]
# ## 4. NUTS with the regularized horseshoe, against Laplace, through ArviZ
#
# The horseshoe is sampled non-centred with target_accept 0.99 and must pass the gate (R-hat
# <= 1.01, ESS >= 400, zero divergences). The Laplace approximation of the same horseshoe
# model lives in PyMC's unconstrained space, where the posterior of the local and global
# scales is far from Gaussian: its coefficient intervals are visibly wider and shifted.

# %%
hs = ranking.fit("nuts", prior="horseshoe", random_seed=1, sampler=SAMPLER, log_likelihood=True)
gauss = ranking.fit("nuts", prior="normal", random_seed=1, sampler=SAMPLER, log_likelihood=True)
lap_hs = ranking.fit("laplace", prior="horseshoe", random_seed=1)
naive_ll = ranking.fit("naive", random_seed=1, log_likelihood=True)
print("horseshoe:", hs.diagnostics.message(), "| divergences:", hs.diagnostics.divergences)
print("normal:   ", gauss.diagnostics.message())
table = jb.compare_posteriors(
    {
        "nuts/horseshoe": hs,
        "nuts/normal": gauss,
        "laplace/normal": bias,
        "laplace/horseshoe": lap_hs,
    }
)
table[table.parameter.str.startswith("b[")].round(3)

# %%
with warnings.catch_warnings():
    # Laplace fits have one chain and NUTS fits four: arviz-plots concatenates them with
    # xarray's outer join, which xarray announces will change; the plot is the same
    warnings.filterwarnings("ignore", message="In a future version of xarray")
    pc = az.plot_forest(
        {
            "NUTS horseshoe": hs.idata,
            "NUTS normal": gauss.idata,
            "Laplace normal": bias.idata,
            "Laplace horseshoe": lap_hs.idata,
        },
        var_names=["b"],
        combined=True,
        ci_kind="eti",
        ci_probs=(0.5, 0.95),
    )
    pc.add_legend("model")
    plt.show()

# %% [markdown]
# PSIS-LOO prefers the bias-aware model; the difference comes from the position term
# (an item-level covariate cannot change the likelihood, only the prior's reading of it).

# %%
# the naive fit's draws are Laplace's, so its LOO is marked approximate
jb.compare_loo(
    {"bias-aware (horseshoe)": hs, "bias-aware (normal)": gauss, "naive": naive_ll},
    approximate=True,
)

# %% [markdown]
# ## 5. Horseshoe vs Gaussian shrinkage on an unbiased judge
#
# The unbiased control (c* = kappa* = 0): shrinkage should pull both coefficients to zero
# and cost little recall. This is the horseshoe's hard case for NUTS: with both coefficients
# near zero the global and local scales form a funnel, and at the default target_accept 0.99
# a few divergences remain (1-2 per 4,000 draws in our runs). We raise target_accept to 0.999
# and print the gate's verdict; the gate reads every free variable, and the non-centred
# offsets b_z mix slowly here (R-hat 1.015 in the committed run): read the horseshoe row as
# unconfirmed. The Gaussian and hierarchical priors have no such funnel.

# %%
ctrl = jb.simulate.simulate_bt_judge(seed=5, c=0.0, kappa=0.0)
rc = ctrl.ranking()
fits = {
    "naive": rc.fit("naive", random_seed=0),
    "laplace/normal": rc.fit("laplace", random_seed=0),
    "laplace/hierarchical": rc.fit("laplace", prior="hierarchical", random_seed=0),
    "nuts/horseshoe": rc.fit(
        "nuts",
        prior="horseshoe",
        random_seed=2,
        sampler={**SAMPLER, "tune": 2 * SAMPLER["tune"], "target_accept": 0.999},
    ),
}
print("horseshoe:", fits["nuts/horseshoe"].diagnostics.message())
pd.DataFrame(
    {
        k: {
            "recall": ctrl.recall(f.point_top_k(5)),
            **{f"b[{r.coefficient}]": round(r.estimate, 3) for r in f.bias_table().itertuples()},
        }
        for k, f in fits.items()
    }
).T

# %% [markdown]
# ## 6. Rank intervals and groups that cannot be separated
#
# Arena-style leaderboards need to say which items are tied: the 95% rank interval per item
# and tiers whose separations all hold jointly with probability 0.95 (every item of a tier
# beats every item of every lower tier). With 30 items this close, no such cut exists at
# 0.95, and the one tier says so; the rank intervals carry the finer information.

# %%
ri = hs.rank_intervals().join(hs.top_k(5)[["p_top_k"]])
ri["true quality"] = sim.quality[[int(i) for i in ri.index]]
print("groups:", hs.groups(0.95)[:4], "...")
ri.head(12).round(3)

# %% [markdown]
# ## 7. Active acquisition: recall against budget
#
# Each strategy queries pairs (in a random, recorded order) from the full verdict matrix of a
# simulated judge, refitting the Laplace posterior every 8 verdicts. Top-k-aware scoring
# spends comparisons on items whose top-k membership is in doubt. `jb.plan.budget_study` runs the
# grid as one sweep (see README, "Sweeps").

# %%
budgets = (60, 120, 200, 320)
strategies = [
    ("bias", "topk"),
    ("bias", "global"),
    ("bias", "round_robin"),
    ("bias", "random"),
    ("bias", "entropy"),
    ("bias", "no_variance"),
    ("bias", "no_informativeness"),
    ("naive", "topk"),
    ("naive", "round_robin"),
]
pools = [jb.simulate.controlled_benchmark(seed=1000 + j) for j in range(POOLS)]
# one sweep: every (pool, seed, strategy) is one run_active run up to the largest budget;
# executor=2 (local processes) or a dask.distributed Client gives the same table
runs = jb.plan.budget_study(pools, strategies, k=5, budgets=budgets, seeds=range(SEEDS))
curve = runs.groupby(["model", "rule", "budget"]).recall.mean().unstack("budget")
curve = curve.reindex(pd.MultiIndex.from_tuples(strategies))
curve.index = [f"{m}/{r}" for m, r in curve.index]
curve.columns = [f"B={b}" for b in budgets]
curve.round(3)

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
for name, row in curve.iterrows():
    ax.plot(
        budgets, row.values, marker="o", ls="-" if name.startswith("bias") else "--", label=name
    )
ax.set_xlabel("budget B")
ax.set_ylabel("top-5 recall")
ax.legend(fontsize=7, ncol=2)
plt.show()
