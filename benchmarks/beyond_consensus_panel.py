"""The real 14 x 14 Beyond Consensus panel, leave one annotated generator out: each method's
largest error in the held-out generator's human precision, and the 90% intervals' coverage.

    python benchmarks/beyond_consensus_panel.py
"""

from __future__ import annotations

import time

import judgebayes as jb
from judgebayes.datasets.beyond_consensus import beyond_consensus_panel


def main() -> None:
    cells, ann = beyond_consensus_panel()
    panel = jb.ValidatorPanel.from_frames(cells, ann[["generator", "n_annotated", "n_valid_human"]])
    t0 = time.perf_counter()
    cv = panel.cross_validate(
        s=[5], methods=("validator_mean", "regression", "plug_in", "nuts"), alpha=0.1
    )
    cols = ["method", "mean_maxae", "worst_maxae", "coverage", "mean_width", "n_failed"]
    print(cv[cols].round(4).to_string(index=False))
    print(f"\n6 held-out generators, {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
