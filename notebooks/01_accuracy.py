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
# # Accuracy under misclassification: closed form, Laplace, exact and NUTS
#
# An LLM judge with specificity `q0` and sensitivity `q1` reports a positive rate
# `p = theta*q1 + (1-theta)*(1-q0)`, not the true accuracy `theta`. This notebook shows the bias
# of the naive rate, the Rogan-Gladen correction with its Lang-Reiczigel interval, and the
# Bayesian model (PyMC) fitted by Laplace, an exact quadrature reference and NUTS, compared
# through ArviZ.

# %%
import warnings

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

import judgebayes as jb

warnings.filterwarnings("ignore", message=".*BLAS.*")

# %% tags=["parameters"]
# Full settings (the committed outputs). The test suite runs this file with smaller
# values injected after this cell (tests/test_notebooks.py).
REPS = 1000  # Monte-Carlo replicates per theta in the coverage study
SBC_DATASETS = 2000  # simulated datasets in the SBC study
ITEM_REPS = 500  # simulated frames in the items-design coverage check (section 7)
DASK_SPLITS = 200  # random splits per LLMBar subset in the Dask sweep (section 8)
DASK_METHODS = ("closed_form", "laplace")  # estimators fitted on every split there

# %% [markdown]
# ## 1. The naive rate is biased
#
# Its bias is `(q0 + q1 - 2) theta + 1 - q0`: positive below `theta* = (1-q0)/(2-q0-q1)`,
# negative above.

# %%
theta = np.linspace(0, 1, 101)
fig, ax = plt.subplots(figsize=(6, 3.5))
for q0, q1 in [(0.7, 0.9), (0.9, 0.9), (0.9, 0.7)]:
    ax.plot(theta, jb.estimators.naive_bias(theta, q0, q1), label=f"q0={q0}, q1={q1}")
ax.axhline(0, color="k", lw=0.5)
ax.set_xlabel("true accuracy theta")
ax.set_ylabel("E[naive] - theta")
ax.legend()
plt.show()

# %% [markdown]
# ## 2. One system: four methods side by side
#
# 620 of 1000 test items judged correct; the judge got 70 of 100 truly-incorrect and 90 of 100
# truly-correct calibration items right.

# %%
study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
fits = [study.fit(m, random_seed=0) for m in ("closed_form", "laplace", "exact", "nuts")]
table = jb.compare(fits)
table.round(4)

# %%
nuts = fits[-1]
print(nuts.diagnostics.message())
az.summary(nuts.idata, var_names=["theta", "q0", "q1"])

# %%
jb.plot_forest(fits)
plt.show()
jb.plot_intervals(table)
plt.show()

# %% [markdown]
# The Laplace interval is the narrowest: it approximates the posterior by a normal in logit
# space around the mode. The exact posterior and NUTS agree (within Monte-Carlo error), and the
# Lang-Reiczigel interval is close to both at this sample size.
#
# Every check of the model's assumptions that applies to this fit, in one report: whether
# the calibrated rates can reach the judged rate (`transfer`) and the test count against the
# fit's posterior predictive (`ppc`), each with its p-values adjusted within the check (Holm):

# %%
study.check(nuts).table

# %% [markdown]
# ## 3. The boundary: where the closed-form interval degenerates
#
# With a naive rate below `1 - q0` the Rogan-Gladen estimate is negative. When the whole
# two-sided interval lies below 0, the paper's code returns the point (0, 0); judgebayes flags
# it `degenerate` and reports a one-sided bound instead. The Bayesian posterior simply piles up
# against 0.

# %%
edge = jb.AccuracyStudy.from_counts(k=20, n=2000, tn=960, m0=1000, tp=900, m1=1000)
ci = jb.estimators.lang_reiczigel_interval(20 / 2000, 0.96, 0.9, 2000, 1000, 1000)
print("Lang-Reiczigel:", tuple(round(x, 4) for x in ci), "degenerate:", ci.degenerate)
# the posterior presses against theta = 0: at the default target_accept = 0.8 NUTS made one
# divergent transition here and the convergence gate said so; smaller steps remove it
edge.compare(
    methods=("closed_form", "laplace", "exact", "nuts"),
    random_seed=0,
    options={"nuts": {"sampler": {"target_accept": 0.95}}},
).round(4)

