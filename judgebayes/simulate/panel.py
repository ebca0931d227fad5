r"""Simulated generator x validator panels with known truth (Jain et al.)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from judgebayes.data.panel import panel_from_items

if TYPE_CHECKING:  # pragma: no cover
    pass


__all__ = ["SimulatedPanel", "simulate_panel"]


@dataclass(frozen=True)
class SimulatedPanel:
    """An item-level generator x validator panel with known truth.

    Attributes
    ----------
    items : DataFrame
        output, generator, validator, verdict ("valid"/"invalid"/None for a missing
        verdict), human ("valid"/"invalid" for annotated generators, else None).
    precision : ndarray (G,)
        Realised share of valid outputs per generator (the estimand).
    tpr, tnr : ndarray (G, V)
        Per-cell validator rates used to draw the verdicts.
    annotated : ndarray of int
        Generators whose outputs carry human labels.
    """

    items: Any
    precision: np.ndarray
    tpr: np.ndarray
    tnr: np.ndarray
    annotated: np.ndarray

    def panel(self):
        """The aggregated :class:`~judgebayes.data.panel.PanelData`."""
        return panel_from_items(self.items)


def simulate_panel(
    n_generators: int = 14,
    n_validators: int = 14,
    *,
    n_outputs: int = 300,
    invalid_rate: float = 0.075,
    precision_sd: float = 0.5,
    tpr_mean: float = 0.96,
    tnr_range: tuple[float, float] = (0.1, 0.5),
    rate_shift: float = 0.5,
    difficulty_sd: float = 1.0,
    missing_range: tuple[float, float] = (0.01, 0.17),
    n_annotated: int = 6,
    seed: int | None = None,
) -> SimulatedPanel:
    r"""Simulate an agreeable validator panel (Jain et al.'s setting) at item level.

    * generator precision: :math:`\operatorname{logit} g_i \sim
      N(\operatorname{logit}(1 - \text{invalid\_rate}), \text{precision\_sd}^2)`; each
      output is valid with probability :math:`g_i`;
    * validator rates: :math:`\operatorname{logit} v^+_j \sim
      N(\operatorname{logit}\text{tpr\_mean}, 0.5^2)`, :math:`v^-_j \sim U(\text{tnr\_range})`;
    * generator-dependent rates: :math:`\operatorname{logit} v^\pm_{ij} =
      \operatorname{logit} v^\pm_j + \text{rate\_shift}\,\epsilon^\pm_{ij}` (0 gives the
      constant rates the regression assumes);
    * shared difficulty: an invalid output :math:`o` has :math:`d_o \sim
      N(0, \text{difficulty\_sd}^2)` and every validator's TNR on it is
      :math:`\sigma(\operatorname{logit} v^-_{ij} - d_o)`, so hard outputs fool all;
    * missing verdicts: validator :math:`j` fails to answer with probability
      :math:`m_j \sim U(\text{missing\_range})` (about 9% on average);
    * the first ``n_annotated`` generators (after a random permutation) carry human labels.
    """
    rng = np.random.default_rng(seed)
    G, V = n_generators, n_validators
    g = expit(rng.normal(logit(1 - invalid_rate), precision_sd, G))
    vp = expit(rng.normal(logit(tpr_mean), 0.5, V))
    vn = rng.uniform(*tnr_range, V)
    tpr = expit(logit(vp)[None, :] + rate_shift * rng.normal(size=(G, V)))
    tnr = expit(logit(vn)[None, :] + rate_shift * rng.normal(size=(G, V)))
    miss = rng.uniform(*missing_range, V)
    annotated = np.sort(rng.permutation(G)[:n_annotated])
    gen = np.repeat(np.arange(G), n_outputs)
    valid = rng.random(gen.size) < g[gen]
    diff = rng.normal(0, difficulty_sd, gen.size)
    # (output, validator) grid
    p_valid = np.where(
        valid[:, None],
        tpr[gen],
        1 - expit(logit(tnr[gen]) - diff[:, None]),
    )
    verdict = rng.random(p_valid.shape) < p_valid
    missing = rng.random(p_valid.shape) < miss[None, :]
    lab = np.where(verdict, "valid", "invalid").astype(object)
    lab[missing] = None
    human = np.where(valid, "valid", "invalid").astype(object)
    human[~np.isin(gen, annotated)] = None
    n_out = gen.size
    items = pd.DataFrame(
        {
            "output": np.repeat([f"o{k}" for k in range(n_out)], V),
            "generator": np.repeat([f"G{i:02d}" for i in gen], V),
            "validator": np.tile([f"V{j:02d}" for j in range(V)], n_out),
            "verdict": lab.ravel(),
            "human": np.repeat(human, V),
        }
    )
    precision = np.bincount(gen, weights=valid, minlength=G) / n_outputs
    return SimulatedPanel(items, precision, tpr, tnr, annotated)
