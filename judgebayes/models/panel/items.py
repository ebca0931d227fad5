"""The items model of a panel: every validator's verdict on each output."""

from __future__ import annotations

from typing import Any

import numpy as np

from judgebayes.models.panel.priors import PanelPriors, panel_rates


def panel_item_model(
    out_gen,
    y_out,
    y_val,
    y,
    human,
    self_mask,
    *,
    generators: tuple[str, ...],
    validators: tuple[str, ...],
    n_outputs: int,
    rate_shift: bool = True,
    self_shift: bool = False,
    difficulty: bool = False,
    priors: PanelPriors | None = None,
):
    """Build the item-level (Dawid-Skene) model.

    Parameters
    ----------
    out_gen : array (n_outputs,) of int
        Generator of each output.
    y_out, y_val, y : arrays (n_verdicts,)
        Output index, validator index and verdict (0/1) of each non-missing verdict.
    human : array (n_outputs,)
        1, 0, or -1 where no human label exists.
    self_mask : array (G, V) of bool
        Self-judgement cells.
    generators, validators : tuple of str
        Coordinates.
    n_outputs : int
        Number of outputs.
    rate_shift, self_shift : bool
        As in :func:`panel_cell_model`.
    difficulty : bool
        Add a per-output difficulty on the TNR, shared by all validators.
    priors : PanelPriors, optional
        Prior settings (default ``PanelPriors()``).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = PanelPriors() if priors is None else priors
    G, V = len(generators), len(validators)
    coords: dict[str, Any] = {"generator": list(generators), "validator": list(validators)}
    if difficulty:
        coords["output"] = np.arange(n_outputs)
    with pm.Model(coords=coords) as model:
        og = pm.Data("out_gen", np.asarray(out_gen, dtype=np.int64))
        yo = pm.Data("y_out", np.asarray(y_out, dtype=np.int64))
        yv = pm.Data("y_val", np.asarray(y_val, dtype=np.int64))
        yy = pm.Data("y", np.asarray(y, dtype=float))
        hh = pm.Data("human_label", np.asarray(human, dtype=float))
        g, lp, ln = panel_rates(pm, pt, G, V, self_mask, rate_shift, self_shift, priors)
        pm.Deterministic("tpr_cell", pm.math.sigmoid(lp), dims=("generator", "validator"))
        pm.Deterministic("tnr_cell", pm.math.sigmoid(ln), dims=("generator", "validator"))
        gi = og[yo]
        lp_r = lp[gi, yv]
        ln_r = ln[gi, yv]
        if difficulty:
            sd_d = pm.HalfNormal("sigma_difficulty", priors.sigma_difficulty)
            dz = pm.Normal("difficulty_z", 0.0, 1.0, dims="output")
            ln_r = ln_r - sd_d * dz[yo]
        # log P(y | c = 1) and log P(y | c = 0), then summed per output
        l1 = yy * -pt.softplus(-lp_r) + (1 - yy) * -pt.softplus(lp_r)
        l0 = yy * -pt.softplus(ln_r) + (1 - yy) * -pt.softplus(-ln_r)
        L1 = pt.inc_subtensor(pt.zeros(n_outputs)[yo], l1)
        L0 = pt.inc_subtensor(pt.zeros(n_outputs)[yo], l0)
        lg = pt.log(g)[og]
        l1g = pt.log1p(-g)[og]
        a1 = lg + L1
        a0 = l1g + L0
        ll = pt.switch(pt.eq(hh, 1.0), a1, pt.switch(pt.eq(hh, 0.0), a0, pt.logaddexp(a1, a0)))
        pm.Potential("items", ll.sum())
    return model