# %% [markdown]
# The exact posterior's equal-tailed interval starts just above 0, Laplace's logit-normal
# cannot reach 0 and is shifted up. An equal-tailed interval of a continuous posterior can
# never contain theta = 0 exactly, which is why its frequentist coverage at theta = 0 is 0
# (section 5).

# %% [markdown]
# ## 4. Two systems scored by the same judge
#
# Both systems share the calibration set, so their errors are correlated; the contrast and the
# probability that each system is best come from the joint posterior.

# %%
two = jb.AccuracyStudy.from_counts(
    k=[620, 580], n=[1000, 1000], tn=70, m0=100, tp=90, m1=100, systems=["A", "B"]
)
fit2 = two.fit("nuts", random_seed=0)
display(fit2.interval().round(3))
display(fit2.contrasts().round(3))
fit2.prob_best()

# %% [markdown]
# ## 5. Coverage: Bayesian vs Lang-Reiczigel on the same simulated data
#
# The paper's grid: 21 values of theta, q0 = 0.7, q1 = 0.9, n = 1000, m0 = m1 = 100. The
# Bayesian interval comes from the exact engine (vectorised over all datasets).

# %%
cov = jb.simulate.bayesian_coverage_study(
    np.linspace(0, 1, 21), 0.7, 0.9, 1000, m0=100, m1=100, reps=REPS, random_seed=0
)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for est in cov.estimator.values:
    c = cov.sel(estimator=est)
    axes[0].errorbar(c.theta, c.coverage, yerr=2 * c.coverage_mcse, marker="o", ms=3, label=est)
    axes[1].plot(c.theta, c.mean_width, marker="o", ms=3, label=est)
axes[0].axhline(0.95, color="k", lw=0.5)
axes[0].set_ylim(0.85, 1.0)
axes[0].set_xlabel("theta")
axes[0].set_ylabel("coverage of the 95% interval")
axes[0].legend()
axes[1].set_xlabel("theta")
axes[1].set_ylabel("mean width")
plt.show()
interior = cov.coverage.sel(theta=slice(0.04, 0.96))
print(
    "interior coverage:",
    {
        e: (
            round(float(interior.sel(estimator=e).min()), 3),
            round(float(interior.sel(estimator=e).max()), 3),
        )
        for e in cov.estimator.values
    },
)
print("at theta = 0 and 1:", cov.coverage.sel(theta=[0.0, 1.0]).to_pandas().round(3).to_dict())

# %% [markdown]
# At theta = 0 and 1 the Bayesian equal-tailed interval has coverage 0 by construction (it
# cannot contain the endpoint of the parameter space); the Lang-Reiczigel interval is truncated
# to [0, 1] and keeps the endpoint. A one-sided or HDI interval is the Bayesian answer when the
# boundary matters.
#
# ## 6. Simulation-based calibration of the binary model
#
# Draw theta, q0, q1 from the prior, simulate data, and rank the truth among posterior draws:
# ranks are uniform when the posterior is calibrated.

# %%
from scipy import stats

