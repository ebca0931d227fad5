r"""PyMC builders for generator x validator panels (never sample here).

Cell model (:func:`panel_cell_model`).  Generator precision and validator rates on the
logit scale, all non-centred:

.. math::
    \operatorname{logit} g_i &= \mu_g + \sigma_g z_i, \\
    \operatorname{logit} v^+_{ij} &= \mu_+ + \sigma_+ a_j + \omega_+ u_i + \tau_+ e_{ij}
        + \delta_+ s_{ij}, \\
    \operatorname{logit} v^-_{ij} &= \mu_- + \sigma_- b_j + \omega_- w_i + \tau_- f_{ij}
        + \delta_- s_{ij}, \\
    p_{ij} &= g_i v^+_{ij} + (1 - g_i)(1 - v^-_{ij}),

with :math:`z, a, b, u, w, e, f \sim N(0, 1)` (from 10 validators on, :math:`a` is
written centred, :math:`\operatorname{logit} v^+_j \sim N(\mu_+, \sigma_+^2)`: the data
pin each TPR and the spread is learned);
:math:`(\mu_\pm, \sigma_\pm)` are the panel's population of validators (so a panel
learns "validators are agreeable" and a new validator borrows strength);
:math:`\omega_\pm` and :math:`\tau_\pm` are the spreads
of the generator-level deviations of the validator rates (``rate_shift=True``): one
shared by all validators on a generator's outputs (its mistakes are easier or harder to
catch) and one per cell, learned from annotated generators, whose confusion counts
observe :math:`v^\pm_{ij}` directly; :math:`s_{ij}`
flags self-judgement (``self_shift=True``).  Priors: :math:`\mu_g \sim N(2, 1.5)`,
:math:`\mu_+ \sim N(2, 1.5)`, :math:`\mu_- \sim N(0, 1.5)`, :math:`\sigma \sim
\text{Half-}N(1)`, :math:`\omega, \tau \sim \text{Half-}N(0.5)`, :math:`\delta \sim N(0, 1)`.
With one generator there is no spread to learn: :math:`\operatorname{logit} g = \mu_g`, and
the item model drops the generator-level rate shifts (nothing to shift between).

Likelihood, each output counted once:

* human annotations: :math:`h_i \sim \text{Bin}(n^{ann}_i, g_i)`;
* verdicts on annotated outputs: :math:`tp_{ij} \sim \text{Bin}(tp_{ij} + fn_{ij},
  v^+_{ij})`, :math:`tn_{ij} \sim \text{Bin}(tn_{ij} + fp_{ij}, v^-_{ij})` (their true
  labels are known, so they inform the validator rates and nothing else);
* the remaining verdicts.  The V validators of generator :math:`i` judged the *same*
  :math:`N_i` unannotated outputs, so their counts are not V independent samples of
  :math:`g_i`: what they share is the realised share :math:`f_i` of valid outputs among
  those :math:`N_i`, and given it (and the validator rates) they are independent:

  .. math::
      N_i f_i \mid g_i \sim \text{Bin}(N_i, g_i)
      \quad\text{(as}\ \operatorname{logit} f_i = \operatorname{logit} g_i
      + \eta_i s_i,\ \eta_i \sim N(0, 1),\ s_i^2 = \tfrac{1}{N_i g_i + 1/2}
      + \tfrac{1}{N_i (1 - g_i) + 1/2}\text{: the empirical-logit normal with
      Haldane-Anscombe half counts, bounded as } g_i \to 0, 1\text{)},

      k_{ij} \mid f_i \sim \text{Bin}(n_{ij},\ f_i v^+_{ij} + (1 - f_i)(1 - v^-_{ij})),

  or Beta-Binomial with mean :math:`p_{ij}` and concentration :math:`\phi`
  (``overdispersion=True``, :math:`\log\phi \sim N(\log 50, 1.5)`) for dispersion within
  a validator.  However many validators there are, the verdicts can tell no more about
  :math:`g_i` than :math:`N_i` labelled outputs would (before this layer, 14 agreeable
  validators claimed 1.96x that information, and 6.3x for good ones).
  :math:`N_i` is the largest number of unannotated outputs any validator judged (exact
  when every validator judged every output).

Reported: ``g``, the generator's precision (the process that produced the outputs), and
``precision_judged``, its share of valid outputs among the outputs in the panel (annotated
and judged: the finite population, :math:`(h_i + N_i f_i) / (n^{ann}_i + N_i)`).  The
assumption that remains: validators are independent given each output's true label (and,
in the item model, its difficulty).

Missing verdicts and missing cells need no imputation: they are absent from the counts.

Leniency model (:func:`panel_leniency_model`): a validator's judged rate on a generator's
outputs is their share valid shifted by the validator's leniency on the logit scale (plus
generator- and cell-level deviations), with no sensitivity or specificity; read on the
annotated generators and applied to the others.

Item-level model (:func:`panel_item_model`): the true label of each output
:math:`c_o \sim \text{Bernoulli}(g_{i(o)})` is summed out (Dawid-Skene), observed where a
human annotated it; verdict :math:`y_{oj}` has :math:`\Pr(y = 1 \mid c = 1) = v^+_{ij}`
and :math:`\Pr(y = 0 \mid c = 0) = \sigma(\operatorname{logit} v^-_{ij} - d_o)` with an
optional difficulty :math:`d_o \sim N(0, \sigma_d^2)` shared by all validators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.errors import InputError

__all__ = [
    "PanelPriors",
    "panel_cell_model",
    "panel_item_model",
    "panel_leniency_model",
    "panel_var_names",
]


#: from this many validators on, their TPR logits are sampled centred (see ``_rates``)
CENTRED_TPR_MIN = 10


def panel_var_names() -> tuple[str, ...]:
    """Variables the convergence gate checks."""
    return ("g", "tpr", "tnr", "precision_judged")


@dataclass(frozen=True)
class PanelPriors:
    """Priors of the panel models (logit scale), with the reason for each default.

    Attributes
    ----------
    mu_g : (mean, sd)
        Mean logit precision of the generators: N(2, 1.5) puts the median precision at
        0.88 with 90% of the prior mass on 0.29-0.99 (generators are mostly right, but a
        weak one must stay possible).
    sigma_g : float
        Half-normal scale of the generators' spread around it (1: precisions differ
        by up to ~2 logits, as in Jain et al.'s panels).
    mu_tpr, mu_tnr : (mean, sd)
        Mean logit TPR N(2, 1.5) and TNR N(0, 1.5): LLM validators accept valid outputs
        readily (TPR ~ 0.9) and are agreeable, catching about half of the invalid ones.
    sigma_tpr, sigma_tnr : float
        Half-normal scales of the validators' spread (1).
    tau_generator, tau_cell : float
        Half-normal scales of the generator-level and cell-level rate deviations
        (0.5: deviations are smaller than the spread between validators).
    self_shift : float
        Normal sd of a validator's shift on its own model's outputs (1).
    log_phi : (mean, sd)
        Beta-binomial log concentration N(log 50, 1.5) (overdispersed variant).
    mu_leniency : (mean, sd)
        Leniency model: mean validator leniency (logit of the judged rate minus logit
        of the share valid) N(0, 1.5): agreeable validators sit above 0, harsh ones below.
    sigma_leniency : float
        Leniency model: half-normal scale of the validators' spread around it (1).
    sigma_difficulty : float
        Half-normal scale of the item difficulty (item model, 1).
    """

    mu_g: tuple[float, float] = (2.0, 1.5)
    sigma_g: float = 1.0
    mu_tpr: tuple[float, float] = (2.0, 1.5)
    mu_tnr: tuple[float, float] = (0.0, 1.5)
    sigma_tpr: float = 1.0
    sigma_tnr: float = 1.0
    tau_generator: float = 0.5
    tau_cell: float = 0.5
    self_shift: float = 1.0
    log_phi: tuple[float, float] = (float(np.log(50.0)), 1.5)
    sigma_difficulty: float = 1.0
    mu_leniency: tuple[float, float] = (0.0, 1.5)
    sigma_leniency: float = 1.0

    def __post_init__(self):
        for name in ("mu_g", "mu_tpr", "mu_tnr", "log_phi", "mu_leniency"):
            v = getattr(self, name)
            if len(v) != 2 or not v[1] > 0:
                raise InputError(
                    f"PanelPriors.{name} must be (mean, sd) with sd > 0; got {v!r}",
                    field=f"priors.{name}",
                    value=v,
                )
        for name in ("sigma_g", "sigma_tpr", "sigma_tnr", "tau_generator", "tau_cell",
                     "self_shift", "sigma_difficulty", "sigma_leniency"):  # fmt: skip
            v = getattr(self, name)
            if not v > 0:
                raise InputError(
                    f"PanelPriors.{name} must be > 0; got {v!r}", field=f"priors.{name}", value=v
                )


def _rates(pm, pt, G, V, self_mask, rate_shift, self_shift, pr: PanelPriors):
    mu_g = pm.Normal("mu_g", *pr.mu_g)
    if G > 1:
        sd_g = pm.HalfNormal("sigma_g", pr.sigma_g)
        z = pm.Normal("g_z", 0.0, 1.0, dims="generator")
        g = pm.Deterministic("g", pm.math.sigmoid(mu_g + sd_g * z), dims="generator")
    else:
        # one generator: a spread between generators has nothing to spread over, and its
        # scale and offset would form a funnel the data cannot resolve (divergences in 5
        # of 6 single-generator item fits); logit g is mu_g itself
        g = pm.Deterministic("g", pm.math.sigmoid(mu_g)[None], dims="generator")
    mu_p = pm.Normal("mu_tpr", *pr.mu_tpr)
    mu_n = pm.Normal("mu_tnr", *pr.mu_tnr)
    sd_p = pm.HalfNormal("sigma_tpr", pr.sigma_tpr)
    sd_n = pm.HalfNormal("sigma_tnr", pr.sigma_tnr)
    # Each validator judges hundreds of valid outputs, so the data pin its TPR logit.  With
    # many validators the spread sigma_tpr is learned too, and the non-centred offsets
    # only trade off against mu_tpr: on 14 x 14 panels 19 of 25 fits missed the gate by
    # R-hat 1.01-1.02 or ESS 369-400 on mu_tpr / tpr_z, and centred TPRs pass.  With a few
    # validators sigma_tpr is weakly identified and the centred form is a funnel (5 x 4
    # panels: 9-29 divergences per fit), so below CENTRED_TPR_MIN validators the TPRs stay
    # non-centred.  TNRs, seen on the few invalid outputs, are always non-centred.
    if V >= CENTRED_TPR_MIN:
        lp_j = pm.Normal("tpr_logit", mu_p, sd_p, dims="validator")
    else:
        lp_j = mu_p + sd_p * pm.Normal("tpr_z", 0.0, 1.0, dims="validator")
    b = pm.Normal("tnr_z", 0.0, 1.0, dims="validator")
    ln_j = mu_n + sd_n * b
    pm.Deterministic("tpr", pm.math.sigmoid(lp_j), dims="validator")
    pm.Deterministic("tnr", pm.math.sigmoid(ln_j), dims="validator")
    lp = pt.broadcast_to(lp_j[None, :], (G, V))
    ln = pt.broadcast_to(ln_j[None, :], (G, V))
    if rate_shift:
        # a shift shared by every validator on one generator's outputs (its mistakes are
        # easier or harder to catch) plus a cell-level one
        tau_gp = pm.HalfNormal("tau_gen_tpr", pr.tau_generator)
        tau_gn = pm.HalfNormal("tau_gen_tnr", pr.tau_generator)
        u = pm.Normal("tpr_gen_z", 0.0, 1.0, dims="generator")
        w = pm.Normal("tnr_gen_z", 0.0, 1.0, dims="generator")
        tau_p = pm.HalfNormal("tau_tpr", pr.tau_cell)
        tau_n = pm.HalfNormal("tau_tnr", pr.tau_cell)
        e = pm.Normal("tpr_dev_z", 0.0, 1.0, dims=("generator", "validator"))
        f = pm.Normal("tnr_dev_z", 0.0, 1.0, dims=("generator", "validator"))
        lp = lp + tau_gp * u[:, None] + tau_p * e
        ln = ln + tau_gn * w[:, None] + tau_n * f
    if self_shift:
        s = pm.Data(
            "self_mask", np.asarray(self_mask, dtype=float), dims=("generator", "validator")
        )
        d_p = pm.Normal("self_tpr_shift", 0.0, pr.self_shift)
        d_n = pm.Normal("self_tnr_shift", 0.0, pr.self_shift)
        lp = lp + d_p * s
        ln = ln + d_n * s
    return g, lp, ln


def _count_data(pm, n_rest, k_rest, tp, pos, tn, neg, n_annotated, n_valid_human, n_outputs_rest):
    """The cell models' counts as data: (N_i, {name: data})."""
    if n_outputs_rest is None:
        n_outputs_rest = np.asarray(n_rest).max(axis=1)
    n_out = pm.Data("n_outputs_rest", np.asarray(n_outputs_rest, dtype=float), dims="generator")
    d = {
        name: pm.Data(name, np.asarray(val, dtype=np.int64), dims=dims)
        for name, val, dims in (
            ("n_rest", n_rest, ("generator", "validator")),
            ("k_rest", k_rest, ("generator", "validator")),
            ("tp", tp, ("generator", "validator")),
            ("pos", pos, ("generator", "validator")),
            ("tn", tn, ("generator", "validator")),
            ("neg", neg, ("generator", "validator")),
            ("n_annotated", n_annotated, "generator"),
            ("n_valid_human", n_valid_human, "generator"),
        )
    }
    return n_out, d


