r"""PyMC builders for naive and bias-aware Bradley-Terry models (never sample here).

Verdict of comparison :math:`r` (first-shown item :math:`a`, second :math:`b`, judge
:math:`j`):

.. math::
    \Pr(y_r = 1) = \sigma\big(\theta_a - \theta_b + c_j^\top (x_a - x_b) + \kappa_j\big),
    \qquad \theta_i \sim N(0, 1/\lambda).

Identifiability of :math:`\theta` (an additive constant is invisible to the verdicts)
comes from its prior (``theta="prior"``, the paper's choice) or from a zero-sum
constraint (``theta="zero_sum"``, ``pm.ZeroSumNormal``).  Under ``"prior"`` the
:math:`N(0, I/\lambda)` prior is sampled as its two independent parts, the mean
:math:`\bar\theta \sim N(0, 1/(\lambda N))` and the centred vector (a
``ZeroSumNormal`` with scale :math:`1/\sqrt\lambda`); the distribution is the same, but
the direction the data cannot see no longer forms a narrow ridge for NUTS.  For an
item-level covariate the coefficient is identified only because the prior makes :math:`\theta`
independent of :math:`x`; see :func:`judgebayes.data.ranking.identifiability_report`.

Priors on the bias coefficients :math:`b = (c, \kappa)`:

``"normal"``
    :math:`b_m \sim N(0, 1/\lambda_b)` (fixed precision; 0.1 in the paper).
``"hierarchical"``
    :math:`b_m = \tau z_m`, :math:`z_m \sim N(0,1)`, :math:`\tau \sim
    \text{Half-}N(s_\tau)` (one learned scale for the judge's biases).
``"horseshoe"``
    the regularized ("Finnish") horseshoe of Piironen & Vehtari (2017), non-centred:
    :math:`b_m = z_m\,\tau\,\tilde\lambda_m`,
    :math:`\tilde\lambda_m^2 = s^2\lambda_m^2 / (s^2 + \tau^2\lambda_m^2)`,
    :math:`\lambda_m \sim \text{Half-Cauchy}(1)`, :math:`\tau \sim
    \text{Half-}t_3(\tau_0)`, :math:`s^2 \sim \text{Inv-Gamma}(\nu/2, \nu s_0^2/2)`.

With several judges, judge :math:`j`'s coefficients are
:math:`b_j = \mu + \sigma \odot \delta_j`, :math:`\delta_j \sim N(0, I)`,
:math:`\sigma_m \sim \text{Half-}N(0.5)`, and :math:`\mu` carries the prior above
(partial pooling: a judge with few verdicts borrows the panel's biases).

Ties (``ties="davidson"``, the default when the data have ties): a categorical
outcome with log-odds :math:`(\eta/2, -\eta/2, \log\nu)` for first wins, second wins,
tie (Davidson 1970), :math:`\log\nu \sim N(0, 1/\lambda_\nu)`.  A tie counted as half
a win (``ties="half"``, comparator only) enters through
:math:`y\log\sigma(\eta) + (1-y)\log\sigma(-\eta)` with :math:`y = 1/2`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from judgebayes.errors import InputError

__all__ = ["PRIORS", "RankingPriors", "bradley_terry_model", "bt_var_names", "theta_prior"]

PRIORS = ("none", "normal", "hierarchical", "horseshoe")


@dataclass(frozen=True)
class RankingPriors:
    r"""Prior settings of the Bradley-Terry models, with the reason for each default.

    Attributes
    ----------
    lam : float
        Precision of the item qualities, :math:`\theta_i \sim N(0, 1/\lambda)` (1: Xu et
        al.'s choice; qualities a few logits apart).
    lam_b : float
        Precision of the bias coefficients under ``prior="normal"`` (0.1, the paper's
        :math:`\lambda_b`: sd 3.2, nearly flat on the logit scale).
    lam_judge : float
        Precision of a judge's deviation from the panel's biases in the Laplace engine
        with several judges (4: sd 0.5, as ``judge_sd`` in the NUTS model).
    tau_scale : float
        Half-normal scale of the learned bias scale under ``prior="hierarchical"`` (1).
    tau0, slab_scale, slab_df : float
        Regularized horseshoe: global scale (1, not the usual p0/(D-p0) formula, which
        with two coefficients would shrink the position term to nothing), slab scale (2)
        and slab degrees of freedom (4) (Piironen & Vehtari 2017).
    judge_sd : float
        Half-normal scale of the judges' deviations from the panel's biases (0.5).
    lam_nu : float
        Precision of the Davidson tie parameter's log, :math:`\log\nu \sim N(0,
        1/\lambda_\nu)` (0.25: sd 2, tie shares between ~2% and ~95% at equal quality).
    spread_scale : float
        Half-normal scale of the learned spread of the qualities,
        :math:`\sigma_\theta \sim \text{Half-}N(2)` (NUTS, ``theta_spread="learned"``;
        the Newton engine learns it by empirical Bayes instead).
    confusion_diag, confusion_off : float
        Dirichlet concentrations of each row of a judge's confusion matrix in the
        judge-error model (:mod:`judgebayes.models.channel`): 4 on the verdict that
        agrees with the human, 1 on each other.  With two outcomes the prior of a judge's
        agreement is Beta(4, 1) (mean 0.8, 6% below chance); with ties, mean 0.67.  It
        prefers the labelling in which judges are better than chance, so the model is not
        bimodal when few humans label, and the labelled instances soon dominate it.
    instance_scale : float
        Half-normal scale of the instance effect's sd (NUTS with ``instance=``): a pair's
        own deviation from the items' quality difference, shared by its presentation
        orders; 1 logit allows instances from near-uniform to strongly idiosyncratic.
    channel_coef_sd : float
        Sd of a judge's channel coefficient on a standardised covariate difference in the
        judge-error model (0.5: a judge that moves its verdicts by up to ~1 logit per sd
        of, e.g., length difference is plausible; a few labels do not make it 3).
    favour_scale : float
        Half-normal scale of the spread of a judge's favouritism of items in the
        judge-error model (0.5 logit: a judge that picks one system's answers 10-25%
        more often than the human would is plausible; none is the mode).
    """

    lam: float = 1.0
    lam_b: float = 0.1
    lam_judge: float = 4.0
    tau_scale: float = 1.0
    tau0: float = 1.0
    slab_scale: float = 2.0
    slab_df: float = 4.0
    judge_sd: float = 0.5
    lam_nu: float = 0.25
    spread_scale: float = 2.0
    confusion_diag: float = 4.0
    confusion_off: float = 1.0
    instance_scale: float = 1.0
    channel_coef_sd: float = 0.5
    favour_scale: float = 0.5

    def __post_init__(self):

        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0:
                raise InputError(
                    f"RankingPriors.{f.name} must be a number > 0; got {v!r}",
                    field=f"priors.{f.name}",
                    value=v,
                )


def bt_var_names(prior: str, n_judges: int, davidson: bool = False) -> tuple[str, ...]:
    """Reported variables (the gate checks these and every free variable)."""
    tie = ("nu",) if davidson else ()
    if prior == "none":
        return ("theta", *tie)
    names = ("theta", "b")
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


def _bias_prior(pm, pt, prior: str, name: str, dims: str, hp: dict):
    if prior == "normal":
        return pm.Normal(name, 0.0, 1.0 / np.sqrt(hp["lam_b"]), dims=dims)
    if prior == "hierarchical":
        tau = pm.HalfNormal("tau_b", sigma=hp["tau_scale"])
        z = pm.Normal(f"{name}_z", 0.0, 1.0, dims=dims)
        return pm.Deterministic(name, tau * z, dims=dims)
    if prior == "horseshoe":
        # half-t scales as half-normal x sqrt(inverse-gamma) (Piironen & Vehtari 2017,
        # App. C.1): the same distributions, with lighter funnels for NUTS
        t1 = pm.HalfNormal("tau_b_hn", sigma=1.0)
        t2 = pm.InverseGamma("tau_b_ig", alpha=1.5, beta=1.5)
        tau = pm.Deterministic("tau_b", hp["tau0"] * t1 * pt.sqrt(t2))
        l1 = pm.HalfNormal(f"{name}_lambda_hn", sigma=1.0, dims=dims)
        l2 = pm.InverseGamma(f"{name}_lambda_ig", alpha=0.5, beta=0.5, dims=dims)
        lam = pm.Deterministic(f"{name}_lambda", l1 * pt.sqrt(l2), dims=dims)
        nu, s0 = hp["slab_df"], hp["slab_scale"]
        c2 = pm.InverseGamma("slab_c2", alpha=nu / 2, beta=nu * s0**2 / 2)
        lam_t = pt.sqrt(c2 * lam**2 / (c2 + tau**2 * lam**2))
        z = pm.Normal(f"{name}_z", 0.0, 1.0, dims=dims)
        return pm.Deterministic(name, z * tau * lam_t, dims=dims)
    raise ValueError(f"unknown prior {prior!r}")


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
    prior: str = "horseshoe",
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
    prior : {"none", "normal", "hierarchical", "horseshoe"}
        Bias prior; ``"none"`` is the naive model (c = kappa = 0).
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

    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {PRIORS}, got {prior!r}")
    bias_names = [*covariates, *(["position"] if position else [])]
    coords = {
        "item": list(items),
        "comparison": np.arange(len(np.asarray(first))),
    }
    if prior != "none" and bias_names:
        coords["bias"] = bias_names
        coords["judge"] = list(judges)
    pr = RankingPriors() if priors is None else priors
    lam = pr.lam
    hp = {
        "lam_b": pr.lam_b,
        "tau_scale": pr.tau_scale,
        "tau0": pr.tau0,
        "slab_scale": pr.slab_scale,
        "slab_df": pr.slab_df,
    }
    with pm.Model(coords=coords) as model:
        a = pm.Data("first", np.asarray(first, dtype=np.int64), dims="comparison")
        bb = pm.Data("second", np.asarray(second, dtype=np.int64), dims="comparison")
        yd = pm.Data("y_obs", np.asarray(y, dtype=float), dims="comparison")
        if theta == "zero_sum":
            th = pm.ZeroSumNormal("theta", sigma=1.0 / np.sqrt(lam), dims="item")
        elif theta == "prior" and learn_spread:
            # the same split, non-centred in the learned spread (an item-level
            # coefficient's interval scales with it)
            n_items = len(items)
            sd = pm.HalfNormal("theta_sd", sigma=pr.spread_scale)
            zm = pm.Normal("theta_mean_z", 0.0, 1.0)
            zc = pm.ZeroSumNormal("theta_centred_z", sigma=1.0, dims="item")
            th = pm.Deterministic("theta", sd * (zm / np.sqrt(n_items) + zc), dims="item")
        elif theta == "prior":
            th = theta_prior(pm, len(items), lam)
        else:
            raise ValueError(f"theta must be 'prior' or 'zero_sum', got {theta!r}")
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
        if prior != "none" and bias_names:
            Xd = pm.Data("X", np.asarray(X, dtype=float).reshape(len(coords["comparison"]), -1))
            F = Xd
            if position:
                F = pt.concatenate([Xd, pt.ones((Xd.shape[0], 1))], axis=1)
            mu = _bias_prior(pm, pt, prior, "b", "bias", hp)
            if len(judges) > 1:
                jd = pm.Data("judge_idx", np.asarray(judge, dtype=np.int64), dims="comparison")
                sd = pm.HalfNormal("b_judge_sd", sigma=pr.judge_sd, dims="bias")
                dz = pm.Normal("b_judge_z", 0.0, 1.0, dims=("judge", "bias"))
                bj = pm.Deterministic("b_judge", mu + sd * dz, dims=("judge", "bias"))
                eta = eta + pt.sum(F * bj[jd], axis=1)
            else:
                eta = eta + pt.dot(F, mu)
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
    return model