ranks = jb.simulate.sbc_ranks(SBC_DATASETS, 1000, m0=100, m1=100, random_seed=1)
counts = np.bincount(ranks // 10, minlength=10)
plt.bar(range(10), counts)
plt.axhline(counts.mean(), color="k", lw=0.5)
plt.xlabel("rank bin (of 100 positions)")
plt.ylabel("datasets")
plt.show()
print("chi-square p-value:", round(stats.chisquare(counts).pvalue, 3))

# %% [markdown]
# ## 7. Judge everything, label a few (the items design)
#
# The usual set-up: the judge scores every output and humans label some of the same outputs.
# One frame, with the human label blank where unlabelled. Here: ChatGPT's real verdicts on
# LLMBar's MT-Bench subset (200 items, gold label on each), with the gold labels kept on a
# random 30% only, so the answer we are estimating is known.

# %%
from judgebayes.datasets import llmbar_accuracy_items

items = llmbar_accuracy_items("ChatGPT")
items = items[items["subset"] == "Processed_MT-Bench"].copy()
gold = items.loc[items["judge"].notna(), "human"].mean()
keep = np.random.default_rng(0).random(len(items)) < 0.3
items["human"] = items["human"].where(keep)  # blank = unlabelled
study = jb.AccuracyStudy.from_items(items, judge="judge", human="human")
display(study.summary())
table = study.compare(methods=("closed_form", "exact", "ppi_plus_plus", "labels_only", "naive"))
display(table[["method", "quantity", "estimate", "lower", "upper", "width"]].round(3))
print(f"the gold rate over all {len(items)} items: {gold:.3f}")
jb.plot_intervals(table, truth={"all": gold})
plt.show()

# %% [markdown]
# `theta_items` is the rate over these 200 items (the labelled ones are known, only the
# unlabelled ones are uncertain); `theta` is the rate of the process that produced them,
# which PPI++ (computed as `ppi_py` does) and the labelled mean estimate. The naive judge rate
# needs no labels and is biased. Over repeated labelling, the N-item interval covers the
# realised rate and narrows as more of the items are labelled, which no superpopulation
# interval can do:

# %%
from judgebayes.estimators import double_sampling_items, ppi_items
from judgebayes.io import items_from_frame

rows = []
for frac in (0.1, 0.5):
    hit, w_items, w_ppi = [], [], []
    for r in range(ITEM_REPS):
        sim = jb.simulate.simulate_items(2000, n_labelled=int(frac * 2000), seed=r)
        d = items_from_frame(sim.frame)
        lo, hi = double_sampling_items(d, "items").interval(0.05)
        hit.append(lo[0] <= sim.rate_items <= hi[0])
        w_items.append(hi[0] - lo[0])
        plo, phi = ppi_items(d).interval(0.05)
        w_ppi.append(phi[0] - plo[0])
    rows.append(
        {
            "labelled": frac,
            "coverage (N items)": np.mean(hit),
            "width (N items)": np.mean(w_items),
            "width PPI++": np.mean(w_ppi),
        }
    )
display(pd.DataFrame(rows).round(4))

# %% [markdown]
# ## 8. The same sweep on a Dask cluster
#
# Coverage studies, SBC, the split protocol and panel cross-validation are many independent
# fits. Each takes `executor=`: `None` (serial), an int (local processes), any
# `concurrent.futures.Executor`, or a `dask.distributed.Client`. Seeds are fixed per task,
# so the numbers do not depend on where the tasks ran. Here the repeated-split protocol
# (Lee et al.) runs on every LLMBar subset with ChatGPT's verdicts, first serially and then
# on a `LocalCluster` with two single-threaded workers (a laptop's two cores), and the two
# summaries are compared.

# %%
import logging
import time

from dask.distributed import Client, LocalCluster

from judgebayes import split_protocol

judged = llmbar_accuracy_items("ChatGPT")  # every subset: 885 items, 8 groups
sweep = dict(group="subset", n_splits=DASK_SPLITS, methods=DASK_METHODS, seed=0, progress=False)
t0 = time.perf_counter()
serial = split_protocol(judged, **sweep)
t_serial = time.perf_counter() - t0
with (
    # silence_logs: the workers' shutdown chatter stays out of the notebook
    LocalCluster(n_workers=2, threads_per_worker=1, silence_logs=logging.ERROR) as cluster,
    Client(cluster) as client,
):
    t0 = time.perf_counter()
    distributed = split_protocol(judged, executor=client, **sweep)
    t_dask = time.perf_counter() - t0
pd.testing.assert_frame_equal(serial.summary(), distributed.summary())  # identical numbers
print(f"serial {t_serial:.1f} s, LocalCluster(2) {t_dask:.1f} s: identical summaries")
display(distributed.summary().round(3))

# %% [markdown]
# On a real cluster nothing but the client changes: `Client("tcp://scheduler:8786")` for a
# running scheduler, `dask_jobqueue.SLURMCluster(...)` on HPC, or a Kubernetes or cloud
# cluster's client. Tasks go out in chunks (four per worker slot), so a worker compiles a
# model once and reuses it for every task of its chunks. The workers need judgebayes
# installed; the data travel with the tasks. On two cores the gain is bounded by the cores
# and by each worker's one-off compile (`benchmarks/executors.py` measures it; figures in
# BENCHMARKS.md).
