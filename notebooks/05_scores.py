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
# # Judges that give scores: HANNA and LLM-Rubric
#
# Most LLM judges give a score (a 1-5 or 1-10 grade, a probability over grades), not a
# verdict. `ScoreStudy` calibrates the judge's score to the human labels of the rows that
# have one and estimates each system's mean human label, with an interval that covers.
# Two real data sets, read from the shared data folder (no network):
#
# * **HANNA** (MIT): 1,056 stories from 11 story generators (the same 96 writing prompts
#   each), three human ratings (Likert 1-5) per story and criterion, and judge LLMs'
#   ratings. Humans agree little here (Krippendorff alpha 0.14 on relevance).
# * **LLM-Rubric** (MIT): GPT-3.5's probability over the answers 1-4 to rubric questions
#   about dialogues of 3 systems, with human answers.
#
# Sections: 1 HANNA, one judge and a fifth of the stories rated; 2 the methods side by
# side and the ranking of the 11 generators against the all-human ranking; 3 what the
# checks say; 4 repeated labellings: does each interval cover the all-human mean; 5
# several judges; 6 LLM-Rubric, a judge that gives a probability vector.

# %%
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

import judgebayes as jb
from judgebayes import datasets

warnings.simplefilter("ignore", jb.errors.ConvergenceWarning)  # the tables show the gate's numbers
pd.set_option("display.width", 200)
pd.set_option("display.max_columns", 30)

# %% tags=["parameters"]
# The settings of the committed outputs; the test suite injects smaller ones after this cell.
LABEL_SHARE = 0.2  # share of the stories whose human rating is used
REPS = 100  # repeated labellings in section 4
NUTS_REPS = 10  # of which also fitted by NUTS

# %% [markdown]
# ## 1. HANNA: a judge's ratings and a fifth of the stories rated by humans
#
# `hanna_scores` gives one row per story: the judge's rating (a rating outside 1-5 is an
# upstream failure code and is missing, counted by the study), the three human ratings
# and their mean. The human label of a story is the mean of its three raters; the target
# is each generator's mean over all its 96 stories, known here because every story was
# rated. We keep the human label on a random fifth of the stories and blank the rest.

# %%
stories = datasets.hanna_scores("RE", "Beluga-13B", prompt=1)
truth = stories.groupby("system", sort=False)["human_mean"].mean()
rng = np.random.default_rng(0)
rated = rng.random(len(stories)) < LABEL_SHARE
stories["human"] = stories["human_mean"].where(rated)
study = jb.ScoreStudy.from_items(
    stories,
    score="Beluga-13B",
    human="human",
    system="system",
    item="prompt_id",  # the 11 generators wrote for the same prompts: paired contrasts
    scale=(1, 5),
)
study.summary().round(3)

# %% [markdown]
# ## 2. The methods side by side
#
# `closed_form` calibrates the human label on the score (isotonic, cross-fitted) and adds
# each system's mean residual (the augmented estimator); `nuts` is the ordinal model of the
# human level given the score with an offset per system. The comparators: PPI++ on the
# raw score (as `ppi_py`), the rated stories' mean, and `naive`, the judge's mean itself
# (uncorrected). The closed form and NUTS give the mean over the 96 stories (`items`), the
# comparators the process mean.

# %%
t0 = time.perf_counter()
table = study.compare(random_seed=1)
print(f"{time.perf_counter() - t0:.1f} s for every method")
table["truth"] = table["unit"].map(truth)
table["covers"] = (table["lower"] <= table["truth"]) & (table["truth"] <= table["upper"])
table.pivot_table(index="method", values=["width", "covers"], aggfunc="mean").round(3)

# %%
nuts = study.fit("nuts", random_seed=1)
closed = study.fit("closed_form", random_seed=1)
fig, ax = plt.subplots(figsize=(7, 4.5))
order = truth.sort_values().index
y = np.arange(len(order))
for k, (fit, colour) in enumerate(((closed, "C0"), (nuts, "C1"))):
    iv = fit.interval().loc[order]
    ax.errorbar(
        iv["estimate"],
        y + 0.15 * (k - 0.5),
        xerr=[iv["estimate"] - iv["lower"], iv["upper"] - iv["estimate"]],
        fmt="o",
        color=colour,
        label=fit.method,
    )
ax.scatter(truth.loc[order], y, marker="x", color="k", label="all 96 stories rated", zorder=3)
ax.set_yticks(y, order)
ax.set_xlabel("mean human rating (relevance, 1-5)")
ax.legend(loc="lower right")
plt.tight_layout()

# %% [markdown]
# The ranking of the 11 generators: NUTS's rank intervals, and the agreement of each
# method's ranking with the all-human one (Kendall's tau over the 11 means).

