"""The priors of the accuracy models, and the judge's rates built from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from judgebayes.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    pass


DESIGNS = ("stratified", "random", "shifted")


Design = Literal["stratified", "random", "shifted"]


@dataclass(frozen=True)
class AccuracyPriors:
    """Prior settings of the accuracy models, with the reason for each default.

    Attributes
    ----------
    theta : (alpha, beta)
        Beta prior of each system's true rate: uniform (1, 1) in the two-frames models,
        so the posterior is driven by the data and the exact engine's closed-form theta
        integral applies.  The items design's studies default to Jeffreys's (1/2, 1/2)
        instead (:data:`~judgebayes.models.items.ITEMS_THETA_PRIOR`,
        :func:`~judgebayes.models.items.items_priors`).
    q0, q1 : (alpha, beta)
        Beta priors of the judge's specificity and sensitivity: uniform (1, 1), the
        calibration counts' own information, on the region q0 + q1 > 1 by default
        (``better_than_chance``, module docstring).
    theta_cal : (alpha, beta)
        Rate of the calibration distribution under ``design="shifted"``: uniform.
    strata_mu : (mean, sd)
        Population prior of the judge's logit rates in the pooled-strata model:
        N(1, 1.5) centres the rates at 0.73 (a judge better than chance) with 95% of the
        mass on 0.12-0.98.
    strata_sigma : float
        Half-normal scale of the strata's spread around it (1: rates may differ by up to
        ~2 logits between strata, as LLMBar's natural and adversarial subsets do).
    prevalence : float
        Dirichlet concentration of the K-class model's class prevalences (1: uniform on
        the simplex).
    cluster_mu : (mean, sd)
        Items design with clusters: normal prior of each system's mean logit rate over
        clusters; N(0, 1.5) puts 95% of the mass on rates 0.05-0.95.
    cluster_sigma : float
        Half-normal scale of the clusters' spread of logit rates (1: an intra-cluster
        correlation anywhere from 0 to about 0.4 is plausible a priori).
    coef_sd : float
        Items design with covariates: normal scale of every logit-slope per standardised
        covariate, of the rate and of the judge's two rates.  1 lets a judge's sensitivity
        move from 0.73 to 0.95 (or 0.27) across two standard deviations of a covariate and
        shrinks what a few labels would otherwise fit to noise.
    rater : (alpha, beta)
        Several human raters with a latent truth: each rater's sensitivity and specificity
        are 1/2 + 1/2 x Beta(alpha, beta), above chance (what makes
        the truth, not its mirror, the latent class); (2, 1) has mean 0.83 and puts 90% of
        its mass above 0.61, a labeller who is mostly right without saying how right.
    walk_step : float
        Items over time (:func:`items_dynamic_model`): half-normal scale of the random
        walk's step per period, of the judge's logit sensitivity and specificity and of
        each system's logit rate.  0.5 lets a judge's sensitivity fall from 0.9 to 0.7
        (1.35 logits) within a few periods and keeps a steady judge's periods pooled;
        the first period's logits take ``strata_mu`` (judge) and ``cluster_mu`` (rate).
    walk_jump : (share, scale)
        The walk's standardised steps are a mixture of normals: N(0, 1) with probability
        1 - share and N(0, scale^2) with probability share.  (0.2, 3) lets one period jump
        (a judge-version change) without pulling its neighbours toward the jump, as normal
        steps did (coverage of the sensitivity in the period before a 0.9 -> 0.7 change
        0.87 of 100 drifts with normal steps); its variance 2.6 is about Student-t(3)'s,
        with no latent scale per step for the sampler to explore.
    """

    theta: tuple[float, float] = (1.0, 1.0)
    q0: tuple[float, float] = (1.0, 1.0)
    q1: tuple[float, float] = (1.0, 1.0)
    theta_cal: tuple[float, float] = (1.0, 1.0)
    strata_mu: tuple[float, float] = (1.0, 1.5)
    strata_sigma: float = 1.0
    prevalence: float = 1.0
    cluster_mu: tuple[float, float] = (0.0, 1.5)
    cluster_sigma: float = 1.0
    coef_sd: float = 1.0
    judge_sigma: float = 1.0
    rater: tuple[float, float] = (2.0, 1.0)
    walk_step: float = 0.5
    walk_jump: tuple[float, float] = (0.2, 3.0)

    def __post_init__(self):
        for name in ("theta", "q0", "q1", "theta_cal", "rater"):
            a, b = getattr(self, name)
            if not (a > 0 and b > 0):
                raise InputError(
                    f"prior {name} must have positive Beta parameters; got {(a, b)}",
                    field=f"priors.{name}",
                    value=(a, b),
                )
        # each bad setting named by its field; a NaN fails every comparison, so the checks
        # ask for what must hold
        for name in ("strata_mu", "cluster_mu"):
            mean, sd = getattr(self, name)
            if not (abs(mean) < float("inf") and sd > 0):
                raise InputError(
                    f"prior {name} must be (mean, sd) with a finite mean and sd > 0; "
                    f"got {(mean, sd)}",
                    field=f"priors.{name}",
                    value=(mean, sd),
                )
        for name in ("strata_sigma", "prevalence", "cluster_sigma", "coef_sd", "judge_sigma",
                     "walk_step"):  # fmt: skip
            v = getattr(self, name)
            if not v > 0:
                raise InputError(
                    f"prior {name} must be > 0; got {v!r}", field=f"priors.{name}", value=v
                )
        share, scale = self.walk_jump
        if not (0 <= share <= 1 and scale > 0):
            raise InputError(
                f"prior walk_jump must be (share in [0, 1], scale > 0); got {(share, scale)}",
                field="priors.walk_jump",
                value=(share, scale),
            )


def judge_rate_variables(
    priors: AccuracyPriors, better_than_chance: bool, dims: str | tuple[str, ...] | None = None
):
    """Specificity q0 and sensitivity q1 as model variables (one per ``dims`` entry)."""
    import pymc as pm
    import pytensor.tensor as pt

    (a0, b0), (a1, b1) = priors.q0, priors.q1
    if not better_than_chance:
        return pm.Beta("q0", a0, b0, dims=dims), pm.Beta("q1", a1, b1, dims=dims)
    u0 = pm.Uniform("u0", 0.0, 1.0, dims=dims)
    u1 = pm.Uniform("u1", 0.0, 1.0, dims=dims)
    q1 = pm.Deterministic("q1", u1, dims=dims)
    q0 = pm.Deterministic("q0", 1.0 - u0 * u1, dims=dims)
    pm.Potential(
        "q_prior",
        pt.log(u1) + pm.logp(pm.Beta.dist(a0, b0), q0) + pm.logp(pm.Beta.dist(a1, b1), q1),
        dims=dims,
    )
    return q0, q1
