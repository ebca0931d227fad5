"""AlpacaEval 2.0's board (58 models x 805 instructions, GPT-4-turbo's win probability
against a fixed reference), as published and with the judge's length pull taken out.

    python benchmarks/leaderboard_alpaca.py

``jb.leaderboard`` on the per-item wins (the official win rates), and with
``adjust="log_len"`` (the answer's log length over the reference's, both + 1 character):
each model's win rate at the reference's length, one slope for every model.  Printed: the
slope, the tiers and rank intervals of both, how many of the adjacent ranks each separates
(simultaneous intervals, 95%), Spearman's correlation of each with AlpacaEval's own
length-controlled win rate (a logistic model with a length slope per model), and the CPU
time.  The position an answer was shown in is drawn once per instruction, the same for every
model, so it moves no rank (the items absorb it); its pull on the level is printed from the
items' means.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from scipy import stats

import judgebayes as jb
from judgebayes.datasets import alpaca_eval_judgments
from judgebayes.datasets.base import data_dir


def adjacent_separated(table: pd.DataFrame) -> int:
    """How many neighbours in the table's order the simultaneous intervals separate."""
    above, names = table.attrs["surely_above"], list(table["system"])
    return sum(names[k + 1] in above[names[k]] for k in range(len(names) - 1))


def main() -> None:
    ae2 = alpaca_eval_judgments("weighted_alpaca_eval_gpt4_turbo")
    ae2 = ae2.assign(log_len=np.log1p(ae2["len_chars_model"]) - np.log1p(ae2["len_chars_ref"]))
    t0 = time.process_time()
    plain = jb.leaderboard(ae2, system="model", item="item_id", score="win")
    t1 = time.process_time()
    adj = jb.leaderboard(ae2, system="model", item="item_id", score="win", adjust="log_len")
    t2 = time.process_time()
    slope, se, p_one = adj.attrs["slopes"]["log_len"]
    print(
        f"{len(plain)} models x {plain.attrs['n_items']} items; CPU {t1 - t0:.2f} s, "
        f"adjusted {t2 - t1:.2f} s"
    )
    print(f"slope of the win on log length ratio: {slope:+.4f} (se {se:.4f}); one slope for "
          f"every model: p = {p_one:.2g}")  # fmt: skip
    official = pd.read_csv(
        data_dir() / "alpaca_eval" / "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv", index_col=0
    )
    for name, t in (("as published", plain), ("length-adjusted", adj)):
        on = t.set_index("system").join(official, how="inner")
        rho = stats.spearmanr(on["estimate"], on["length_controlled_winrate"]).statistic
        print(
            f"{name}: {t['tier'].max()} tiers; adjacent ranks separated {adjacent_separated(t)} "
            f"of {len(t) - 1}; mean rank-interval length "
            f"{(t['rank_upper'] - t['rank_lower'] + 1).mean():.2f}; Spearman with AlpacaEval's "
            f"length-controlled win rate {rho:.3f} ({len(on)} models)"
        )
    cols = ["system", "estimate", "rank", "rank_lower", "rank_upper", "tier"]
    both = plain[cols].merge(adj[cols], on="system", suffixes=("", "_adjusted"))
    both = both.set_index("system")
    both = both.join(official[["win_rate", "length_controlled_winrate"]])
    pd.set_option("display.width", 220)
    print(both.sort_values("rank").round(3).to_string())
    items = pd.read_csv(data_dir() / "alpaca_eval" / "alpaca_eval_items.csv")
    per_item = ae2.groupby("item_id")["win"].mean()
    shown = items.set_index("item_id")["model_shown_first"].reindex(per_item.index)
    first, second = per_item[shown == 1], per_item[shown == 0]
    print(
        f"position: items where the model was shown first, mean win {first.mean():.3f} "
        f"({len(first)}); second {second.mean():.3f} ({len(second)}); Welch t "
        f"{stats.ttest_ind(first, second, equal_var=False).statistic:.1f}"
    )


if __name__ == "__main__":
    main()
