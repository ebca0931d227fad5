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
# # Get started: a judge's raw rate, the corrected rate, and honest intervals
#
# LLMBar (MIT licence) gives 885 pairs of answers to one instruction, each with a gold
# label saying which answer is better, and the verdict of a judge LLM on each pair. We ask
# one question of it: **on what share of the pairs is the first answer the better one?**
# The judge answers it for every pair, but it errs; the gold label answers it exactly, but
# here we pretend that a human labelled only a random tenth of the pairs, as a team would
# that cannot label everything. Because LLMBar has every gold label, we can see which
# interval holds the true share.
#
# The data are read from the shared data folder beside the checkout (no network).

# %%
import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes import datasets

pd.set_option("display.width", 160)

# %% tags=["parameters"]
# The settings of the committed outputs; the test suite injects smaller ones after this cell.
JUDGE = "ChatGPT"  # one of datasets.LLMBAR_EVALUATORS
LABELLED = 0.10  # the share of pairs a human labels
DRAWS = 1000  # NUTS draws per chain

# %% [markdown]
# ## 1. The data: one row per pair, the judge's verdict and (on a few rows) the human's

# %%
items = datasets.llmbar_accuracy_items(JUDGE)
truth = items["human"].mean()  # every gold label: the answer we try to recover

rng = np.random.default_rng(0)
labelled = rng.random(len(items)) < LABELLED
frame = items.assign(human=items["human"].where(labelled))  # blank = not labelled
print(f"{len(frame)} pairs, {labelled.sum()} labelled; the true share is {truth:.3f}")
frame.head()

# %% [markdown]
# ## 2. The judge's raw rate is biased
#
# The judge says "the first answer is better" at a rate of its own. On the labelled pairs we
# can see how often it is right when the truth is 1 (its sensitivity) and when it is 0 (its
# specificity); when either is below 1 the raw rate misses.

# %%
study = jb.AccuracyStudy.from_items(frame)
naive = study.fit("naive")
naive.interval()

# %% [markdown]
# ## 3. The corrected rate, beside the frequentist intervals practitioners use
#
# Every method is a `study.fit(...)` and returns the same `jb.Fit`; `jb.compare` lines them
# up. `closed_form` uses the labelled pairs and the judge on the others (double sampling);
# `ppi_plus_plus` is prediction-powered inference with power tuning (as ppi_py);
# `labels_only` ignores the judge; `exact` is the Bayesian posterior on a grid; `nuts`
# samples the PyMC model.

# %%
methods = ("naive", "labels_only", "closed_form", "ppi_plus_plus", "exact", "nuts")
fits = [
    study.fit(m, random_seed=0, **({"sampler": {"draws": DRAWS}} if m == "nuts" else {}))
    for m in methods
]
table = jb.compare(fits)[["method", "estimate", "lower", "upper", "width"]]
table.assign(covers=(table["lower"] <= truth) & (truth <= table["upper"]))

# %% [markdown]
# The naive interval is narrow and misses the truth: it takes the judge's errors as none.
# The labels alone cover, but are wide; the corrected methods cover and are narrower,
# because the judge's verdicts on every pair carry information once its errors are known.

# %%
jb.plot_forest(fits)

# %% [markdown]
# ## 4. What the model assumes, checked
#
# `study.check(fit)` runs every check of the model's assumptions that applies: here, that
# the labelled pairs were a fair choice of the judged ones, and that the judge is better
# than chance.

# %%
study.check(fits[-1]).table

# %% [markdown]
# ## Where next
#
# The how-to pages answer one question each (several systems, paired prompts, scores,
# several judges, rankings, monitoring); the explanation pages write each model in math.
