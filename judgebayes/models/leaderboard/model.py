r"""The Bayesian leaderboard: systems' abilities and items' difficulties, and a judge.

System :math:`s` answers item :math:`i` correctly with probability

.. math::
    p_{si} = \mathrm{logit}^{-1}\bigl(a_i (\alpha_s - b_i)\bigr),\qquad
    \alpha_s \sim N(0, \sigma_\alpha^2),\quad
    b_i = \sigma_c\,u_{c(i)} + \sigma_b\,z_i,\quad
    a_i = \exp(\sigma_a\,w_i),

with :math:`z_i, w_i \sim N(0, 1)` (non-centred; centred for the items whose trials pin
them down; one block of the :math:`z_i` sums to zero), cluster offsets :math:`u_c`
standard normal summing to zero and
:math:`\sigma_b, \sigma_c, \sigma_a` half-normal.  Three nested models: no item effect
(:math:`b_i = 0, a_i = 1`: a rate per system, items exchangeable), the one-parameter
model (Rasch: :math:`a_i = 1`) and the two-parameter model (a discrimination per item).
The guessing board adds a floor to the one-parameter model, as on multiple-choice items,
where a system that knows nothing still picks the right option by chance:

.. math::
    p_{si} = c + (1 - c)\,\mathrm{logit}^{-1}(\alpha_s - b_i),\qquad
    c \sim \mathrm{Beta}(a_c, b_c).

The abilities are on the scale of the board's average item (of its well-measured items
when some items are centred).

The outcomes are binomial counts per cell: :math:`k_{si} \sim \mathrm{Bin}(n_{si},
p_{si})` when the scores are the truth (exact match).  When cells hold several samples
(``trials``), a system's rate on one item varies around :math:`p_{si}` beyond what its
ability and the item's difficulty say (a model solves some hard problems and misses some
easy ones): :math:`r_{si} \sim \mathrm{Beta}(p_{si}\phi, (1 - p_{si})\phi)`,
:math:`k_{si} \sim \mathrm{Bin}(n_{si}, r_{si})`, marginally beta-binomial, with
:math:`\log\phi` normal; the estimands then average the cells' rates :math:`r_{si}`.

When the scores are a judge's verdicts, the truth is latent and the judge errs with
system :math:`s`'s sensitivity and specificity,

.. math::
    k_{si} \sim \mathrm{Bin}\bigl(n_{si},\ p_{si}\,\mathrm{se}_s
      + (1 - p_{si})(1 - \mathrm{sp}_s)\bigr),\qquad
    \mathrm{logit}\,\mathrm{se}_s = \mu_\mathrm{se} + \tau_\mathrm{se} e_s,

(the same for :math:`\mathrm{sp}_s`), partially pooled over systems, so a judge kinder to
one system is learnt from that system's labels.  A labelled row adds its human label
:math:`h \sim \mathrm{Bern}(p_{si})` and the judge's verdict given it (the confusion
counts).  The study's estimands are computed from the draws
(:mod:`judgebayes.studies.leaderboard`): :math:`\theta_s = \frac1I\sum_i p_{si}` (the
benchmark's items) and :math:`\sum_i \pi_i p_{si}`, :math:`\pi \sim
\mathrm{Dirichlet}(1, \dots, 1)` (new items like them: a Bayesian bootstrap of the items,
so the population is not read through a normal's shape).
"""

from __future__ import annotations

import numpy as np

from judgebayes.models.leaderboard.priors import BoardPriors

__all__ = ["board_model", "success_probabilities"]


