"""SBC problems of the panel and scores families."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.errors import InputError
from judgebayes.models.panel import PanelPriors
from judgebayes.simulate.sbc.result import SBCDataset
from judgebayes.studies.panel import ValidatorPanel

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def _panel_rates(rng, pr, G, V):
    """Generator precisions and cell rates drawn from the cell/item models' prior
    (``panel_rates`` in :mod:`judgebayes.models.panel`, with rate shifts when G > 1).
    """
    mu_g = rng.normal(*pr.mu_g)
    lg = mu_g + abs(rng.normal(0, pr.sigma_g)) * rng.normal(size=G) if G > 1 else np.r_[mu_g]
    mu_p, mu_n = rng.normal(*pr.mu_tpr), rng.normal(*pr.mu_tnr)
    lp_j = mu_p + abs(rng.normal(0, pr.sigma_tpr)) * rng.normal(size=V)
    ln_j = mu_n + abs(rng.normal(0, pr.sigma_tnr)) * rng.normal(size=V)
    lp, ln = np.broadcast_to(lp_j, (G, V)), np.broadcast_to(ln_j, (G, V))
    if G > 1:
        tg_p, tg_n = abs(rng.normal(0, pr.tau_generator, 2))
        tc_p, tc_n = abs(rng.normal(0, pr.tau_cell, 2))
        lp = lp + tg_p * rng.normal(size=G)[:, None] + tc_p * rng.normal(size=(G, V))
        ln = ln + tg_n * rng.normal(size=G)[:, None] + tc_n * rng.normal(size=(G, V))
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    return sig(lg), sig(lp_j), sig(ln_j), sig(lp), sig(ln)


def _panel_cells(G: int = 4, V: int = 4, n_out: int = 80, n_ann: int = 30, annotated: int = 2):
    def draw(rng) -> SBCDataset:

        pr = PanelPriors()
        g, tpr, tnr, vp, vn = _panel_rates(rng, pr, G, V)
        # the realised share of valid outputs among the unannotated ones, as the model
        # states it (logit-normal around logit g, Haldane-Anscombe sd)
        sd_f = np.sqrt(1 / (n_out * g + 0.5) + 1 / (n_out * (1 - g) + 0.5))
        f = 1 / (1 + np.exp(-(np.log(g / (1 - g)) + rng.normal(size=G) * sd_f)))
        k_rest = rng.binomial(n_out, f[:, None] * vp + (1 - f[:, None]) * (1 - vn))
        ann = np.r_[np.full(annotated, n_ann), np.zeros(G - annotated, int)]
        h = rng.binomial(ann, g)
        tp = rng.binomial(np.broadcast_to(h[:, None], (G, V)), vp)
        tn = rng.binomial(np.broadcast_to((ann - h)[:, None], (G, V)), vn)
        fn, fp = h[:, None] - tp, (ann - h)[:, None] - tn
        panel = ValidatorPanel.from_arrays(
            n_out + ann[:, None] + np.zeros((G, V), int),
            k_rest + tp + fp,
            n_annotated=ann,
            n_valid_human=h,
            tp=tp,
            fn=fn,
            tn=tn,
            fp=fp,
        )
        truth = {
            "g": g,
            "tpr": tpr,
            "tnr": tnr,
            "precision_judged": (h + n_out * f) / (ann + n_out),
        }
        return SBCDataset(panel.model_spec(), truth)

    return draw


def _panel_items(V: int = 5, n_out: int = 120, labelled: int = 20):
    def draw(rng) -> SBCDataset:

        g, tpr, tnr, _, _ = _panel_rates(rng, PanelPriors(), 1, V)
        c = rng.random(n_out) < g[0]
        y = np.where(c[:, None], rng.random((n_out, V)) < tpr, rng.random((n_out, V)) >= tnr)
        human = np.where(np.arange(n_out) < labelled, c.astype(float), np.nan)
        frame = pd.DataFrame(
            {
                "output": np.repeat([f"o{i:04d}" for i in range(n_out)], V),
                "generator": "gen",
                "validator": np.tile([f"v{j}" for j in range(V)], n_out),
                "verdict": y.ravel().astype(int),
                "human": np.repeat(human, V),
            }
        )
        panel = ValidatorPanel.from_items(frame)
        return SBCDataset(panel.item_model_spec(), {"g": g, "tpr": tpr, "tnr": tnr})

    return draw


#: name -> (draw(rng) -> SBCDataset, one line on the setting)
def _scores(n: int = 150, labelled: int = 60, systems: int = 3, levels: int = 5) -> Callable:
    """Judge scores 1-10 and Likert labels from the scores model's prior (every level seen
    among the labels, else drawn again: the model's levels are the labels seen).
    """

    def draw(rng) -> SBCDataset:
        from judgebayes.studies.scores import ScoreStudy

        score = rng.integers(1, 11, (systems, n)).astype(float)
        z = (score - score.mean()) / score.std()
        c = rng.normal(0, 3) + np.concatenate(
            [[0.0], np.cumsum(np.exp(rng.normal(0, 1, levels - 2)))]
        )
        beta = rng.normal(0, 2.5)
        u = rng.normal(0, 1, systems)
        alpha = abs(rng.normal(0, 1)) * (u - u.mean())
        eta = beta * z + alpha[:, None]
        below = expit(c[None, None, :] - eta[..., None])  # P(H <= k), (S, n, K - 1)
        human = 1 + (rng.random((systems, n))[..., None] > below).sum(-1)
        rows = []
        for k in range(systems):
            lab = np.zeros(n, bool)
            lab[rng.choice(n, labelled, replace=False)] = True
            rows.append(
                pd.DataFrame(
                    {"system": f"s{k}", "score": score[k], "human": np.where(lab, human[k], np.nan)}
                )
            )
        frame = pd.concat(rows)
        if frame["human"].nunique() < levels:
            raise InputError("a level without labels", field="human", value=None)
        study = ScoreStudy.from_items(frame, score="score", human="human", system="system")
        truth = {"cutpoints": c, "beta": np.array([beta]), "alpha": alpha}
        return SBCDataset(study.model_spec(), truth)

    return draw
