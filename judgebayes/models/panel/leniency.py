"""The leniency model of a panel: each validator's leniency shared across generators."""

from __future__ import annotations

import numpy as np

from judgebayes.models.panel.priors import PanelPriors, count_data, realised_share


def panel_leniency_model(
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
    annotated: tuple[bool, ...],
    self_shift: bool = False,
    priors: PanelPriors | None = None,
):
    r"""Build the leniency model: validators shift the share valid on the logit scale.

    Instead of a sensitivity and a specificity per validator, each validator :math:`j`
    judges a generator's outputs valid at a rate shifted from their share valid by its
    leniency :math:`b_j`, plus a generator-level and a cell-level deviation:

    .. math::
        \operatorname{logit} g_i &\sim N(\mu_g, s_g^2)\ \text{(independent: no pooling)},
        \\
        \operatorname{logit} r_{ij} &= \operatorname{logit} \phi_{ij} + b_j
            + \omega u_i + e_{ij} + \delta s_{ij},
        \qquad b_j = \mu_b + \sigma_b a_j,

    with :math:`u, a \sim N(0, 1)` (the :math:`a_j` summing to zero), :math:`e_{ij} \sim
    N(0, \tau^2)`, :math:`\phi_{ij}` the share valid among the outputs
    the verdicts are of: the realised share :math:`f_i` of the generator's unannotated
    outputs (as in the cell model), or, on annotated outputs, their known share
    :math:`(pos + 1/2) / (pos + neg + 1)`.  Likelihood: :math:`h_i \sim \text{Bin}(n^{ann}_i,
    g_i)`; the judged-valid counts :math:`tp + fp \sim \text{Bin}(pos + neg, r)` on
    annotated outputs and :math:`k \sim \text{Bin}(n, r)` on the rest.  The annotated
    generators teach the leniencies and the spread :math:`\omega` of a generator's
    deviation from them; an unannotated generator's precision is its verdicts' logit
    rate minus the leniencies, uncertain by :math:`\omega` (learnt from as few as the
    annotated generators are: the interval says so).  The generator precisions are not
    pooled: a hierarchy would pull an unusual generator toward the others by the share
    :math:`\omega^2 / (\omega^2 + \sigma_g^2)`, which the verdicts cannot undo.

    Sampled so that what the data pin is a coordinate: the offsets :math:`\sigma_b a_j`
    centred and summing to zero (:math:`\mu_b` is the validators' mean leniency; the
    verdicts pin the differences); each cell's deviation centred (its hundreds of verdicts
    pin it); an annotated generator's precision and level :math:`\mu_b + \omega u_i`
    centred (humans and verdicts pin both); an unannotated one as :math:`c_i =
    \operatorname{logit} g_i + \mu_b + \omega u_i` (what its verdicts see; flat) and
    :math:`u_i`, with the prior on :math:`\operatorname{logit} g_i` added as a potential
    (unit Jacobian).  Which
    generators are annotated is therefore structure (``annotated``), not data.  Priors
    (data, :class:`PanelPriors`): :math:`(\mu_g, s_g)` = ``mu_g``; :math:`\mu_b`
    ``mu_leniency``; :math:`\sigma_b` ``sigma_leniency``; :math:`\omega` ``tau_generator``;
    :math:`\tau` ``tau_cell``; :math:`\delta` ``self_shift``.  No prior predictive draws
    (the flat :math:`c`).

    Where validators' judged rates follow the share valid one to one on the logit scale
    whatever the generator (LLM validators that wave most invalid outputs through, and
    catch more of a weaker generator's mistakes), this model reads a generator's precision
    off its verdicts; where their sensitivity and specificity are fixed properties of the
    validator, the cell model's mixture is the model, and there this one's intervals
    under-cover held-out generators (BENCHMARKS: the real Beyond Consensus panel and
    simulated ones).  Check ``leniency`` (:mod:`judgebayes.checks.panel.leniency`) tests the
    one-to-one slope on the annotated generators, and ``ValidatorPanel.fit("nuts")``
    without a variant chooses between the two models by it.

    Parameters are those of :func:`panel_cell_model` (without ``rate_shift`` and
    ``overdispersion``), and ``annotated`` (per generator: has human annotations).

    Returns
    -------
    pm.Model
        ``g``, ``precision_judged`` and ``f`` (generator), ``leniency`` (validator),
        ``omega``, ``tau`` and the observed ``human``, ``annotated_cells``, ``cells``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = PanelPriors() if priors is None else priors
    coords = {"generator": list(generators), "validator": list(validators)}
    with pm.Model(coords=coords) as model:
        n_out, d = count_data(
            pm, n_rest, k_rest, tp, pos, tn, neg, n_annotated, n_valid_human, n_outputs_rest
        )
        mu_b = pm.Normal("mu_leniency", *priors.mu_leniency)
        sd_b = pm.HalfNormal("sigma_leniency", priors.sigma_leniency)
        # the verdicts pin the differences between validators (centred); their mean is mu_b
        b = pm.ZeroSumNormal("leniency_offset", sd_b, dims="validator")
        pm.Deterministic("leniency", mu_b + b, dims="validator")
        omega = pm.HalfNormal("omega", priors.tau_generator)
        ann = np.asarray(annotated, dtype=bool)
        ia, iu = np.flatnonzero(ann), np.flatnonzero(~ann)
        lg_parts, level_parts = [], []
        if ia.size:  # precision and shift pinned by humans and verdicts: centred
            lg_parts.append(pm.Normal("g_logit_annotated", *priors.mu_g, shape=ia.size))
            level_parts.append(pm.Normal("shift_annotated", mu_b, omega, shape=ia.size))
        if iu.size:  # only their sum is seen: sampled as it (c) and the shift's offset
            u = pm.Normal("generator_z", 0.0, 1.0, shape=iu.size)
            c = pm.Flat("judged_logit", shape=iu.size, initval=np.full(iu.size, priors.mu_g[0]))
            level_u = mu_b + omega * u
            lg_u = c - level_u
            pm.Potential("g_prior", pm.logp(pm.Normal.dist(*priors.mu_g), lg_u).sum())
            lg_parts.append(lg_u)
            level_parts.append(level_u)
        order = np.argsort(np.concatenate([ia, iu]))
        lg = pt.concatenate(lg_parts)[order]
        level = pt.concatenate(level_parts)[order]
        g = pm.Deterministic("g", pm.math.sigmoid(lg), dims="generator")
        tau = pm.HalfNormal("tau", priors.tau_cell)
        # each cell's verdicts (hundreds) pin its deviation: centred
        e = pm.Normal("cell_deviation", 0.0, tau, dims=("generator", "validator"))
        shift = b[None, :] + level[:, None] + e
        if self_shift:
            s = pm.Data(
                "self_mask", np.asarray(self_mask, dtype=float), dims=("generator", "validator")
            )
            shift = shift + pm.Normal("self_shift", 0.0, priors.self_shift) * s
        # the realised share of the unannotated outputs, as in the cell model
        lf, _ = realised_share(pm, pt, lg, g, n_out, d)
        pm.Binomial("human", n=d["n_annotated"], p=g, observed=d["n_valid_human"], dims="generator")
        n_ann_cell = d["pos"] + d["neg"]
        share = (pt.cast(d["pos"], "float64") + 0.5) / (pt.cast(n_ann_cell, "float64") + 1.0)
        pm.Binomial(
            "annotated_cells",
            n=n_ann_cell,
            p=pm.math.sigmoid(pm.math.logit(share) + shift),
            observed=d["tp"] + d["neg"] - d["tn"],
            dims=("generator", "validator"),
        )
        pm.Binomial(
            "cells",
            n=d["n_rest"],
            p=pm.math.sigmoid(lf[:, None] + shift),
            observed=d["k_rest"],
            dims=("generator", "validator"),
        )
    return model
