"""SBC problems of the leaderboard family."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from judgebayes.models.leaderboard import BoardPriors
from judgebayes.simulate.sbc.result import SBCDataset


def _board(systems: int = 5, items: int = 40) -> Callable:
    """One 0/1 outcome per system and item from the one-parameter model's prior: abilities
    N(0, 2), the items' spread half-normal(1.5), their deviations a standard normal less
    its mean (PyMC's zero-sum normal) times the spread.  With one trial a cell and five
    systems no item is centred, so the model fitted is the one the data were drawn from.
    """

    def draw(rng) -> SBCDataset:
        from judgebayes.studies.leaderboard import LeaderboardStudy

        pr = BoardPriors()
        ability = rng.normal(0, pr.ability_sd, systems)
        sigma = abs(rng.normal(0, pr.item_sd))
        z = rng.normal(0, 1, items)
        z = z - z.mean()
        b = sigma * z
        p = 1 / (1 + np.exp(-(ability[:, None] - b[None, :])))
        y = (rng.random(p.shape) < p).astype(float)
        frame = pd.DataFrame(
            {
                "system": np.repeat([f"s{k}" for k in range(systems)], items),
                "item": np.tile([f"i{i:03d}" for i in range(items)], systems),
                "score": y.ravel(),
            }
        )
        study = LeaderboardStudy.from_frame(frame)
        assert not any(c >= 0 for c in study.centred)  # every item non-centred
        truth = {"ability": ability, "sigma_item": np.array(sigma), "difficulty": b}
        return SBCDataset(study.model_spec(), truth)

    return draw
