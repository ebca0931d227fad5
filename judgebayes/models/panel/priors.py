"""The panel's priors and the pieces its models share: the validators' rates (with
the self-preference and leniency shifts), the observed counts, the realised share.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.errors import InputError

#: from this many validators on, their TPR logits are sampled centred (see ``panel_rates``)
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


def panel_rates(pm, pt, G, V, self_mask, rate_shift, self_shift, pr: PanelPriors):
    """The generators' precision g and the validators' TPR and TNR logits per cell
    (logit-normal hierarchies, with the generator and self shifts when asked): the cell and
    item-level models' shared rates, as (g, TPR logits, TNR logits).
    """
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


def count_data(pm, n_rest, k_rest, tp, pos, tn, neg, n_annotated, n_valid_human, n_outputs_rest):
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


def realised_share(pm, pt, lg, g, n_out, d):
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
