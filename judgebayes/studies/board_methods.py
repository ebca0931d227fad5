"""The leaderboard's methods beside NUTS: the paired closed form, HELM's item bootstrap,
and a Laplace approximation that integrates the model's spreads (for boards too large
for NUTS).  Importing :mod:`judgebayes.studies` registers them on
:class:`~judgebayes.studies.leaderboard.LeaderboardStudy`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.errors import MethodRefused
from judgebayes.inference import leaderboard as lb
from judgebayes.inference.board_laplace import BoardCells, fit_board_laplace
from judgebayes.inference.registry import check_count
from judgebayes.results import point_tree
from judgebayes.results.trees import tree
from judgebayes.studies.base import FitParts
from judgebayes.studies.leaderboard import LeaderboardStudy, TwoPLBoard

__all__: list[str] = []


def _paired(study: LeaderboardStudy, method: str):
    """The rates on the items every system answered, clusters, the note of the rest."""
    d = study.data
    if d.judged:
        raise MethodRefused(
            f"method {method!r} takes the scores as the truth; these are a judge's (human=): "
            "use method='nuts' (or 'laplace' on large boards), or jb.leaderboard(frame, "
            "human=...) for the corrected means",
            method=method,
        )
    full = np.all(d.n > 0, axis=0)
    if full.sum() < 2:
        raise MethodRefused(
            f"{int(full.sum())} item(s) answered by every system; method {method!r} pairs "
            "them and needs 2: use method='nuts'",
            method=method,
        )
    g = d.cluster[full] if d.clusters else np.arange(int(full.sum()))
    left = [f"{int((~full).sum())} item(s) not answered by every system left out"]
    return d.k[:, full] / d.n[:, full], pd.factorize(g)[0], left if not full.all() else []


@LeaderboardStudy.methods.register(
    "bootstrap", engine="closed_form", summary="resampled items (HELM's), percentile intervals"
)
def _bootstrap(study: LeaderboardStudy, *, random_seed=None, reps: int = 2000) -> FitParts:
    """Each system's mean in ``reps`` resamples of the items (clusters): percentiles."""
    x, g, notes = _paired(study, "bootstrap")
    means = lb.resampled_means(x, g, reps, random_seed)
    idata = tree({"posterior": {"theta_process": means[None]}}, dims={"theta_process": ["system"]},
                 coords={"system": list(study.systems)})  # fmt: skip
    return FitParts(idata, quantity="theta_process", info={"reps": reps}, notes=tuple(notes))


@LeaderboardStudy.methods.register(
    "closed_form", engine="closed_form", summary="paired cluster-robust means, t intervals"
)
def _closed_form(study: LeaderboardStudy, *, random_seed=None) -> FitParts:
    x, g, notes = _paired(study, "closed_form")
    board = lb.board(x, g, alpha=0.05, bootstrap=0, random_seed=0)
    df = max(board.df, 1)

    def interval(alpha):
        q = stats.t.ppf(1 - alpha / 2, df)
        return board.mean - q * board.se, board.mean + q * board.se

    idata = point_tree({"theta_process": board.mean, "se": board.se}, "system", study.systems)

    def table(alpha: float, top_k: int) -> pd.DataFrame:
        b = lb.board(x, g, alpha=alpha, bootstrap=1000, random_seed=0)
        out = lb.ranked_table(b, list(study.systems), alpha, top_k)
        out = out.sort_values(["estimate", "system"], ascending=[False, True], kind="stable")
        return out.reset_index(drop=True)

    return FitParts(
        idata,
        quantity="theta_process",
        info={"df": df},
        notes=tuple(notes),
        interval_fn=interval,
        extra={"table_fn": table},
    )


@LeaderboardStudy.methods.register(
    "laplace", engine="laplace", summary="Laplace, the spreads integrated (large boards)"
)
def _laplace(study: LeaderboardStudy, *, random_seed=None, draws: int = 2000, points: int = 16):
    """``draws`` draws of the one-parameter (or exchangeable) board from
    :func:`~judgebayes.inference.board_laplace.fit_board_laplace`, its spreads integrated
    over ``points`` points.
    """
    d = study.data
    if d.clusters:
        raise MethodRefused(
            "the leaderboard's Laplace fit does not cover item clusters; use method='nuts'",
            method="laplace",
        )
    draws = check_count(draws, "draws", minimum=100)
    points = check_count(points, "points", minimum=4)
    c = BoardCells.of(d, items=study.item_effects, overdispersed=study.overdispersed)
    rng = np.random.default_rng(random_seed)
    out, info = fit_board_laplace(c, study.priors, draws=draws, points=points, rng=rng)
    dims = {"ability": ["system"], "difficulty": ["item"]}
    dims |= {"sensitivity": ["system"], "specificity": ["system"]}
    idata = tree(
        {"posterior": {k: v[None] for k, v in out.items()}},
        dims={k: v for k, v in dims.items() if k in out},
        coords={"system": list(d.systems), "item": list(d.items)},
    )
    what = "the field's Gaussian"
    if d.judged:
        what = "the systems' Gaussian, each item integrated out,"
    note = (
        f"Laplace: {what} at each of {info['points']} points of the spreads "
        f"({info['psi_ess']} effective)"
    )
    parts = FitParts(idata, info=info, notes=(note,) if c.n_psi else ())
    return study._bayes_done(parts, random_seed)


TwoPLBoard.methods.refuse(
    "laplace",
    "the Laplace fit covers the one-parameter and exchangeable boards: the discriminations "
    "multiply the abilities, so their block is not Gaussian; use method='nuts'",
)