def _realised_share(pm, pt, lg, g, n_out, d):
    """The realised share f of valid outputs among the N_i unannotated outputs, shared by
    every validator of generator i (non-centred, logit scale), and ``precision_judged``;
    returns (logit f, f).

    Its logit sd is the empirical-logit one with the Haldane-Anscombe half counts,
    sqrt(1 / (N g + 1/2) + 1 / (N (1 - g) + 1/2)): the plain delta method's
    1 / sqrt(N g (1 - g)) grows without bound as g -> 1, and that curvature made NUTS
    diverge in 12 of 30 small panels (benchmarks/panel_gate.py).
    """
    eta = pm.Normal("f_z", 0.0, 1.0, dims="generator")
    n_eff = pt.maximum(n_out, 1.0)
    sd_f = pt.sqrt(1.0 / (n_eff * g + 0.5) + 1.0 / (n_eff * (1 - g) + 0.5))
    lf = lg + eta * sd_f
    f = pm.Deterministic("f", pm.math.sigmoid(lf), dims="generator")
    na = pt.cast(d["n_annotated"], "float64")
    pm.Deterministic(
        "precision_judged",
        (pt.cast(d["n_valid_human"], "float64") + n_out * f) / pt.maximum(na + n_out, 1.0),
        dims="generator",
    )
    return lf, f


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
        n_out, d = _count_data(
            pm, n_rest, k_rest, tp, pos, tn, neg, n_annotated, n_valid_human, n_outputs_rest
        )
        g, lp, ln = _rates(pm, pt, G, V, self_mask, rate_shift, self_shift, priors)
        vp = pm.Deterministic("tpr_cell", pm.math.sigmoid(lp), dims=("generator", "validator"))
        vn = pm.Deterministic("tnr_cell", pm.math.sigmoid(ln), dims=("generator", "validator"))
        _, f = _realised_share(pm, pt, pm.math.logit(g), g, n_out, d)
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
    validator, the cell model's mixture is the model, and there this one's 90% intervals
    covered 0.86 of held-out generators (BENCHMARKS: the real Beyond Consensus panel and
    simulated ones).  Check ``leniency`` (:mod:`judgebayes.checks.leniency`) tests the
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
        n_out, d = _count_data(
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
        lf, _ = _realised_share(pm, pt, lg, g, n_out, d)
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
    coords = {"generator": list(generators), "validator": list(validators)}
    if difficulty:
        coords["output"] = np.arange(n_outputs)
    with pm.Model(coords=coords) as model:
        og = pm.Data("out_gen", np.asarray(out_gen, dtype=np.int64))
        yo = pm.Data("y_out", np.asarray(y_out, dtype=np.int64))
        yv = pm.Data("y_val", np.asarray(y_val, dtype=np.int64))
        yy = pm.Data("y", np.asarray(y, dtype=float))
        hh = pm.Data("human_label", np.asarray(human, dtype=float))
        g, lp, ln = _rates(pm, pt, G, V, self_mask, rate_shift, self_shift, priors)
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
