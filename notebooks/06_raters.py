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
# # Raters who disagree: PandaLM's three annotators, HANNA's three raters, noisy labels
#
# Every corrected rate in this package is corrected against human labels. When the humans
# disagree, "the truth" is itself uncertain. This notebook measures how much they agree,
# with intervals, holds the judges against them, and shows what a latent truth does that
# the majority label does not. Real data, read from the shared data folder (no network):
#
# * **PandaLM** (Apache-2.0): 999 pairs of answers, three human annotators each (0 = tie,
#   1 or 2 = the better answer), and two judges' verdicts (GPT-3.5, PandaLM-7B).
# * **HANNA** (MIT): 1,056 stories from 11 generators, three human ratings (1-5) per story
#   on six criteria, and judge LLMs' ratings.
#
# Sections: 1 PandaLM, the annotators' agreement; 2 can a judge replace an annotator, and
# how many independent judges are two; 3 HANNA, agreement per criterion and why the
# generators matter; 4 labels that are wrong: a latent truth, the majority, one labeller
# with a stated error.

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.datasets import read_csv

pd.set_option("display.width", 200)
pd.set_option("display.max_columns", 30)

# %% tags=["parameters"]
# The settings of the committed outputs; the test suite injects smaller ones after this cell.
BOOTSTRAP = 2000  # bootstrap replicates of the agreement intervals
REPS = 40  # simulated label sets in section 4

# %% [markdown]
# ## 1. PandaLM: how much do the three annotators agree?
#
# One row per pair, one column per annotator. Each coefficient comes with Gwet's
# linearised standard error, an interval (on these 999 pairs and three answers, the
# coefficient's posterior under a Dirichlet model of the pairs' ratings) and a bootstrap
# interval over pairs. The
# coefficients differ in their chance agreement: Fleiss' kappa and Krippendorff's alpha
# take it from how often each answer is used, Gwet's AC1 and Brennan-Prediger from the
# number of answers, so with one answer rare (ties) they can disagree.

# %%
pairs = read_csv("pandalm", "pandalm_pairs.csv")
humans = ["annot1", "annot2", "annot3"]
table = jb.agreement(pairs, raters=humans, bootstrap=BOOTSTRAP)
table[["name", "estimate", "se", "lower", "upper", "boot_lower", "boot_upper", "pe"]].round(3)

# %% [markdown]
# Pairwise Cohen kappas show whether one annotator is the odd one out.

# %%
rows = []
for i, a in enumerate(humans):
    for b in humans[i + 1 :]:
        t = jb.agreement(pairs, raters=[a, b], coefficients=["cohen"], bootstrap=0)
        rows.append({"pair": f"{a} / {b}", **t.iloc[0][["estimate", "lower", "upper"]]})
pd.DataFrame(rows).round(3)

# %% [markdown]
# ## 2. Can a judge replace an annotator?
#
# `judge_agreement` holds each judge's mean kappa with the three annotators against the
# annotators' mean kappa with each other, with a paired bootstrap interval for the
# difference. A judge that could replace a labeller has a difference near zero or above.

# %%
judges = jb.estimators.judge_agreement(
    pairs, ["gpt35_verdict", "pandalm7b_verdict"], humans, bootstrap=BOOTSTRAP
)
judges.round(3)

# %% [markdown]
# Neither can: both agree with the annotators at kappa 0.42-0.48, the annotators with each
# other at 0.86. And two judges are not two independent opinions: given the annotators,
# their errors correlate, so together they are worth fewer than two.

# %%
jb.estimators.effective_judges(
    pairs, ["gpt35_verdict", "pandalm7b_verdict"], humans=humans, bootstrap=BOOTSTRAP
).round(3)

# %% [markdown]
# ## 3. HANNA: agreement per criterion, and what the generators do to it
#
# Three ratings of 1-5 per story, at the interval level (quadratic weights). Resampling
# stories treats them as independent; the 96 stories of one generator share its quality,
# so the honest interval resamples the 11 generators (`cluster="system"`).

# %%
stories = read_csv("hanna", "hanna_judgments.csv")
stories = stories[stories["judge"] == "Beluga-13B"]
three = ["human_1", "human_2", "human_3"]
rows = []
for crit in ["RE", "CH", "EM", "SU", "EG", "CX"]:
    s = stories[stories["criterion"] == crit]
    it = jb.agreement(
        s, raters=three, level="interval", coefficients=["krippendorff"], bootstrap=BOOTSTRAP
    )
    cl = jb.agreement(
        s,
        raters=three,
        level="interval",
        coefficients=["krippendorff"],
        cluster="system",
        bootstrap=BOOTSTRAP,
    )
    rows.append(
        {
            "criterion": crit,
            "alpha": it.loc[0, "estimate"],
            "stories lower": it.loc[0, "lower"],
            "stories upper": it.loc[0, "upper"],
            "generators lower": cl.loc[0, "lower"],
            "generators upper": cl.loc[0, "upper"],
        }
    )
