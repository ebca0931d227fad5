"""The Bradley-Terry builder: naive or bias-aware, with ties, several judges, a learnt
spread and an instance effect.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgebayes.models.ranking.priors import BiasPrior, RankingPriors, bias_prior


def bt_var_names(prior: BiasPrior, n_judges: int, davidson: bool = False) -> tuple[str, ...]:
    """Reported variables (the gate checks these and every free variable)."""
    tie = ("nu",) if davidson else ()
    if not prior.has_bias:
        return ("theta", *tie)
    names: tuple[str, ...] = ("theta", "b")
    if n_judges > 1:
        names += ("b_judge",)
    return (*names, *tie)


def theta_prior(pm, n_items: int, lam: float):
    r""":math:`\theta \sim N(0, I/\lambda)` as ``theta`` (dims ``item``), in the current model.

    The prior is split exactly into its mean and its centred part: the mean is invisible
    to the verdicts, so the two are independent a posteriori and NUTS does not crawl along
    the ridge of the additive constant.
    """
    th_mean = pm.Normal("theta_mean", 0.0, 1.0 / np.sqrt(lam * n_items))
    th_c = pm.ZeroSumNormal("theta_centred", sigma=1.0 / np.sqrt(lam), dims="item")
    return pm.Deterministic("theta", th_mean + th_c, dims="item")


def bradley_terry_model(
    first,
    second,
    y,
    X,
    judge,
    *,
    items: tuple[str, ...],
    covariates: tuple[str, ...] = (),
    judges: tuple[str, ...] = ("judge",),
    prior: BiasPrior | str = "horseshoe",
    position: bool = True,
    theta: str = "prior",
    half_ties: bool = False,
    davidson: bool = False,
    learn_spread: bool = False,
    instance=None,
    n_instances: int = 0,
    priors: RankingPriors | None = None,
):
    r"""Build the naive (``prior="none"``) or bias-aware Bradley-Terry model.

    Parameters
    ----------
    first, second : array of int
        Item indices in presentation order.
    y : array of float
        1 first won, 0 second won, 0.5 tie (with ``half_ties``).
    X : array, shape (n, d)
        Standardised covariate differences.
    judge : array of int
        Judge index per comparison.
    items, covariates, judges : tuple of str
        Coordinates.
    prior : BiasPrior or str
        Bias prior (:mod:`~judgebayes.models.ranking.priors`, or its name);
        :class:`~judgebayes.models.ranking.priors.NoBias` (``"none"``) is the naive model
        (c = kappa = 0).
    position : bool
        Include the position term kappa.
    theta : {"prior", "zero_sum"}
        How the additive constant of theta is identified.
    half_ties : bool
        Use the fractional log-likelihood (ties as half wins; comparator only).
    davidson : bool
        Davidson's tie model: ``y`` = 0.5 is a third outcome.
    learn_spread : bool
        Learn the qualities' spread: :math:`\theta = \sigma_\theta(\bar z + z_c)`,
        :math:`\sigma_\theta \sim \text{Half-}N(\text{spread\_scale})` (non-centred),
        instead of the fixed :math:`1/\sqrt\lambda`.
    instance : array of int, optional
        Instance index of each comparison (-1: none), for ``n_instances > 0``: the
        instance effect :math:`\eta_r \mathrel{+}= s_r\,\sigma_u z_{i(r)}`,
        :math:`z_i \sim N(0, 1)`, :math:`\sigma_u \sim \text{Half-}N(\text{instance\_scale})`,
        with :math:`s_r = +1` when the instance's lower-indexed item is shown first and
        :math:`-1` otherwise: one deviation of the pair's quality difference, shared by
        both presentation orders (non-centred).
    n_instances : int
        Number of instances (0: no instance effect).
    priors : RankingPriors
        Every prior setting (:class:`RankingPriors`: precisions of theta and the bias
        coefficients, the hierarchical and horseshoe scales, the judges' spread, the tie
        and instance-effect scales); default ``RankingPriors()``.

    Returns
    -------
    pm.Model
        Named variables ``theta`` (item), ``b`` (bias coefficient: covariates then
        ``position``), ``b_judge`` (judge x bias, several judges only) and the observed
        ``y`` (comparison).
    """
    import pymc as pm
    import pytensor.tensor as pt

    prior = bias_prior(prior)
    bias_names = [*covariates, *(["position"] if position else [])]
    coords: dict[str, Any] = {
        "item": list(items),
        "comparison": np.arange(len(np.asarray(first))),
    }
    if prior.has_bias and bias_names:
        coords["bias"] = bias_names
        coords["judge"] = list(judges)
    pr = RankingPriors() if priors is None else priors
    with pm.Model(coords=coords) as model:
        a = pm.Data("first", np.asarray(first, dtype=np.int64), dims="comparison")
        bb = pm.Data("second", np.asarray(second, dtype=np.int64), dims="comparison")
        yd = pm.Data("y_obs", np.asarray(y, dtype=float), dims="comparison")
        th = _qualities(pm, theta, len(items), pr, learn_spread)
        eta = th[a] - th[bb]
        if n_instances:
            inst = np.asarray(instance, dtype=np.int64)
            fa, fb = np.asarray(first), np.asarray(second)
            sign = np.where(inst < 0, 0.0, np.where(fa < fb, 1.0, -1.0))
            idx = pm.Data("instance_idx", np.maximum(inst, 0), dims="comparison")
            sgn = pm.Data("instance_sign", sign, dims="comparison")
            u_sd = pm.HalfNormal("instance_sd", sigma=pr.instance_scale)
            u_z = pm.Normal("instance_z", 0.0, 1.0, shape=int(n_instances))
            eta = eta + sgn * u_sd * u_z[idx]
        if prior.has_bias and bias_names:
            Xd = pm.Data("X", np.asarray(X, dtype=float).reshape(len(coords["comparison"]), -1))
            F = Xd
            if position:
                F = pt.concatenate([Xd, pt.ones((Xd.shape[0], 1))], axis=1)
            mu = prior.coefficients(pm, pt, "b", "bias", pr)
            if len(judges) > 1:
                jd = pm.Data("judge_idx", np.asarray(judge, dtype=np.int64), dims="comparison")
                sd = pm.HalfNormal("b_judge_sd", sigma=pr.judge_sd, dims="bias")
                dz = pm.Normal("b_judge_z", 0.0, 1.0, dims=("judge", "bias"))
                bj = pm.Deterministic("b_judge", mu + sd * dz, dims=("judge", "bias"))
                eta = eta + pt.sum(F * bj[jd], axis=1)
            else:
                eta = eta + pt.dot(F, mu)
        _likelihood(pm, pt, eta, y, yd, pr, davidson=davidson, half_ties=half_ties)
    return model


def _qualities(pm, theta: str, n_items: int, pr: RankingPriors, learn_spread: bool):
    """The items' qualities ``theta``: identified by the prior (its mean and centred part
    apart, the spread fixed or learnt) or by a zero-sum constraint.
    """
    if theta == "zero_sum":
        return pm.ZeroSumNormal("theta", sigma=1.0 / np.sqrt(pr.lam), dims="item")
    if theta == "prior" and learn_spread:
        # the same split, non-centred in the learned spread (an item-level
        # coefficient's interval scales with it)
        sd = pm.HalfNormal("theta_sd", sigma=pr.spread_scale)
        zm = pm.Normal("theta_mean_z", 0.0, 1.0)
        zc = pm.ZeroSumNormal("theta_centred_z", sigma=1.0, dims="item")
        return pm.Deterministic("theta", sd * (zm / np.sqrt(n_items) + zc), dims="item")
    if theta == "prior":
        return theta_prior(pm, n_items, pr.lam)
    raise ValueError(f"theta must be 'prior' or 'zero_sum', got {theta!r}")


def _likelihood(pm, pt, eta, y, yd, pr: RankingPriors, *, davidson: bool, half_ties: bool):
    """The verdicts' likelihood given the logits ``eta``: Davidson's three outcomes, ties as
    half a win, or Bernoulli.
    """
    if davidson:
        log_nu = pm.Normal("log_nu", 0.0, 1.0 / np.sqrt(pr.lam_nu))
        pm.Deterministic("nu", pt.exp(log_nu))
        code = np.where(np.asarray(y) == 1, 0, np.where(np.asarray(y) == 0, 1, 2))
        yc = pm.Data("y_code", code.astype(np.int64), dims="comparison")

        def davidson_logp(value, eta_, log_nu_):
            # log-softmax of (eta/2, -eta/2, log nu) at the observed outcome, written
            # elementwise (half the sampling time of a stacked Categorical)
            half = eta_ / 2
            lse = pt.logaddexp(pt.logaddexp(half, -half), log_nu_)
            u = pt.switch(pt.eq(value, 0), half, pt.switch(pt.eq(value, 1), -half, log_nu_))
            return u - lse

        def davidson_random(eta_, log_nu_, rng=None, size=None):
            # the three outcomes by their softmax (for the posterior predictive)
            u = np.stack([eta_ / 2, -eta_ / 2, np.broadcast_to(log_nu_, np.shape(eta_))], -1)
            p = np.exp(u - np.logaddexp.reduce(u, axis=-1, keepdims=True))
            draw = rng.random(size if size is not None else np.shape(eta_))[..., None]
            return np.minimum((draw > np.cumsum(p, -1)).sum(-1), 2)

        pm.CustomDist(
            "y",
            eta,
            log_nu,
            logp=davidson_logp,
            random=davidson_random,
            observed=yc,
            dims="comparison",
        )
    elif half_ties:

        def logp(value, eta_):
            # log sigma(eta) = -log1pexp(-eta), stable in both tails
            return -value * pm.math.log1pexp(-eta_) - (1 - value) * pm.math.log1pexp(eta_)

        def half_random(eta_, rng=None, size=None):
            # a replicate is a win or a loss (a half win is the data's, not the model's)
            return (rng.random(size) < 1 / (1 + np.exp(-np.asarray(eta_)))) * 1.0

        pm.CustomDist("y", eta, logp=logp, random=half_random, observed=yd, dims="comparison")
    else:
        pm.Bernoulli("y", logit_p=eta, observed=yd, dims="comparison")