def board_model(
    k,
    n,
    cell_system,
    cell_item,
    h1,
    n_l,
    lab_system,
    lab_item,
    confusion,
    item_cluster,
    *,
    systems: tuple[str, ...],
    items: tuple[str, ...],
    clusters: tuple[str, ...],
    item_effects: bool,
    discrimination: bool,
    judged: bool,
    priors: BoardPriors,
    centred: tuple[int, ...] = (),
    overdispersed: bool = False,
    guessing: bool = False,
):
    r"""The leaderboard model of the module docstring.

    Parameters
    ----------
    k, n : array of int, shape (cells,)
        Successes (judged positive) and trials of each observed cell without a label.
    cell_system, cell_item : array of int, shape (cells,)
        Each cell's system and item codes.
    h1, n_l : array of int, shape (labelled cells,)
        Human positives and labelled rows of each labelled cell.
    lab_system, lab_item : array of int
        Their codes.
    confusion : array of int, shape (systems, 4)
        The judge's (tp, fn, tn, fp) on each system's labelled rows.
    item_cluster : array of int, shape (items,)
        Each item's cluster code (all 0 without clusters).
    systems, items, clusters : tuple of str
        Labels (``clusters`` empty: no cluster effect).
    item_effects, discrimination, judged : bool
        Which model (none, one- or two-parameter) and whether the scores are a judge's.
    priors : BoardPriors
        The priors' settings.
    centred : tuple of int
        Per item: -1, or the block (its cluster) in which its deviation is drawn as it is
        rather than as a scaled standard normal (for an item whose trials pin its
        difficulty down, where the non-centred form makes a funnel of the spread; items
        with few successes or few failures stay non-centred).  Empty: every item
        non-centred.
    overdispersed : bool
        Cells hold several trials: each cell's rate varies around :math:`p_{si}` (the
        beta-binomial likelihood of the module docstring).
    guessing : bool
        A floor :math:`c` under every success probability (the guessing board).

    Returns
    -------
    pm.Model
        ``ability`` (system); with item effects ``difficulty`` (item), ``sigma_item``
        (and ``sigma_cluster``); with discrimination ``discrimination`` (item) and
        ``sigma_disc``; with a floor ``floor`` and ``guessing`` (item: the floor of each
        item, as :func:`success_probabilities` reads it); judged: ``sensitivity``,
        ``specificity`` (system); overdispersed: ``concentration``.  Observed: ``y`` (the
        unlabelled cells), and judged ``human``, ``judge_on_positives``,
        ``judge_on_negatives``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    coords = {"system": list(systems), "item": list(items)}
    if clusters:
        coords["cluster"] = list(clusters)
    with pm.Model(coords=coords) as model:
        # every array through a data variable: a compiled model is reused for another
        # board of the same shapes by swapping them
        d = {
            name: pm.Data(name, np.asarray(v, dtype=np.int64))
            for name, v in (
                ("k", k),
                ("n", n),
                ("cell_system", cell_system),
                ("cell_item", cell_item),
                ("item_cluster", item_cluster),
            )
        }
        ability = pm.Normal("ability", 0.0, priors.ability_sd, dims="system")
        eta = _linear_predictor(
            pm,
            pt,
            ability,
            d["item_cluster"],
            len(items),
            clusters,
            priors,
            item_effects,
            discrimination,
            centred,
        )
        floor = _floor(pm, pt, len(items), priors) if guessing else None
        p_cell = _success(pm, eta[d["cell_system"], d["cell_item"]], floor)
        if not judged and overdispersed:
            lo, sd = priors.concentration
            phi = pm.Deterministic("concentration", pm.math.exp(pm.Normal("log_phi", lo, sd)))
            pm.BetaBinomial(
                "y", n=d["n"], alpha=p_cell * phi, beta=(1 - p_cell) * phi, observed=d["k"]
            )
            return model
        if not judged:
            pm.Binomial("y", n=d["n"], p=p_cell, observed=d["k"])
            return model
        _judged_likelihood(
            pm, eta, floor, p_cell, d, h1, n_l, lab_system, lab_item, confusion, priors
        )
    return model


def _floor(pm, pt, n_items, priors):
    """The guessing floor :math:`c`, and ``guessing``: it on every item."""
    floor = pm.Beta("floor", *priors.floor)
    pm.Deterministic("guessing", floor * pt.ones(n_items), dims="item")
    return floor


def _success(pm, eta, floor):
    """Success probabilities at the linear predictors ``eta``, above ``floor`` (or None)."""
    p = pm.math.invlogit(eta)
    return p if floor is None else floor + (1 - floor) * p


def _linear_predictor(
    pm, pt, ability, item_cluster, n_items, clusters, priors, items, disc, centred
):
    r""":math:`a_i(\alpha_s - b_i)` as a (systems, items) tensor."""
    if not items:
        return ability[:, None] + pt.zeros(n_items)[None, :]
    sigma_item = pm.HalfNormal("sigma_item", priors.item_sd)
    centre = 0.0
    if clusters:
        sigma_cluster = pm.HalfNormal("sigma_cluster", priors.cluster_sd)
        # offsets that sum to zero: a free mean would trade with the abilities' level
        u = pm.ZeroSumNormal("z_cluster", 1.0, dims="cluster")
        centre = (sigma_cluster * u)[item_cluster]
    dev = _deviations(pm, pt, sigma_item, n_items, centred)
    b = pm.Deterministic("difficulty", centre + dev, dims="item")
    if not disc:
        return ability[:, None] - b[None, :]
    sigma_disc = pm.HalfNormal("sigma_disc", priors.discrimination_sd)
    a = pm.Deterministic(
        "discrimination",
        pt.exp(sigma_disc * pm.Normal("z_disc", 0.0, 1.0, dims="item")),
        dims="item",
    )
    return a[None, :] * (ability[:, None] - b[None, :])


def _deviations(pm, pt, sigma_item, n_items, centred):
    r"""Each item's deviation :math:`\sigma_b z_i`, centred for the items ``centred`` marks.

    ``centred[i]`` is -1 (non-centred) or the item's block: the centred deviations of a
    block sum to zero (without any, the non-centred ones do), so no direction of the
    posterior moves a block's difficulties against what else sets their level (every
    ability, or its cluster's offset): a ridge NUTS's diagonal metric crawls along (R-hat
    1.6 on LiveCodeBench's abilities with the deviations' mean free, 1.42 with centred
    deviations under platform offsets).
    """
    block = np.asarray(centred, np.int64) if len(centred) else np.full(n_items, -1)
    if (block < 0).all():
        return sigma_item * pm.ZeroSumNormal("z_item", 1.0, dims="item")
    dev = pt.zeros(n_items)
    for b in np.unique(block[block >= 0]):
        at = np.flatnonzero(block == b)
        own = (
            pm.ZeroSumNormal(f"deviation_{b}", sigma_item, shape=at.size)
            if at.size > 1
            else pm.Normal(f"deviation_{b}", 0.0, sigma_item, shape=1)
        )
        dev = pt.set_subtensor(dev[at], own)
    rest = np.flatnonzero(block < 0)
    if rest.size:
        z = pm.Normal("z_item", 0.0, 1.0, shape=rest.size)
        dev = pt.set_subtensor(dev[rest], sigma_item * z)
    return dev


def _judged_likelihood(pm, eta, floor, p_cell, d, h1, n_l, lab_system, lab_item, confusion, priors):
    """The judge's verdicts on the unlabelled cells, the human labels and the verdicts
    given them (module docstring).
    """
    se, sp = _judge_rates(pm, priors)
    q = p_cell * se[d["cell_system"]] + (1 - p_cell) * (1 - sp[d["cell_system"]])
    pm.Binomial("y", n=d["n"], p=q, observed=d["k"])
    ls = pm.Data("lab_system", np.asarray(lab_system, np.int64))
    li = pm.Data("lab_item", np.asarray(lab_item, np.int64))
    nl = pm.Data("n_l", np.asarray(n_l, np.int64))
    pm.Binomial("human", n=nl, p=_success(pm, eta[ls, li], floor), observed=pm.Data("h1", h1))
    c = pm.Data("confusion", np.asarray(confusion, np.int64))
    pm.Binomial("judge_on_positives", n=c[:, 0] + c[:, 1], p=se, observed=c[:, 0])
    pm.Binomial("judge_on_negatives", n=c[:, 2] + c[:, 3], p=sp, observed=c[:, 2])


def _judge_rates(pm, priors):
    """Each system's sensitivity and specificity, partially pooled on the logit scale."""
    rates = []
    for name in ("sensitivity", "specificity"):
        mu = pm.Normal(f"mu_{name}", priors.judge_mu, priors.judge_mu_sd)
        tau = pm.HalfNormal(f"tau_{name}", priors.judge_spread)
        e = pm.Normal(f"e_{name}", 0.0, 1.0, dims="system")
        rates.append(pm.Deterministic(name, pm.math.invlogit(mu + tau * e), dims="system"))
    return rates


def success_probabilities(
    ability, difficulty=None, discrimination=None, guessing=None
) -> np.ndarray:
    """:math:`p_{si}` per draw in numpy: ``ability`` (draws, S), ``difficulty``,
    ``discrimination`` and ``guessing`` (draws, I) or None; returns (draws, S, I) (one
    item column when there are no item effects).
    """
    from scipy.special import expit

    ability = np.asarray(ability, float)
    if difficulty is None:
        return expit(ability[:, :, None])
    eta = ability[:, :, None] - np.asarray(difficulty, float)[:, None, :]
    if discrimination is not None:
        eta = eta * np.asarray(discrimination, float)[:, None, :]
    p = expit(eta)
    if guessing is not None:
        c = np.asarray(guessing, float)[:, None, :]
        p = c + (1 - c) * p
    return p