hanna = pd.DataFrame(rows).set_index("criterion")
hanna.round(3)

# %%
fig, ax = plt.subplots(figsize=(7, 3))
y = np.arange(len(hanna))
ax.errorbar(
    hanna["alpha"],
    y + 0.12,
    xerr=[hanna["alpha"] - hanna["stories lower"], hanna["stories upper"] - hanna["alpha"]],
    fmt="o",
    label="stories resampled",
)
ax.errorbar(
    hanna["alpha"],
    y - 0.12,
    xerr=[hanna["alpha"] - hanna["generators lower"], hanna["generators upper"] - hanna["alpha"]],
    fmt="s",
    label="generators resampled",
)
ax.axvline(0.667, color="grey", ls=":", label="Krippendorff's bar (0.667)")
ax.set_yticks(y, hanna.index)
ax.set_xlabel("Krippendorff's alpha (interval), 95% interval")
ax.legend(loc="lower right", fontsize=8)
plt.tight_layout()

# %% [markdown]
# Every criterion is far below Krippendorff's bar for tentative conclusions: a single
# rating of a story says little about it. Does the judge agree with the raters as well as
# they agree with each other? On Complexity, Beluga-13B's rating (rounded) against the
# three raters:

# %%
cx = stories[stories["criterion"] == "CX"].assign(judge=lambda d: d["judge_prompt1"].round())
jb.estimators.judge_agreement(cx, "judge", three, level="interval", bootstrap=BOOTSTRAP).round(3)

# %% [markdown]
# Here the judge agrees with each rater better than the raters agree with each other
# (kappa 0.35 against 0.28, the difference's interval above zero): with raters this
# noisy, the judge could replace one of them, which says as much about the raters as about
# the judge. It also means that correcting a judge against any one of these raters would
# correct it toward that rater's noise (section 4).

# %% [markdown]
# ## 4. Labels that are wrong
#
# A simulation where the truth is known: a judge (sensitivity 0.9, specificity 0.8) on
# 600 items of each of two systems (true rates 0.6 and 0.45), three raters who are each
# right 85-90% of the time on a random 30% of the items. Three readings:
#
# * **latent truth** (`human=[...]`, `nuts`): each rater and the judge have their own
#   sensitivity and specificity; the rate is of the true labels;
# * **majority as the truth** (`truth="majority"`, closed form): what most evaluations do;
# * **one labeller** (the first rater alone), its own interval and the sensitivity interval
#   for a labeller wrong up to 10% of the time either way.


# %%
def simulate(rng, theta=(0.6, 0.45), n=600, labelled=0.3, accuracy=(0.85, 0.9, 0.88)):
    rows, shares = [], {}
    for s, t in zip("AB", theta, strict=True):
        truth = rng.random(n) < t
        judge = np.where(truth, rng.random(n) < 0.9, rng.random(n) < 0.2).astype(int)
        d = {"system": s, "judge": judge}
        lab = rng.random(n) < labelled
        for r, a in enumerate(accuracy):
            d[f"h{r}"] = np.where(lab, np.where(rng.random(n) < a, truth, ~truth), np.nan)
        rows.append(pd.DataFrame(d))
        shares[s] = truth.mean()
    return pd.concat(rows, ignore_index=True), shares


rng = np.random.default_rng(2026)
hits = {"latent truth": 0, "majority": 0, "one labeller": 0, "one labeller, error <= 0.1": 0}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)  # the check's own false alarms
    for _ in range(REPS):
        df, shares = simulate(rng)
        raters = ["h0", "h1", "h2"]
        latent = jb.AccuracyStudy.from_items(df, human=raters, system="system")
        lat = latent.fit("nuts", random_seed=int(rng.integers(1 << 31))).interval()
        maj = (
            jb.AccuracyStudy.from_items(df, human=raters, system="system", truth="majority")
            .fit("closed_form")
            .interval()
        )
        one_fit = jb.AccuracyStudy.from_items(df, human="h0", system="system").fit("closed_form")
        one = one_fit.interval()
        sens = jb.human_error_interval(one_fit, 0.1)
        for s, true in shares.items():
            for key, t in (
                ("latent truth", lat),
                ("majority", maj),
                ("one labeller", one),
                ("one labeller, error <= 0.1", sens),
            ):
                hits[key] += t.loc[s, "lower"] <= true <= t.loc[s, "upper"]
pd.Series({k: v / (2 * REPS) for k, v in hits.items()}, name="coverage of the items' true rate")

# %% [markdown]
# The latent truth covers; the majority of three good raters is right often enough to
# come close; one labeller's own interval is for that labeller's rate, and misses the
# truth more often than it should. Stating how wrong the labeller may be
# (`human_error_interval`) buys the coverage back, at a width the statement sets.
# `BENCHMARKS.md` has these figures over 200 sets each.
