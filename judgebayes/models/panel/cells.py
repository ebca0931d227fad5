"""The cells model of a generator x validator panel."""

from __future__ import annotations

from judgebayes.models.panel.priors import PanelPriors, count_data, panel_rates, realised_share


def panel_cell_model(
    n_rest,
    k_rest,
    tp,
    pos,
    tn,
    neg,
    n_annotated,
    n_valid_human,
    self_mask,
    n_outputs_rest=None,
    *,
    generators: tuple[str, ...],
    validators: tuple[str, ...],
    rate_shift: bool = True,
    overdispersion: bool = False,
    self_shift: bool = False,
    priors: PanelPriors | None = None,
):
    """Build the cell model (see the module docstring).

    Parameters
    ----------
    n_rest, k_rest : array (G, V)
        Verdicts on outputs without a human label: judged and called valid.
    tp, pos, tn, neg : array (G, V)
        Verdicts on human-annotated outputs: true positives out of positives, true
        negatives out of negatives.
    n_annotated, n_valid_human : array (G,)
        Human annotations per generator.
    self_mask : array (G, V) of bool
        Self-judgement cells.
    n_outputs_rest : array (G,), optional
        :math:`N_i`, unannotated outputs per generator (default: the largest ``n_rest``
        of the generator's cells).
    generators, validators : tuple of str
        Coordinates.
    rate_shift : bool
        Generator-level deviations of the validator rates.
    overdispersion : bool
        Beta-binomial instead of binomial for the remaining verdicts.
    self_shift : bool
        A shift of the validator's rates on its own model's outputs.
    priors : PanelPriors, optional
        Prior settings (default ``PanelPriors()``).

    Returns
    -------
    pm.Model
        ``g`` and ``precision_judged`` (generator), ``f`` (the realised share among the
        unannotated outputs), ``tpr``/``tnr`` (validator, population-level rates of each
        validator), ``tpr_cell``/``tnr_cell`` (generator x validator) and the observed
        ``human``, ``tp_obs``, ``tn_obs``, ``cells``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = PanelPriors() if priors is None else priors
    G, V = len(generators), len(validators)
    coords = {"generator": list(generators), "validator": list(validators)}
    with pm.Model(coords=coords) as model:
        n_out, d = count_data(
            pm, n_rest, k_rest, tp, pos, tn, neg, n_annotated, n_valid_human, n_outputs_rest
        )
        g, lp, ln = panel_rates(pm, pt, G, V, self_mask, rate_shift, self_shift, priors)
        vp = pm.Deterministic("tpr_cell", pm.math.sigmoid(lp), dims=("generator", "validator"))
        vn = pm.Deterministic("tnr_cell", pm.math.sigmoid(ln), dims=("generator", "validator"))
        _, f = realised_share(pm, pt, pm.math.logit(g), g, n_out, d)
        p = f[:, None] * vp + (1 - f[:, None]) * (1 - vn)
        p = pt.clip(p, 1e-9, 1 - 1e-9)
        pm.Binomial("human", n=d["n_annotated"], p=g, observed=d["n_valid_human"], dims="generator")
        pm.Binomial("tp_obs", n=d["pos"], p=vp, observed=d["tp"], dims=("generator", "validator"))
        pm.Binomial("tn_obs", n=d["neg"], p=vn, observed=d["tn"], dims=("generator", "validator"))
        if overdispersion:
            log_phi = pm.Normal("log_phi", *priors.log_phi)
            phi = pt.exp(log_phi)
            pm.BetaBinomial(
                "cells", n=d["n_rest"], alpha=p * phi, beta=(1 - p) * phi,
                observed=d["k_rest"], dims=("generator", "validator"),
            )  # fmt: skip
        else:
            pm.Binomial(
                "cells", n=d["n_rest"], p=p, observed=d["k_rest"], dims=("generator", "validator")
            )
    return model
