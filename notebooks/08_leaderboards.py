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
# # Leaderboards: HANNA's generators, LiveCodeBench and AlpacaEval
#
# A leaderboard scores many systems on the same items and reports a ranked table. Its ranks
# are estimates too. `jb.leaderboard` pairs every comparison by item, gives each system a
# rank interval that holds for every system at once, and groups the systems into tiers no
# claim can split; `jb.LeaderboardStudy` shares each item's difficulty across systems in a
# Bayesian item-response model. Three real boards, read from the shared data folder:
#
# * **HANNA** (MIT): 11 story generators on the same 96 writing prompts, three human
#   ratings a story and judge LLMs' ratings: a board whose truth (the humans' mean) is
#   known, so a judge's board and its correction can be held against it.
# * **LiveCodeBench** (code MIT; 45 models x 400 problems, 10 samples each, unit tests):
#   a board without a judge, and a new model's rate from a few problems.
# * **AlpacaEval 2.0** (data CC BY-NC 4.0, read here only): 58 models x 805 instructions,
#   a GPT-4-turbo judge that favours long answers.
#
# Sections: 1 HANNA, the humans' board, the judge's, and the judge's corrected by a few
# human ratings; 2 LiveCodeBench, the closed form and the Bayesian board, and a new model
# from 40 problems; 3 AlpacaEval, as published and with the judge's length pull taken out.

# %%
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
LABEL_SHARE = 0.15  # share of HANNA's stories whose human ratings are used
LCB_MODELS = 20  # LiveCodeBench models in the Bayesian board (the rest are held out)
LCB_PROBLEMS = 200  # and problems
DRAWS = 1000  # NUTS draws a chain
NEW_ITEMS = 40  # problems a held-out model answers

# %% [markdown]
# ## 1. HANNA: the humans' board, the judge's, and the judge's corrected
#
# Each generator wrote a story for each of the 96 prompts, so `item="prompt_id"` pairs
# them. The humans' board uses every story's mean human rating (relevance); the judge's
# board uses Beluga-13B's rating alone; the corrected board uses the judge's rating with
# the human ratings of a random 15% of the stories (`human=`).

# %%
hanna = datasets.hanna_scores("RE", "Beluga-13B")
rng = np.random.default_rng(0)
hanna["human"] = hanna["human_mean"].where(rng.random(len(hanna)) < LABEL_SHARE)
cols = {"system": "system", "item": "prompt_id", "scale": (1, 5)}  # ratings of 1 to 5
boards = {
    "humans (all stories)": jb.leaderboard(hanna, score="human_mean", **cols),
    "judge alone": jb.leaderboard(hanna.dropna(subset=["Beluga-13B"]), score="Beluga-13B", **cols),
    "judge + 15% human": jb.leaderboard(
        hanna.dropna(subset=["Beluga-13B"]), score="Beluga-13B", human="human", **cols
    ),
}
truth = boards["humans (all stories)"].set_index("system")
side = pd.concat(
    {k: b.set_index("system")[["estimate", "rank", "rank_lower", "rank_upper", "tier"]]
     for k, b in boards.items()},
    axis=1,
).loc[truth.index]  # fmt: skip
side.round(3)

# %% [markdown]
# How each board ranks the generators against the humans' order, and whether its
# intervals hold the humans' mean (the judge's scale is not the humans', so its own means
# are on another scale: only its order can be compared).

# %%
for name, b in boards.items():
    t = b.set_index("system").loc[truth.index]
    rho = stats.spearmanr(t["estimate"], truth["estimate"]).statistic
    held = ((t["lower"] <= truth["estimate"]) & (truth["estimate"] <= t["upper"])).mean()
    print(f"{name:22s} Spearman with the humans' order {rho:.3f}; tiers {t['tier'].max()}; "
          f"intervals holding the humans' mean {held:.2f}")  # fmt: skip

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharex=True)
jb.plot_ranks(boards["humans (all stories)"], ax=axes[0])
axes[0].set_title("humans (all stories)")
jb.plot_ranks(
    boards["judge + 15% human"],
    ax=axes[1],
    truth=dict(zip(truth.index, truth["rank"], strict=True)),
)
axes[1].set_title("judge + 15% human (crosses: the humans' ranks)")
fig.tight_layout()

