"""The real 14 x 14 Beyond Consensus panel, leave one annotated generator out: each method's
largest error in the held-out generator's human precision, and the 90% intervals' coverage.

    python benchmarks/beyond_consensus_panel.py
"""

from __future__ import annotations

import time

import numpy as np

import judgebayes as jb
from judgebayes.datasets.beyond_consensus import beyond_consensus_panel
from judgebayes.studies.panel import LeniencyPanel, OverdispersedPanel, PooledPanel


def main() -> None:
    cells, ann = beyond_consensus_panel()
    panel = jb.ValidatorPanel.from_frames(cells, ann[["generator", "n_annotated", "n_valid_human"]])
    # the truth: each annotated generator's human valid share pooled over the validators'
    # confusion counts (the annotation row holds one validator's counts, which differ by
    # up to 10% where the authors' merge dropped lines)
    truth = np.full(len(panel.data.generators), np.nan)
    for g, v in zip(ann["generator"], ann["human_precision"], strict=True):
        truth[panel.data.generators.index(g)] = v
    t0 = time.perf_counter()
    cols = ["method", "mean_maxae", "worst_maxae", "coverage", "mean_width", "n_failed"]
    cv = panel.cross_validate(
        s=[5], methods=("validator_mean", "regression", "plug_in", "nuts"), alpha=0.1, truth=truth
    )
    print(cv[cols].round(4).to_string(index=False))
    for model in (PooledPanel, OverdispersedPanel, LeniencyPanel):
        cv = model(panel.data).cross_validate(s=[5], methods=("nuts",), alpha=0.1, truth=truth)
        print(f"nuts, variant={model.model_name}:", cv[cols[1:]].round(4).to_dict("records")[0])
    print(f"\n6 held-out generators, {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