# %%
ranks = nuts.ranks()
ranks["all-human rank"] = truth.rank(ascending=False).reindex(ranks.index)
print(ranks.round(2).sort_values("rank"))
tau = {
    m: stats.kendalltau(study.fit(m, random_seed=1).estimate(), truth.loc[list(study.systems)])[0]
    for m in ("closed_form", "labels_only", "naive")
}
tau["nuts"] = stats.kendalltau(nuts.estimate(), truth.loc[list(study.systems)])[0]
pd.Series(tau, name="Kendall tau with the all-human ranking").round(3)

# %%
closed.contrasts().query("a == 'Human'").round(3).head(5)

# %% [markdown]
# ## 3. What the checks say
#
# `calibration_transport` asks whether one calibration of the human label on the score
# serves every generator; `monotone_calibration` whether the human label rises with the
# score. The closed form does not need the first (its residual term is per system: a
# generator the judge rates kindly costs width, not validity) and the NUTS model has a
# per-system offset by default, so a flag here is a warning for the models that assume it
# (`naive`, and NUTS with `system_shift=False`).

# %%
report = study.check(closed)
print("failures for the closed form:", [r.check for r in report.failures])
report.table.round(4)

# %% [markdown]
# ## 4. Repeated labellings: does each interval cover the all-human mean?
#
# `REPS` random labellings of the same share; each method's interval is compared with the
# generator's mean over all 96 stories. (`benchmarks/scores_hanna.py` runs 200 labellings
# of 10% and 25% on several criteria and judges, against CJE, ppi_py and ppi-aipw.)

# %%
rows = []
for r in range(REPS):
    rr = np.random.default_rng(100 + r)
    lab = np.zeros(len(stories), bool)
    lab[rr.choice(len(stories), int(LABEL_SHARE * len(stories)), replace=False)] = True
    frame = stories.assign(human=stories["human_mean"].where(lab))
    s = jb.ScoreStudy.from_items(
        frame, score="Beluga-13B", human="human", system="system", scale=(1, 5)
    )
    methods = ["closed_form", "ppi_plus_plus", "labels_only"] + (["nuts"] if r < NUTS_REPS else [])
    for m in methods:
        iv = s.fit(m, random_seed=r).interval()
        t = truth.loc[iv.index]
        rows.append(
            {
                "method": m,
                "covers": float(((iv["lower"] <= t) & (t <= iv["upper"])).mean()),
                "width": float((iv["upper"] - iv["lower"]).mean()),
            }
        )
pd.DataFrame(rows).groupby("method").agg(
    labellings=("covers", "size"), coverage=("covers", "mean"), width=("width", "mean")
).round(3)

# %% [markdown]
# ## 5. Several judges
#
# A list of score columns calibrates one index of all of them (their least-squares
# combination, then isotonic).

# %%
two = datasets.hanna_scores("RE", ["Beluga-13B", "ChatGPT"], prompt=1)
two["human"] = two["human_mean"].where(rated)
both = jb.ScoreStudy.from_items(
    two, score=["Beluga-13B", "ChatGPT"], human="human", system="system", scale=(1, 5)
)
pd.concat(
    {
        "Beluga-13B": closed.interval(),
        "Beluga-13B + ChatGPT": both.fit(random_seed=1).interval(),
    },
    axis=1,
).round(3)

# %% [markdown]
# ## 6. LLM-Rubric: a judge that gives a probability over the answers
#
# GPT-3.5 gives a probability over the answers 1-4 to "how satisfied was the user"
# (question Q0); `score={"gpt-3.5": ["p1", "p2", "p3", "p4"]}` reads it as its expected
# answer. The real split has one human answer per dialogue, for 3 dialogue systems; we keep
# 40% of them. The judge's expected answer and the human's correlate at 0.18 (Pearson),
# so the calibration adds little and the intervals stay close to the labels-only ones:
# the closed form says so rather than borrowing strength it does not have.

# %%
rubric = datasets.llm_rubric_scores("real", "Q0")
rubric_truth = rubric.groupby("system")["human"].mean()
keep = np.random.default_rng(2).random(len(rubric)) < 0.4
rubric["rated"] = rubric["human"].where(keep)
rs = jb.ScoreStudy.from_items(
    rubric,
    score={"gpt-3.5": ["p1", "p2", "p3", "p4"]},
    human="rated",
    system="system",
)
out = rs.compare(["closed_form", "labels_only", "naive"], random_seed=0)
out["all-human mean"] = out["unit"].map(rubric_truth)
out[["method", "unit", "estimate", "lower", "upper", "all-human mean"]].round(3)