# %% [markdown]
# ## 2. LiveCodeBench: a board without a judge, and a new model from a few problems
#
# The closed form on all 45 models x 400 problems (each row: the share of 10 samples that
# passed), then the Bayesian one-parameter board on a subset, fitted by NUTS, and a model
# held out of it estimated from `NEW_ITEMS` problems chosen by `fit.plan_items`.

# %%
lcb = datasets.livecodebench_generation()
closed = jb.leaderboard(lcb, system="model", item="question_id", score="solved", top_k=3)
print(f"{len(closed)} models: {closed['tier'].max()} tiers; the top three's rank intervals")
closed.head(3)[["system", "estimate", "lower", "upper", "rank_lower", "rank_upper", "p_top_k"]]

# %%
models = list(closed["system"][:: max(1, len(closed) // (LCB_MODELS + 1))][: LCB_MODELS + 1])
held_out = models[len(models) // 2]
problems = list(lcb["question_id"].drop_duplicates().sample(LCB_PROBLEMS, random_state=1))
sub = lcb[lcb["model"].isin(models) & lcb["question_id"].isin(problems)]
study = jb.LeaderboardStudy.from_items(
    sub[sub["model"] != held_out],
    system="model",
    item="question_id",
    score="n_correct",
    trials="n_samples",
)
fit = study.fit("nuts", random_seed=1, sampler={"draws": DRAWS, "tune": DRAWS})
d = fit.diagnostics
print(f"gate passed {d.passed}: R-hat {d.r_hat_max:.3f}, bulk ESS {d.ess_bulk_min:.0f}, "
      f"{d.divergences} divergences")  # fmt: skip
fit.leaderboard(top_k=3).head(8)

# %%
rows = sub[sub["model"] == held_out].set_index("question_id")
true_rate = rows["n_correct"].sum() / rows["n_samples"].sum()
chosen = fit.plan_items(NEW_ITEMS)
est = fit.new_system(rows.loc[chosen, "n_correct"], trials=rows.loc[chosen, "n_samples"])
print(f"{held_out}: rate on the {len(problems)} problems {true_rate:.3f}; from {NEW_ITEMS} "
      f"planned problems {est['estimate']:.3f} [{est['lower']:.3f}, {est['upper']:.3f}]")  # fmt: skip

# %% [markdown]
# ## 3. AlpacaEval 2.0: as published, and with the judge's length pull taken out
#
# The judge's win probability grows with the answer's length over the reference's.
# `adjust="log_len"` fits one slope for every model (with an effect per model and per
# instruction) and gives each model's win rate at the reference's length; the slope's
# uncertainty enters every interval. The position an answer was shown in is drawn once per
# instruction, the same for every model, so it moves no rank.

# %%
ae2 = datasets.alpaca_eval_judgments("weighted_alpaca_eval_gpt4_turbo")
ae2["log_len"] = np.log1p(ae2["len_chars_model"]) - np.log1p(ae2["len_chars_ref"])
cols = {"system": "model", "item": "item_id", "score": "win"}
published = jb.leaderboard(ae2, **cols)
adjusted = jb.leaderboard(ae2, adjust="log_len", **cols)
print(adjusted.attrs["notes"][-1])
for name, t in (("published", published), ("length-adjusted", adjusted)):
    above, names = t.attrs["surely_above"], list(t["system"])
    apart = sum(names[k + 1] in above[names[k]] for k in range(len(names) - 1))
    print(f"{name:16s} tiers {t['tier'].max()}; adjacent ranks separated {apart} of "
          f"{len(t) - 1}")  # fmt: skip

# %%
moved = published[["system", "rank", "tier"]].merge(
    adjusted[["system", "rank", "rank_lower", "rank_upper", "tier"]],
    on="system",
    suffixes=("", " adjusted"),
)
moved = moved.assign(shift=moved["rank"] - moved["rank adjusted"]).sort_values("shift")
moved.set_index("system").iloc[[0, 1, 2, -3, -2, -1]]  # the largest moves, down and up

# %%
fig, ax = plt.subplots(figsize=(7, 12))
jb.plot_ranks(adjusted, ax=ax)
ax.set_title("AlpacaEval 2.0, length-adjusted: rank intervals and tiers")
fig.tight_layout()
