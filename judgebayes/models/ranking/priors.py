"""Prior settings of the Bradley-Terry models, and the bias priors as classes."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from judgebayes.errors import InputError
from judgebayes.models.sampler import SamplerConfig


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
        judge-error model (:mod:`judgebayes.models.ranking.channel`): 4 on the verdict that
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


@dataclass(frozen=True)
class BiasPrior:
    r"""A prior on the bias coefficients :math:`b = (c, \kappa)` (module docstring).

    Each prior is a class: what it builds, whether the Newton engine fits it exactly (a
    Gaussian prior), whether it learns the biases' scale, and the NUTS settings its
    posterior needs.  Its settings are the study's :class:`RankingPriors`.  The registered
    priors are :data:`BIAS_PRIORS` (by name, for the command line and ``prior="..."``).
    """

    #: the prior's name (``RankingFit.prior``, the CLI's ``--prior``)
    name: ClassVar[str] = ""
    #: the model has bias terms (the naive model's prior, :class:`NoBias`, has none)
    has_bias: ClassVar[bool] = True
    #: a Gaussian prior, which the ``laplace`` method fits by the Newton engine (exact
    #: gradient and Hessian); any other by the generic Laplace in PyMC's unconstrained space
    newton: ClassVar[bool] = False
    #: the scale of the biases is learnt (empirical Bayes in the Newton engine)
    learns_scale: ClassVar[bool] = False
    #: NUTS settings its posterior needs (None: the study's own)
    sampler: ClassVar[SamplerConfig | None] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            BIAS_PRIORS[cls.name] = cls

    def __str__(self) -> str:
        return self.name

    def coefficients(self, pm, pt, name: str, dims: str, priors: RankingPriors):
        """The coefficients ``name`` (dims ``dims``) in the current model."""
        raise NotImplementedError


#: every bias prior by its name
BIAS_PRIORS: dict[str, type[BiasPrior]] = {}


@dataclass(frozen=True)
class NoBias(BiasPrior):
    r"""No bias terms: the naive Bradley-Terry model (:math:`c = \kappa = 0`)."""

    name: ClassVar[str] = "none"
    has_bias: ClassVar[bool] = False


@dataclass(frozen=True)
class NormalBias(BiasPrior):
    r""":math:`b_m \sim N(0, 1/\lambda_b)`: a fixed precision (0.1 in the paper)."""

    name: ClassVar[str] = "normal"
    newton: ClassVar[bool] = True

    def coefficients(self, pm, pt, name, dims, priors):
        """Independent normal coefficients."""
        return pm.Normal(name, 0.0, 1.0 / np.sqrt(priors.lam_b), dims=dims)


@dataclass(frozen=True)
class HierarchicalBias(BiasPrior):
    r""":math:`b_m = \tau z_m`, :math:`z_m \sim N(0, 1)`, :math:`\tau \sim
    \text{Half-}N(s_\tau)`: one learnt scale for the judge's biases.

    Its scale over two coefficients is a funnel when the true biases are near 0: on 20
    SBC data sets (6 items, 300 comparisons) 7 fits failed the gate at 0.95 (1-3
    divergences each), 1 at 0.99 (R-hat 1.015 on tau_b).
    """

    name: ClassVar[str] = "hierarchical"
    newton: ClassVar[bool] = True
    learns_scale: ClassVar[bool] = True
    sampler: ClassVar[SamplerConfig | None] = SamplerConfig(target_accept=0.99)

    def coefficients(self, pm, pt, name, dims, priors):
        """Standard normals times the learnt scale (non-centred)."""
        tau = pm.HalfNormal("tau_b", sigma=priors.tau_scale)
        z = pm.Normal(f"{name}_z", 0.0, 1.0, dims=dims)
        return pm.Deterministic(name, tau * z, dims=dims)


@dataclass(frozen=True)
class HorseshoeBias(BiasPrior):
    r"""The regularized ("Finnish") horseshoe of Piironen & Vehtari (2017), non-centred:
    :math:`b_m = z_m\,\tau\,\tilde\lambda_m`,
    :math:`\tilde\lambda_m^2 = s^2\lambda_m^2 / (s^2 + \tau^2\lambda_m^2)`,
    :math:`\lambda_m \sim \text{Half-Cauchy}(1)`, :math:`\tau \sim
    \text{Half-}t_3(\tau_0)`, :math:`s^2 \sim \text{Inv-Gamma}(\nu/2, \nu s_0^2/2)`.

    Its spike needs small steps: NUTS at ``target_accept`` 0.99.
    """

    name: ClassVar[str] = "horseshoe"
    sampler: ClassVar[SamplerConfig | None] = SamplerConfig(target_accept=0.99)

    def coefficients(self, pm, pt, name, dims, priors):
        """The horseshoe's coefficients, non-centred."""
        # half-t scales as half-normal x sqrt(inverse-gamma) (Piironen & Vehtari 2017,
        # App. C.1): the same distributions, with lighter funnels for NUTS
        t1 = pm.HalfNormal("tau_b_hn", sigma=1.0)
        t2 = pm.InverseGamma("tau_b_ig", alpha=1.5, beta=1.5)
        tau = pm.Deterministic("tau_b", priors.tau0 * t1 * pt.sqrt(t2))
        l1 = pm.HalfNormal(f"{name}_lambda_hn", sigma=1.0, dims=dims)
        l2 = pm.InverseGamma(f"{name}_lambda_ig", alpha=0.5, beta=0.5, dims=dims)
        lam = pm.Deterministic(f"{name}_lambda", l1 * pt.sqrt(l2), dims=dims)
        nu, s0 = priors.slab_df, priors.slab_scale
        c2 = pm.InverseGamma("slab_c2", alpha=nu / 2, beta=nu * s0**2 / 2)
        lam_t = pt.sqrt(c2 * lam**2 / (c2 + tau**2 * lam**2))
        z = pm.Normal(f"{name}_z", 0.0, 1.0, dims=dims)
        return pm.Deterministic(name, z * tau * lam_t, dims=dims)


#: the bias priors' names, in the order they are listed
PRIORS = tuple(BIAS_PRIORS)


def bias_prior(value: BiasPrior | str) -> BiasPrior:
    """A bias prior from itself or its registered name (:data:`BIAS_PRIORS`)."""
    if isinstance(value, BiasPrior):
        return value
    if isinstance(value, str) and value in BIAS_PRIORS:
        return BIAS_PRIORS[value]()
    raise InputError(
        f"prior must be one of {PRIORS} or a BiasPrior; got {value!r}",
        field="prior",
        value=value,
    )
