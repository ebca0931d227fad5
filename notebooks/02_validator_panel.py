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
# # Generator x validator panels: agreeable judges, the regression, and a hierarchical model
#
# Many LLM validators judge the outputs of many generators; a few generators are annotated by
# humans. Validators are *agreeable*: they call almost every valid output valid (TPR ~0.96) but
# catch few invalid ones (TNR 0.1-0.5), so every judge, and every majority, overestimates
# precision. This notebook runs, on a simulated panel with known truth (Jain et al.'s setting:
# 14 x 14, ~7.5% invalid outputs, ~9% missing verdicts, 6 annotated generators, validator
# rates that shift from one generator to another), the individual validators, their mean,
# voting ensembles, the paper's regression, and the Bayesian cell model (PyMC) with honest
# intervals for generators nobody annotated.

# %%
import warnings

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import judgebayes as jb

ValidatorPanel = jb.ValidatorPanel
# the panel's Bayesian models are classes of their own: ValidatorPanel.models() lists them
MODELS = {m.model_name: m for m in ValidatorPanel.models()}
PooledPanel, HierarchicalPanel, OverdispersedPanel = (
    MODELS["pooled"],
    MODELS["hierarchical"],
    MODELS["overdispersed"],
)

warnings.filterwarnings("ignore", message=".*BLAS.*")
# every NUTS fit below prints its own gate result (fit.diagnostics.message())
warnings.simplefilter("ignore", jb.errors.ConvergenceWarning)

# %% tags=["parameters"]
# Full settings (the committed outputs). The test suite runs this file with smaller
# values injected after this cell (tests/test_notebooks.py).
G, V, N_OUT = 14, 14, 700  # generators, validators, outputs per generator
SAMPLER = {"draws": 1000, "chains": 2, "tune": 800}  # NUTS settings

# %%
sim = jb.simulate.simulate_panel(G, V, n_outputs=N_OUT, rate_shift=0.5, seed=11)
panel = ValidatorPanel(sim.panel())
d = panel.data
print(
    f"{int(d.n_judged.sum())} verdicts, {int(d.n_missing.sum())} missing "
    f"({100 * d.n_missing.sum() / (d.n_missing.sum() + d.n_judged.sum()):.1f}%); "
    f"annotated generators: {[d.generators[i] for i in d.annotated]}"
)

# %% [markdown]
# ## 1. Agreeableness
#
# Each validator's TPR and TNR measured on the annotated generators' outputs.

# %%
# pooled over the annotated generators' confusion counts
tpr = d.tp.sum(0) / (d.tp.sum(0) + d.fn.sum(0))
tnr = d.tn.sum(0) / (d.tn.sum(0) + d.fp.sum(0))
fig, ax = plt.subplots(figsize=(5, 4))
ax.scatter(tnr, tpr)
for j, v in enumerate(d.validators):
    ax.annotate(v, (tnr[j], tpr[j]), fontsize=7)
ax.set_xlabel("TNR (invalid outputs caught)")
ax.set_ylabel("TPR (valid outputs passed)")
ax.set_xlim(0, 1)
ax.set_ylim(0.5, 1.01)
plt.show()

# %% [markdown]
# ## 2. Leave-s-out: every method against the human truth
#
# For s = 0..5, calibrate on every subset of s annotated generators and score the other 6 - s
# by their maximum absolute error (MaxAE). The validator mean is the bar every method must
# clear.

# %%
methods = (
    "validator_mean",
    "best_individual",
    "majority",
    "super_majority",
    "veto",
    "plug_in",
    "regression",
)
cv = panel.cross_validate(s=range(min(6, d.annotated.size)), methods=methods, n_jobs=2)
table = cv.pivot(index="method", columns="s", values="mean_maxae").loc[list(methods)]
table.round(4)

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
for m in methods:
    ax.plot(table.columns, table.loc[m], marker="o", label=m)
ax.set_xlabel("annotated generators used for calibration (s)")
ax.set_ylabel("mean MaxAE")
ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# ## 3. The Bayesian model: honest intervals for a held-out generator
#
# Validator rates here shift from one generator to another (0.5 on the logit scale). A model
# with constant rates ("pooled") is confidently wrong about a generator it has no human labels
# for; the hierarchical model learns the spread of those shifts from the annotated generators
# and widens the held-out interval accordingly. Held-out coverage of the 90% interval and its
# width at s = 5 (each annotated generator held out in turn):

# %%
rows = []
for model in (PooledPanel, HierarchicalPanel):
    c = model(panel.data).cross_validate(
        s=[d.annotated.size - 1],
        methods=("nuts",),
        truth=sim.precision,
        sampler=SAMPLER,
    )
    rows.append(
        {
            "variant": model.model_name,
            **c.iloc[0][["mean_maxae", "coverage", "mean_width"]].to_dict(),
        }
    )
pd.DataFrame(rows).round(4)

# %% [markdown]
# ## 4. All annotations in: precision of every generator
#
# Forest plot of generator precision (hierarchical model, NUTS) with the human value marked
# for annotated generators (x) and the plain validator mean beside it (|).

# %%
fits = {
    m.model_name: m(panel.data).fit("nuts", random_seed=0, sampler=SAMPLER, log_likelihood=True)
    for m in (PooledPanel, HierarchicalPanel, OverdispersedPanel)
}
for v, f in fits.items():
    print(f"{v:>13}:", f.diagnostics.message())
hier = fits["hierarchical"]
iv = hier.interval(0.1)
vm = panel.fit("validator_mean").estimate()
y = np.arange(len(d.generators))
fig, ax = plt.subplots(figsize=(6, 0.35 * len(y) + 1))
ax.errorbar(
    iv.estimate,
    y,
    xerr=[iv.estimate - iv.lower, iv.upper - iv.estimate],
    fmt="o",
    label="hierarchical 90%",
)
ax.scatter(vm, y, marker="|", s=200, color="k", label="validator mean")
hp = d.human_precision
ax.scatter(hp, y, marker="x", color="r", s=60, label="human (annotated)")
ax.set_yticks(y, d.generators)
ax.invert_yaxis()
ax.set_xlabel("precision")
ax.legend(fontsize=7, loc="lower left")
plt.show()

# %%
az.plot_forest(
    hier.idata, var_names=["tpr", "tnr"], combined=True, ci_kind="eti", ci_probs=(0.5, 0.9)
)
plt.show()

# %% [markdown]
# PSIS-LOO on the un-annotated verdicts: constant rates, generator-level deviations, and
# deviations plus beta-binomial overdispersion.

# %%
with warnings.catch_warnings():
    # ArviZ warns when a cell's Pareto k-hat exceeds 0.7; the table says the same in its
    # `warning` column, next to the model it concerns
    warnings.filterwarnings("ignore", message="Estimated shape parameter of Pareto")
    loo_table = az.compare({v: f.idata for v, f in fits.items()})
loo_table
