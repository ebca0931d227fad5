r"""PyMC builders for accuracy under misclassification.  Builders never sample.

Every builder takes validated counts and returns a fresh ``pm.Model`` with named dims.
Observed counts enter through ``pm.Data`` containers with fixed names, so that one
compiled model can be refitted on new data (nutpie ``with_data``) without recompiling.

Binary model (variants a-c)
---------------------------
.. math::
    \theta_s \sim \mathrm{Beta}(a_\theta, b_\theta),\quad
    q_0 \sim \mathrm{Beta}(a_0, b_0),\quad q_1 \sim \mathrm{Beta}(a_1, b_1)

    k_s \sim \mathrm{Binomial}(n_s,\ \theta_s q_1 + (1-\theta_s)(1-q_0))

    tp \sim \mathrm{Binomial}(m_1, q_1),\qquad tn \sim \mathrm{Binomial}(m_0, q_0)

Calibration design: ``"stratified"`` (m0, m1 fixed by design; the human labels say
nothing about theta), ``"random"`` (a random sample of the test distribution of one
system: additionally :math:`m_1 \sim \mathrm{Binomial}(m_0+m_1, \theta)`) or
``"shifted"`` (a random sample of another distribution:
:math:`m_1 \sim \mathrm{Binomial}(m_0+m_1, \theta_{cal})`, :math:`\theta_{cal}` its own
parameter).

The mirror: :math:`(\theta, q_0, q_1)` and :math:`(1-\theta, 1-q_1, 1-q_0)` give the same
judged rate, so with a handful of calibration labels the unrestricted posterior has a
second mode in which the judge is worse than chance (k = 96/120, tp 4/6, tn 3/6: 26% of
the mass, and a 95% interval for theta of [0.03, 0.99]).  The default
(``better_than_chance=True``) restricts the prior to :math:`q_0 + q_1 > 1`, the assumption
under which any misclassification correction (Rogan-Gladen included) is defined, through
the smooth map :math:`q_1 = u_1,\ q_0 = 1 - u_0 u_1` with :math:`u_0, u_1 \in (0, 1)`
(Jacobian :math:`u_1`), keeping the Beta prior densities: one mode, on which the exact,
Laplace and NUTS engines agree.  What the restriction excludes is reported, not hidden:
every binary fit carries :math:`P(q_0 + q_1 < 1 \mid \text{data})` under the unrestricted
prior (:func:`judgebayes.inference.accuracy.exact.mirror_probability`) and warns above 1%.

Pooled strata (variant d)
-------------------------
.. math::
    \mathrm{logit}\,q_{c,t} = \mu_c + \sigma_c z_{c,t},\quad z_{c,t}\sim N(0,1),\quad
    \mu_c \sim N(\mu_0, s_0),\ \sigma_c \sim \mathrm{HalfNormal}(s_\sigma)

    k_{s,t} \sim \mathrm{Binomial}(n_{s,t},\ \theta_{s,t} q_{1,t} + (1-\theta_{s,t})(1-q_{0,t})),
    \qquad \theta_s = \sum_t w_{s,t}\theta_{s,t},\ w_{s,t} = n_{s,t}/\textstyle\sum_t n_{s,t}

Independent replicates (split protocol)
---------------------------------------
The binary model (one system, stratified design) repeated along a ``replicate`` dim with
nothing shared: :math:`\theta_r, q_{0,r}, q_{1,r}` independent for every replicate
:math:`r`.  The joint posterior is the product of the per-replicate posteriors, so one
NUTS run (or one Laplace fit) gives every replicate's posterior at once.

K-class judge (variant e)
-------------------------
.. math::
    C_{k\cdot} \sim \mathrm{Dirichlet}(\mathbf 1),\quad
    N^{cal}_{k\cdot} \sim \mathrm{Multinomial}(m_k, C_{k\cdot}),\quad
    \pi_s \sim \mathrm{Dirichlet}(\alpha),\quad
    y_{s\cdot} \sim \mathrm{Multinomial}(n_s, \pi_s^\top C)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from scipy.special import betaln, gammaln

from judgebayes.errors import InputError
from judgebayes.models.simplex import dirichlet

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = [
    "DESIGNS",
    "AccuracyPriors",
    "ItemsLogDensity",
    "batched_accuracy_model",
    "binary_accuracy_model",
    "clustered_items_model",
    "items_accuracy_model",
    "items_dynamic_model",
    "multi_judge_items_model",
    "multiclass_accuracy_model",
    "raters_items_model",
    "stratified_accuracy_model",
]

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
        instead (:data:`ITEMS_THETA_PRIOR`, :func:`items_priors`).
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
        for name in ("theta", "q0", "q1", "theta_cal", "strata_mu", "rater"):
            a, b = getattr(self, name)
            if name != "strata_mu" and not (a > 0 and b > 0):
                raise InputError(
                    f"prior {name} must have positive Beta parameters; got {(a, b)}",
                    field=f"priors.{name}",
                    value=(a, b),
                )
        if (
            self.strata_mu[1] <= 0
            or self.strata_sigma <= 0
            or self.prevalence <= 0
            or self.cluster_mu[1] <= 0
            or self.cluster_sigma <= 0
            or self.walk_step <= 0
            or not 0 <= self.walk_jump[0] <= 1
            or not self.walk_jump[1] > 0
            or not self.coef_sd > 0
            or not self.judge_sigma > 0
        ):
            raise InputError(
                "prior scales and concentrations must be positive",
                field="priors",
                value=(self.strata_mu, self.strata_sigma, self.prevalence),
            )


#: The items design's prior on each stratum's rate, in every engine (exact, Laplace, NUTS):
#: Jeffreys's Beta(1/2, 1/2).  A uniform prior covered 0.86 / 0.90 at true rates 0.01 /
#: 0.99 with 20 labels; this one covers 0.94-0.98 at 0.01-0.99 with 20-50 labels
#: (BENCHMARKS.md, the items design at the edges).
ITEMS_THETA_PRIOR = (0.5, 0.5)


def items_priors() -> AccuracyPriors:
    """The items design's default priors: :data:`ITEMS_THETA_PRIOR` on the rate, the rest
    as :class:`AccuracyPriors`.
    """
    return AccuracyPriors(theta=ITEMS_THETA_PRIOR)


def _judge_rates(priors: AccuracyPriors, better_than_chance: bool, dims: str | None = None):
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


def binary_accuracy_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: int,
    m1: int,
    tn: int,
    m0: int,
    *,
    systems: tuple[str, ...],
    design: Design = "stratified",
    priors: AccuracyPriors | None = None,
    better_than_chance: bool = True,
) -> pm.Model:
    """Binary judge, one or several systems sharing one calibration set (variants a-c).

    Parameters
    ----------
    k, n : array of int, shape (n_systems,)
        Judged positive and judged in total, per system.
    tp, m1, tn, m0 : int
        Calibration confusion counts.
    systems : tuple of str
        Coordinate of the ``system`` dim.
    design : {"stratified", "random", "shifted"}
        Calibration design (module docstring); "random" needs exactly one system.
    priors : AccuracyPriors
        Prior settings (default Beta(1, 1) everywhere).
    better_than_chance : bool
        Restrict the prior to q0 + q1 > 1 (default; module docstring).

    Returns
    -------
    pm.Model
        Variables ``theta`` (dim ``system``), ``q0``, ``q1``, ``p`` (judge's positive rate,
        dim ``system``), ``theta_cal`` for the shifted design; data ``k, n, tp, m1, tn,
        m0``; observed ``k_obs, tp_obs, tn_obs`` (and ``m1_obs``).
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    if design not in DESIGNS:
        raise InputError(
            f"design must be one of {DESIGNS}; got {design!r}", field="design", value=design
        )
    if design == "random" and len(systems) != 1:
        raise InputError(
            "design='random' says the calibration set is a random sample of the test "
            f"distribution, which is defined for one system; got {len(systems)} systems "
            "(use 'shifted' or 'stratified')",
            field="design",
            value=design,
        )
    k = np.asarray(k, dtype=np.int64).reshape(len(systems))
    n = np.asarray(n, dtype=np.int64).reshape(len(systems))
    with pm.Model(coords={"system": list(systems)}) as model:
        k_d = pm.Data("k", k, dims="system")
        n_d = pm.Data("n", n, dims="system")
        tp_d = pm.Data("tp", np.int64(tp))
        m1_d = pm.Data("m1", np.int64(m1))
        tn_d = pm.Data("tn", np.int64(tn))
        m0_d = pm.Data("m0", np.int64(m0))
        theta = pm.Beta("theta", *priors.theta, dims="system")
        q0, q1 = _judge_rates(priors, better_than_chance)
        p = pm.Deterministic("p", theta * q1 + (1 - theta) * (1 - q0), dims="system")
        pm.Binomial("k_obs", n=n_d, p=p, observed=k_d, dims="system")
        pm.Binomial("tp_obs", n=m1_d, p=q1, observed=tp_d)
        pm.Binomial("tn_obs", n=m0_d, p=q0, observed=tn_d)
        if design == "random":
            pm.Binomial("m1_obs", n=m0_d + m1_d, p=theta[0], observed=m1_d)
        elif design == "shifted":
            theta_cal = pm.Beta("theta_cal", *priors.theta_cal)
            pm.Binomial("m1_obs", n=m0_d + m1_d, p=theta_cal, observed=m1_d)
    return model


def batched_accuracy_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    *,
    replicates: tuple[str, ...],
    priors: AccuracyPriors | None = None,
    better_than_chance: bool = True,
) -> pm.Model:
    r"""Independent binary accuracy problems along a ``replicate`` dim (split protocol).

    .. math::
        \theta_r \sim \mathrm{Beta}(a_\theta, b_\theta),\ q_{0,r} \sim \mathrm{Beta}(a_0, b_0),
        \ q_{1,r} \sim \mathrm{Beta}(a_1, b_1)

        k_r \sim \mathrm{Bin}(n_r, \theta_r q_{1,r} + (1-\theta_r)(1-q_{0,r})),\quad
        tp_r \sim \mathrm{Bin}(m_{1,r}, q_{1,r}),\quad tn_r \sim \mathrm{Bin}(m_{0,r}, q_{0,r})

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (n_replicates,)
        Test and calibration counts of every replicate.
    replicates : tuple of str
        Coordinate of the ``replicate`` dim.
    priors : AccuracyPriors
        Beta priors of theta, q0, q1 (default uniform).
    better_than_chance : bool
        Restrict every replicate's prior to q0 + q1 > 1 (default), as the binary model.

    Returns
    -------
    pm.Model
        ``theta, q0, q1, p`` with dim ``replicate``; every log-density term has that dim,
        so the per-replicate log posterior is the sum of the terms.
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    counts = dict(k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
    with pm.Model(coords={"replicate": list(replicates)}) as model:
        d = _count_data(len(replicates), "replicate", **counts)
        theta = pm.Beta("theta", *priors.theta, dims="replicate")
        q0, q1 = _judge_rates(priors, better_than_chance, dims="replicate")
        p = pm.Deterministic("p", theta * q1 + (1 - theta) * (1 - q0), dims="replicate")
        _judged_and_labelled(d, p, None, q0, q1, "replicate")
    return model


JUDGE_RATES = ("per_system", "shared", "pooled")


def _check_judge_rates(judge_rates: str) -> None:
    """``judge_rates`` is one of :data:`JUDGE_RATES`, or a typed error naming it."""
    if judge_rates not in JUDGE_RATES:
        raise InputError(
            f"judge_rates must be one of {JUDGE_RATES}; got {judge_rates!r}",
            field="judge_rates",
            value=judge_rates,
        )


def _logit(p):
    """The logit of a PyTensor probability, as log p - log(1 - p) (stable near 0 and 1)."""
    import pytensor.tensor as pt

    return pt.log(p) - pt.log1p(-p)


COUNTS = ("k", "n", "tp", "m1", "tn", "m0")


def _count_data(shape, dims, **counts):
    """``pm.Data`` of the judged and labelled counts (:data:`COUNTS`), int64 of ``shape``."""
    import pymc as pm

    return {
        nm: pm.Data(nm, np.asarray(counts[nm], dtype=np.int64).reshape(shape), dims=dims)
        for nm in COUNTS
    }


def _judged_and_labelled(d, p, th, q0, q1, dims) -> None:
    """The items design's likelihood (:func:`items_accuracy_model`): judged positives of the
    unlabelled items, the labelled items' classes and their confusion counts.
    """
    import pymc as pm

    pm.Binomial("k_obs", n=d["n"], p=p, observed=d["k"], dims=dims)
    if th is not None:
        pm.Binomial("m1_obs", n=d["m0"] + d["m1"], p=th, observed=d["m1"], dims=dims)
    pm.Binomial("tp_obs", n=d["m1"], p=q1, observed=d["tp"], dims=dims)
    pm.Binomial("tn_obs", n=d["m0"], p=q0, observed=d["tn"], dims=dims)


def _pooled_judge_rates(priors: AccuracyPriors, cells: tuple[str, str]):
    r"""Per (system, stratum) judge rates partially pooled across systems: for
    :math:`r \in \{0, 1\}`,
    :math:`\operatorname{logit} q_{r,st} = \operatorname{logit}\bar q_{r,t}
    + \sigma_r \epsilon_{r,st}`, :math:`\bar q_{r,t} \sim` the Beta prior of
    :math:`q_r`, :math:`\sigma_r \sim \mathrm{HalfNormal}` (``priors.judge_sigma``),
    :math:`\epsilon \sim N(0, 1)` (non-centred).  The spread is learnt, so rates that
    agree are pooled toward one judge and rates that differ are not.
    """
    import pymc as pm
    import pytensor.tensor as pt

    out = []
    for r, (a, b) in ((0, priors.q0), (1, priors.q1)):
        mean = pm.Beta(f"q{r}_mean", a, b, dims=cells[1])
        sigma = pm.HalfNormal(f"q{r}_sigma", priors.judge_sigma)
        eps = pm.Normal(f"q{r}_system", 0.0, 1.0, dims=cells)
        q = pt.sigmoid(_logit(mean)[None, :] + sigma * eps)
        out.append(pm.Deterministic(f"q{r}", q, dims=cells))
    return out[0], out[1]


def items_accuracy_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    share: np.ndarray,
    *,
    systems: tuple[str, ...],
    strata: tuple[str, ...],
    judge_rates: str = "shared",
    priors: AccuracyPriors | None = None,
    better_than_chance: bool = False,
) -> pm.Model:
    r"""Every item judged, a subset labelled by humans (the items design).

    Per system :math:`s` and stratum :math:`t`, with the unlabelled items' counts
    :math:`k_{st}` of :math:`n_{st}` judged positive and the labelled items' confusion
    counts:

    .. math::
        \theta_{st} \sim \mathrm{Beta}(a_\theta, b_\theta),\quad
        q_{0,g}, q_{1,g} \sim \mathrm{Beta}

        k_{st} \sim \mathrm{Bin}(n_{st},\ \theta_{st} q_{1,g} + (1-\theta_{st})(1-q_{0,g})),
        \quad m_{1,st} \sim \mathrm{Bin}(m_{0,st} + m_{1,st},\ \theta_{st}),

        tp_{st} \sim \mathrm{Bin}(m_{1,st}, q_{1,g}),\quad
        tn_{st} \sim \mathrm{Bin}(m_{0,st}, q_{0,g}),\qquad
        \theta_s = \textstyle\sum_t \pi_{st}\theta_{st}

    with :math:`g = (s, t)` (``judge_rates="per_system"``: nothing assumed across
    systems), :math:`g = t` (``"shared"``: one judge, the same rates on every system's
    items, an assumption that borrows strength and fails when the judge errs differently
    on one system's answers, as a judge that prefers its own family's does), or
    :math:`g = (s, t)` partially pooled (``"pooled"``: each system's logit rates spread
    around the judge's typical ones with a learnt scale, :func:`_pooled_judge_rates`;
    the data decide how much is shared).  This is the likelihood of the labelled
    items' :math:`(h, v)` pairs times the unlabelled items' verdicts, which is the full
    likelihood for any design whose labelling probability depends only on the verdict
    and the stratum (simple random, stratified by verdict, stratified by a covariate):
    the design's own factor carries no parameter.  The labels identify
    :math:`\theta` directly, so the mirror of the calibration-only model is not a
    symmetry here and no better-than-chance restriction is needed (default off).

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (n_systems, n_strata)
        Unlabelled and labelled counts per cell.
    share : array of float, shape (n_systems, n_strata)
        Stratum shares :math:`\pi_{st}` of each system's items (rows sum to 1).
    systems, strata : tuple of str
        Coordinates.
    judge_rates : {"per_system", "shared", "pooled"}
        Judge rates per (system, stratum), per stratum, or per (system, stratum) pooled.
    priors : AccuracyPriors
        Beta priors of theta, q0, q1 (default uniform).
    better_than_chance : bool
        Restrict the judge's rates to q0 + q1 > 1 (default off: nothing to exclude).

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_stratum`` (system, stratum), ``q0``, ``q1``.
    """
    import pymc as pm

    _check_judge_rates(judge_rates)
    priors = priors or AccuracyPriors()
    shape = (len(systems), len(strata))
    cells = ("system", "stratum")
    coords = {"system": list(systems), "stratum": list(strata)}
    with pm.Model(coords=coords) as model:
        d = _count_data(shape, cells, k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
        w = pm.Data("share", np.asarray(share, dtype=float).reshape(shape), dims=cells)
        th = pm.Beta("theta_stratum", *priors.theta, dims=cells)
        if judge_rates == "shared":
            q0, q1 = _judge_rates(priors, better_than_chance, dims="stratum")
            q0, q1 = q0[None, :], q1[None, :]
        elif judge_rates == "pooled":
            q0, q1 = _pooled_judge_rates(priors, cells)
        else:
            q0, q1 = _judge_rates(priors, better_than_chance, dims=cells)
        p = th * q1 + (1 - th) * (1 - q0)
        pm.Deterministic("theta", (w * th).sum(axis=1), dims="system")
        _judged_and_labelled(d, p, th, q0 + 0 * th, q1 + 0 * th, cells)
    return model


def _walk(name: str, start: tuple[float, float], step: float, jump, shape_dims, dims):
    r"""A random walk on the logit scale over the last of ``dims`` (periods), non-centred:
    :math:`\eta_1 \sim N(\mu, s)`, :math:`\eta_t = \eta_{t-1} + \sigma z_t`,
    :math:`\sigma \sim \text{HalfNormal}(\text{step})`,
    :math:`z_t \sim (1 - w) N(0, 1) + w N(0, c^2)` with :math:`(w, c)` = ``jump``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    first = pm.Normal(f"{name}_start", start[0], start[1], dims=shape_dims)
    sigma = pm.HalfNormal(f"{name}_step", step)
    # heavy-ish tails from a two-normal mixture, summed out in the density: a Student t
    # drawn as normals over inverse-gamma variances left a latent scale per step whose
    # ridge with the step made rare divergences (7-10 of 100 fits missed the gate)
    w, c = jump
    z = pm.NormalMixture(
        f"{name}_z", w=np.array([1 - w, w]), mu=np.zeros(2), sigma=np.array([1.0, c]), dims=dims
    )
    moves = pt.concatenate([pt.zeros_like(z[..., :1]), pt.cumsum(z[..., 1:], axis=-1)], axis=-1)
    if shape_dims is None:
        return first + sigma * moves
    return first[..., None] + sigma * moves


def items_dynamic_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    share: np.ndarray,
    *,
    systems: tuple[str, ...],
    strata: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""The items design over time: the judge's rates and each system's rate walk from one
    period to the next.

    Periods :math:`t = 1..T` (the ``stratum`` coordinate), the counts of
    :func:`items_accuracy_model` per (system, period), and

    .. math::
        \operatorname{logit} q_{1,t} = a_1 + \sigma_1 \textstyle\sum_{u=2}^{t} z_{1,u},\quad
        \operatorname{logit} q_{0,t} = a_0 + \sigma_0 \textstyle\sum_{u=2}^{t} z_{0,u},

        \operatorname{logit} \theta_{st} = b_s + \sigma_\theta
        \textstyle\sum_{u=2}^{t} z_{s,u},\qquad
        z \sim (1 - w) N(0, 1) + w N(0, c^2),\
        \sigma \sim \text{HalfNormal}(\text{walk\_step}),

    :math:`(w, c)` = ``walk_jump`` (heavy-tailed steps: a period may jump without dragging
    its neighbours), :math:`a \sim N(\text{strata\_mu})`,
    :math:`b_s \sim N(\text{cluster\_mu})`; one judge
    for every system (its rates shared across systems within a period), the likelihood
    of :func:`items_accuracy_model` in each (system, period) cell, and
    :math:`\theta_s = \sum_t \pi_{st} \theta_{st}` the rate over all periods.  A period
    with few labels borrows from its neighbours as much as the learnt step allows; a
    judge that does not move has :math:`\sigma \to 0` and one set of rates.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_stratum`` (system, period), ``q0``, ``q1`` (period),
        and the walks' ``*_start``, ``*_step``, ``*_z``.
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    shape = (len(systems), len(strata))
    cells = ("system", "stratum")
    coords = {"system": list(systems), "stratum": list(strata)}
    with pm.Model(coords=coords) as model:
        d = _count_data(shape, cells, k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
        w = pm.Data("share", np.asarray(share, dtype=float).reshape(shape), dims=cells)
        w_ = (priors.walk_step, priors.walk_jump)
        eta = _walk("rate", priors.cluster_mu, *w_, "system", cells)
        th = pm.Deterministic("theta_stratum", pm.math.sigmoid(eta), dims=cells)
        e1 = _walk("q1", priors.strata_mu, *w_, None, "stratum")
        e0 = _walk("q0", priors.strata_mu, *w_, None, "stratum")
        q1 = pm.Deterministic("q1", pm.math.sigmoid(e1), dims="stratum")
        q0 = pm.Deterministic("q0", pm.math.sigmoid(e0), dims="stratum")
        q0, q1 = q0[None, :], q1[None, :]
        p = th * q1 + (1 - th) * (1 - q0)
        pm.Deterministic("theta", (w * th).sum(axis=1), dims="system")
        _judged_and_labelled(d, p, th, q0 + 0 * th, q1 + 0 * th, cells)
    return model


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns of ``x`` centred and scaled by their sd (a constant column: scale 1)."""
    x = np.asarray(x, dtype=float)
    mu, sd = x.mean(0), x.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    return (x - mu) / sd, mu, sd


def items_covariate_model(
    item_system: np.ndarray,
    item_stratum: np.ndarray,
    z: np.ndarray,
    verdict: np.ndarray,
    human: np.ndarray,
    *,
    systems: tuple[str, ...],
    strata: tuple[str, ...],
    covariates: tuple[str, ...],
    judge_rates: str = "shared",
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""The items design when the judge's errors, and the rate, depend on item covariates.

    Item :math:`i` of system :math:`s`, stratum :math:`t`, with standardised covariates
    :math:`z_i`, true label :math:`h_i` and verdict :math:`v_i`:

    .. math::
        \operatorname{logit} P(h_i = 1) = \operatorname{logit}\theta^{0}_{st}
            + z_i^\top\gamma_s,\qquad
        \operatorname{logit} P(v_i = 1 \mid h_i = 1) = \operatorname{logit} q^{0}_{1,g}
            + z_i^\top\beta_{1,g'},

        \operatorname{logit} P(v_i = 0 \mid h_i = 0) = \operatorname{logit} q^{0}_{0,g}
            + z_i^\top\beta_{0,g'},\qquad
        \theta_s = \frac{1}{N_s}\sum_{i \in s} P(h_i = 1)

    with :math:`\theta^0 \sim \mathrm{Beta}(a_\theta, b_\theta)` (the rate at the
    covariates' mean), :math:`q^0_0, q^0_1` Beta as in :func:`items_accuracy_model`, and
    every slope :math:`\gamma, \beta \sim N(0, \sigma_\beta^2)` (``priors.coef_sd``),
    which shrinks what a few labels would fit to noise.  :math:`g = t` and
    :math:`g' = \cdot` (``judge_rates="shared"``: one judge whose errors follow the
    covariates the same way on every system's items) or :math:`g = (s, t)`,
    :math:`g' = s` (``"per_system"``).  Labelled items contribute
    :math:`P(h_i)P(v_i \mid h_i)`, unlabelled ones :math:`P(v_i)`, summed over
    :math:`h_i`; the likelihood is the full one for any design that labels on the verdict,
    the stratum and the covariates.  :math:`\theta_s` is the process rate over the
    system's own covariate distribution (its items' mean).

    What it is for: with shared judge rates, systems whose answers differ in a covariate
    the judge's errors follow (one system writes longer answers, the judge is lenient on
    long answers) make the constant-rates model wrong for both; here the judge's rates
    are still shared, but as a function of the covariate.

    Parameters
    ----------
    item_system, item_stratum : array of int, shape (N,)
        Each item's codes into ``systems`` and ``strata``.
    z : array of float, shape (N, P)
        Standardised covariates (:func:`standardise`).
    verdict : array of {0, 1}, shape (N,)
        The judge's verdicts.
    human : array of {0, 1, nan}, shape (N,)
        Human labels (NaN or -1: unlabelled).
    systems, strata, covariates : tuple of str
        Coordinates.
    judge_rates : {"shared", "pooled", "per_system"}
        How the judge's rates relate across systems (above).
    priors : AccuracyPriors
        Beta priors of the rates at the covariates' mean; ``coef_sd`` of the slopes.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_stratum`` (system, stratum), ``q0``, ``q1`` (the judge's
        rates at the covariates' mean), ``rate_coef`` (system, covariate), ``q0_coef``,
        ``q1_coef`` (covariate, or system x covariate).
    """
    import pymc as pm
    import pytensor.tensor as pt

    _check_judge_rates(judge_rates)
    priors = priors or AccuracyPriors()
    arrs = {
        "item_system": np.asarray(item_system, dtype=np.int64),
        "item_stratum": np.asarray(item_stratum, dtype=np.int64),
        "z": np.asarray(z, dtype=float).reshape(len(item_system), -1),
        "verdict": np.asarray(verdict, dtype=float),
        "human": np.nan_to_num(np.asarray(human, dtype=float), nan=-1.0),
    }
    coords = {"system": list(systems), "stratum": list(strata), "covariate": list(covariates)}
    cells = ("system", "stratum")
    sd = priors.coef_sd

    def log_sigmoid(x):
        return -pt.softplus(-x)

    with pm.Model(coords=coords) as model:
        d = {k: pm.Data(k, v) for k, v in arrs.items()}
        sy, st, zz = d["item_system"], d["item_stratum"], d["z"]
        th0 = pm.Beta("theta_stratum", *priors.theta, dims=cells)
        gamma = pm.Normal("rate_coef", 0.0, sd, dims=("system", "covariate"))
        shared = judge_rates == "shared"
        if judge_rates == "pooled":
            q0, q1 = _pooled_judge_rates(priors, cells)
        else:
            q0, q1 = _judge_rates(priors, False, dims="stratum" if shared else cells)
        per_system = judge_rates == "per_system"
        cdims = ("system", "covariate") if per_system else "covariate"
        b0 = pm.Normal("q0_coef", 0.0, sd, dims=cdims)
        b1 = pm.Normal("q1_coef", 0.0, sd, dims=cdims)
        eta = _logit(th0)[sy, st] + (zz * gamma[sy]).sum(-1)
        at = (st,) if shared else (sy, st)
        i1, i0 = _logit(q1)[at], _logit(q0)[at]
        if per_system:
            e1 = i1 + (zz * b1[sy]).sum(-1)
            e0 = i0 + (zz * b0[sy]).sum(-1)
        else:
            e1 = i1 + pt.dot(zz, b1)
            e0 = i0 + pt.dot(zz, b0)
        onehot = pt.eq(sy[None, :], pt.arange(len(systems))[:, None])
        mean_of = onehot / pt.maximum(onehot.sum(1, keepdims=True), 1)
        pm.Deterministic("theta", pt.dot(mean_of, pt.sigmoid(eta)), dims="system")
        is_lab = pt.ge(d["human"], 0)
        v, h = d["verdict"], pt.switch(is_lab, d["human"], 0.0)
        # log P(v | h = 1) and log P(v | h = 0), in log space for rates near 0 and 1
        lv1 = v * log_sigmoid(e1) + (1 - v) * log_sigmoid(-e1)
        lv0 = v * log_sigmoid(-e0) + (1 - v) * log_sigmoid(e0)
        lpos, lneg = log_sigmoid(eta) + lv1, log_sigmoid(-eta) + lv0
        labelled = h * lpos + (1 - h) * lneg
        pm.Potential("items", pt.sum(pt.switch(is_lab, labelled, pt.logaddexp(lpos, lneg))))
    return model


class ItemsLogDensity:
    r"""The log density of :func:`items_accuracy_model` in numpy, on PyMC's unconstrained
    scale, for the Laplace engine (``better_than_chance=False``, the model's default).

    The parameter vector :math:`x` holds the logits of ``theta_stratum`` (system x
    stratum), then of ``q0`` and ``q1`` (system x stratum, or stratum with
    ``judge_rates="shared"``).  With :math:`u = \mathrm{logistic}(x)` each Beta(a, b)
    prior contributes, Jacobian included,
    :math:`a\log u + b\log(1-u) - \log B(a, b)`, and the four binomial terms of the
    model's likelihood are written with their coefficients, so :meth:`logp` equals PyMC's
    ``model.compile_logp(jacobian=True)`` (a test checks it to 1e-9 at random points).
    The gradient is analytic.  Why it exists: the model is a handful of cells, and
    compiling its PyTensor graph costs 5-9 s in a fresh process where this costs
    nothing (BENCHMARKS.md, items design).
    """

    def __init__(
        self,
        k,
        n,
        tp,
        m1,
        tn,
        m0,
        share,
        *,
        systems: tuple[str, ...],
        strata: tuple[str, ...],
        judge_rates: str = "shared",
        priors: AccuracyPriors | None = None,
    ):

        self.shape = (len(systems), len(strata))
        counts = (k, n, tp, m1, tn, m0)
        self.c = {
            nm: np.asarray(v, dtype=float).reshape(self.shape)
            for nm, v in zip(COUNTS, counts, strict=True)
        }
        self.share = np.asarray(share, dtype=float).reshape(self.shape)
        self.shared = judge_rates == "shared"
        self.priors = priors or AccuracyPriors()
        self.systems, self.strata = tuple(systems), tuple(strata)
        ncell = self.shape[0] * self.shape[1]
        self.nq = len(strata) if self.shared else ncell
        self.size = ncell + 2 * self.nq

        def binomln(nn, kk):
            return gammaln(nn + 1) - gammaln(kk + 1) - gammaln(nn - kk + 1)

        pr, f = self.priors, self.c
        self.const = (
            np.sum(
                binomln(f["n"], f["k"])
                + binomln(f["m0"] + f["m1"], f["m1"])
                + binomln(f["m1"], f["tp"])
                + binomln(f["m0"], f["tn"])
            )
            - ncell * betaln(*pr.theta)
            - self.nq * (betaln(*pr.q0) + betaln(*pr.q1))
        )

        def logit_mean(ab):
            return np.log(ab[0] / ab[1])

        self.x0 = np.concatenate(
            [
                np.full(ncell, logit_mean(pr.theta)),
                np.full(self.nq, logit_mean(pr.q0)),
                np.full(self.nq, logit_mean(pr.q1)),
            ]
        )
        qdims = ("stratum",) if self.shared else ("system", "stratum")
        self.dims = {
            "theta_stratum": ["system", "stratum"],
            "q0": list(qdims),
            "q1": list(qdims),
            "theta": ["system"],
        }
        self.coords = {"system": list(systems), "stratum": list(strata)}

    def _split(self, x):
        x = np.asarray(x, dtype=float)
        ncell = self.shape[0] * self.shape[1]
        lead = x.shape[:-1]
        qshape = (*lead, 1, self.shape[1]) if self.shared else (*lead, *self.shape)
        return (
            x[..., :ncell].reshape(*lead, *self.shape),
            x[..., ncell : ncell + self.nq].reshape(qshape),
            x[..., ncell + self.nq :].reshape(qshape),
        )

    @staticmethod
    def _logs(x):
        """Log u, log(1 - u) for u = logistic(x), stably."""
        return -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)

    def logp(self, x) -> np.ndarray:
        """Log density at ``x`` (shape (..., size)), one value per leading index."""
        c, pr = self.c, self.priors
        xt, x0, x1 = self._split(x)
        (lt, lt_), (l0, l0_), (l1, l1_) = self._logs(xt), self._logs(x0), self._logs(x1)
        th, q0, q1 = np.exp(lt), np.exp(l0), np.exp(l1)
        p = th * q1 + (1 - th) * (1 - q0)
        with np.errstate(divide="ignore", invalid="ignore"):
            lik = (
                _xlogy(c["k"], p)
                + _xlogy(c["n"] - c["k"], 1 - p)
                + c["m1"] * lt
                + c["m0"] * lt_
                + c["tp"] * l1
                + (c["m1"] - c["tp"]) * l1_
                + c["tn"] * l0
                + (c["m0"] - c["tn"]) * l0_
            )
        prior = (
            (pr.theta[0] * lt + pr.theta[1] * lt_).sum((-2, -1))
            + (pr.q0[0] * l0 + pr.q0[1] * l0_).sum((-2, -1))
            + (pr.q1[0] * l1 + pr.q1[1] * l1_).sum((-2, -1))
        )
        return lik.sum((-2, -1)) + prior + self.const

    def grad(self, x) -> np.ndarray:
        """Gradient of :meth:`logp` at one point ``x`` (shape (size,))."""
        c, pr = self.c, self.priors
        xt, x0, x1 = self._split(x)
        th, q0, q1 = (1 / (1 + np.exp(-v)) for v in (xt, x0, x1))
        p = th * q1 + (1 - th) * (1 - q0)
        s = c["k"] / p - (c["n"] - c["k"]) / (1 - p)  # d/dp of the unlabelled verdicts
        g_th = s * (q1 + q0 - 1) + c["m1"] / th - c["m0"] / (1 - th)
        g_q1 = s * th + c["tp"] / q1 - (c["m1"] - c["tp"]) / (1 - q1)
        g_q0 = -s * (1 - th) + c["tn"] / q0 - (c["m0"] - c["tn"]) / (1 - q0)
        g_th = g_th * th * (1 - th) + pr.theta[0] * (1 - th) - pr.theta[1] * th
        if self.shared:
            g_q1, g_q0 = g_q1.sum(0, keepdims=True), g_q0.sum(0, keepdims=True)
        g_q1 = g_q1 * q1 * (1 - q1) + pr.q1[0] * (1 - q1) - pr.q1[1] * q1
        g_q0 = g_q0 * q0 * (1 - q0) + pr.q0[0] * (1 - q0) - pr.q0[1] * q0
        return np.concatenate([g_th.ravel(), g_q0.ravel(), g_q1.ravel()])

    def expand(self, x) -> dict[str, np.ndarray]:
        """The model's variables at draws ``x`` (shape (draws, size)), named as PyMC's."""
        xt, x0, x1 = self._split(x)
        th, q0, q1 = (1 / (1 + np.exp(-v)) for v in (xt, x0, x1))
        if self.shared:
            q0, q1 = q0[:, 0], q1[:, 0]
        return {
            "theta_stratum": th,
            "q0": q0,
            "q1": q1,
            "theta": (self.share * th).sum(-1),
        }


def _xlogy(a, b):
    """A log b, 0 where a is 0 (PyMC's ``logpow``)."""
    return np.where(a == 0, 0.0, a * np.log(np.where(a == 0, 1.0, b)))


def multi_judge_items_model(
    unlabelled: np.ndarray,
    labelled_pos: np.ndarray,
    labelled_neg: np.ndarray,
    patterns: np.ndarray,
    *,
    systems: tuple[str, ...],
    judges: tuple[str, ...],
    judge_rates: str = "shared",
    difficulty: bool = False,
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Several judges on the same items, one human subset: a latent-class model.

    Every item has a true label :math:`h \sim \mathrm{Bernoulli}(\theta_s)`; judge
    :math:`j` says positive with probability :math:`q_{1,j}` when :math:`h = 1` and
    :math:`1 - q_{0,j}` when :math:`h = 0`, the judges' verdicts being **independent given
    the true label** (Dawid & Skene 1979).  With :math:`V` the items' vote patterns,

    .. math::
        \ell_1(V) = \sum_j V_j\log q_{1,j} + (1 - V_j)\log(1 - q_{1,j}),\quad
        \ell_0(V) = \sum_j V_j\log(1 - q_{0,j}) + (1 - V_j)\log q_{0,j}

        \log p = \sum_V u_V\,\mathrm{logaddexp}(\log\theta + \ell_1(V),
        \log(1-\theta) + \ell_0(V)) + \sum_V \big[y_V(\log\theta + \ell_1(V))
        + z_V(\log(1-\theta) + \ell_0(V))\big]

    with :math:`u_V` unlabelled items of pattern :math:`V` and :math:`y_V, z_V` labelled
    human-positive and human-negative ones (any labelling design that selects on the
    verdicts only).  The labels identify every judge's rates, so no better-than-chance
    restriction is needed.  Conditional independence is an assumption (two judges from
    one model family err together); the closed form over the vote count does not make it.

    ``difficulty=True`` relaxes it: each item has a difficulty :math:`x \sim N(0, 1)` that
    lowers every judge's chance of being right,
    :math:`P(\text{judge } j \text{ right} \mid h, x) = \mathrm{logit}^{-1}(\gamma_{j,h}
    - \tau x)`, :math:`\gamma \sim N(1, 1.5)`, :math:`\tau \sim \mathrm{HalfNormal}(1)`,
    so hard items fool the judges together; :math:`x` is integrated out per pattern by
    Gauss-Hermite (:data:`GH_NODES` nodes) and ``q0``, ``q1`` are the rates averaged over
    items.

    Parameters
    ----------
    unlabelled, labelled_pos, labelled_neg : array of int, shape (n_systems, n_patterns)
        Counts per vote pattern.
    patterns : array of int, shape (n_patterns, n_judges)
        The 0/1 vote patterns.
    systems, judges : tuple of str
        Coordinates.
    judge_rates : {"per_system", "shared"}
        Each judge's rates per system or one set for all systems.
    difficulty : bool
        Add the shared item difficulty (above).
    priors : AccuracyPriors
        Beta ``theta``, ``q0``, ``q1``.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``q0``, ``q1`` (judge, or system x judge).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    pat = np.asarray(patterns, dtype=float)
    coords = {"system": list(systems), "judge": list(judges), "pattern": list(range(len(pat)))}
    rate_dims = ("system", "judge") if judge_rates == "per_system" else ("judge",)
    with pm.Model(coords=coords) as model:
        u = pm.Data("unlabelled", np.asarray(unlabelled, dtype=float), dims=("system", "pattern"))
        y = pm.Data("labelled_pos", np.asarray(labelled_pos, float), dims=("system", "pattern"))
        z = pm.Data("labelled_neg", np.asarray(labelled_neg, float), dims=("system", "pattern"))
        theta = pm.Beta("theta", *priors.theta, dims="system")
        v = pt.as_tensor(pat)  # (P, J)
        if difficulty:
            x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
            logw = pt.as_tensor(np.log(w / np.sqrt(2 * np.pi)))
            g0 = pm.Normal("gamma0", 1.0, 1.5, dims=rate_dims)
            g1 = pm.Normal("gamma1", 1.0, 1.5, dims=rate_dims)
            tau = pm.HalfNormal("tau", 1.0)
            if judge_rates != "per_system":
                g0, g1 = g0[None, :], g1[None, :]
            xs = pt.as_tensor(x)[None, :, None]  # (1, K, 1)
            r1 = g1[:, None, :] - tau * xs  # (S, K, J): logit P(right | h = 1, x_k)
            r0 = g0[:, None, :] - tau * xs
            # log P(pattern | h, x_k), then integrate x out: (S, P)
            l1k = pt.tensordot(pt.log(pm.math.invlogit(r1)), v, axes=[[2], [1]]) + pt.tensordot(
                pt.log1p(-pm.math.invlogit(r1)), 1 - v, axes=[[2], [1]]
            )
            l0k = pt.tensordot(pt.log1p(-pm.math.invlogit(r0)), v, axes=[[2], [1]]) + pt.tensordot(
                pt.log(pm.math.invlogit(r0)), 1 - v, axes=[[2], [1]]
            )
            ll1 = pt.logsumexp(l1k + logw[None, :, None], axis=1)
            ll0 = pt.logsumexp(l0k + logw[None, :, None], axis=1)
            wq = w / np.sqrt(2 * np.pi)
            q1m = (pm.math.invlogit(r1) * wq[None, :, None]).sum(axis=1)
            q0m = (pm.math.invlogit(r0) * wq[None, :, None]).sum(axis=1)
            if judge_rates != "per_system":
                q1m, q0m = q1m[0], q0m[0]
            pm.Deterministic("q1", q1m, dims=rate_dims)
            pm.Deterministic("q0", q0m, dims=rate_dims)
        else:
            q0 = pm.Beta("q0", *priors.q0, dims=rate_dims)
            q1 = pm.Beta("q1", *priors.q1, dims=rate_dims)
            if judge_rates != "per_system":
                q0, q1 = q0[None, :], q1[None, :]
            # (S, P): sum over judges of each pattern's log-likelihood given h
            ll1 = pt.log(q1) @ v.T + pt.log1p(-q1) @ (1 - v).T
            ll0 = pt.log1p(-q0) @ v.T + pt.log(q0) @ (1 - v).T
        if difficulty:
            pm.Deterministic("log_lik_pos", ll1, dims=("system", "pattern"))
            pm.Deterministic("log_lik_neg", ll0, dims=("system", "pattern"))
        lt, lf = pt.log(theta)[:, None], pt.log1p(-theta)[:, None]
        pos, neg = lt + ll1, lf + ll0
        pm.Potential("unlabelled_logp", (u * pt.logaddexp(pos, neg)).sum())
        pm.Potential("labelled_logp", (y * pos + z * neg).sum())
    return model


def raters_items_model(
    counts: np.ndarray,
    said_yes: np.ndarray,
    said_no: np.ndarray,
    *,
    systems: tuple[str, ...],
    judges: tuple[str, ...],
    raters: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Judges and several human raters on the same items, the truth latent (Dawid-Skene with
    the judge in it).

    Every item has a true label :math:`t \sim \mathrm{Bernoulli}(\theta_s)`; judge
    :math:`j` and rater :math:`r` alike say positive with probability :math:`q_{1}` when
    :math:`t = 1` and :math:`1 - q_{0}` when :math:`t = 0`, independently given :math:`t`;
    a rating a rater did not give drops out.  With :math:`x_{Pk} \in \{0, 1\}` pattern
    :math:`P`'s rating by rater or judge :math:`k` and :math:`m_{Pk}` whether it was given,

    .. math::
        \ell_1(P) = \sum_k m_{Pk} [x_{Pk} \log q_{1k} + (1 - x_{Pk}) \log(1 - q_{1k})],\quad
        \ell_0(P) = \sum_k m_{Pk} [x_{Pk} \log(1 - q_{0k}) + (1 - x_{Pk}) \log q_{0k}]

        \log p = \sum_{s, P} n_{sP}\, \mathrm{logaddexp}(\log\theta_s + \ell_1(P),
        \log(1 - \theta_s) + \ell_0(P)).

    The judges' rates have uniform priors; the raters' are
    :math:`1/2 + 1/2 \cdot \mathrm{Beta}` (``priors.rater``), above chance, which is what
    names the latent class "true".  Three or more conditionally independent ratings of an
    item identify the model; raters (or judges) who err together on hard items break it.

    Parameters
    ----------
    counts : array of int, shape (n_systems, n_patterns)
        Items per system and pattern.
    said_yes, said_no : array of float, shape (n_patterns, n_judges + n_raters)
        :math:`m_{Pk} x_{Pk}` and :math:`m_{Pk} (1 - x_{Pk})`: whether pattern ``P`` has
        judge / rater ``k`` (judges first) saying positive, negative (both 0: not given).
        Data, not structure, so one compiled model serves every data set of the same shape.
    systems, judges, raters : tuple of str
        Coordinates.
    priors : AccuracyPriors
        ``theta``, ``q0``, ``q1`` (the judges') and ``rater``.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``q0``, ``q1`` (judge), ``rater_q0``, ``rater_q1`` (rater).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    coords = {
        "system": list(systems),
        "judge": list(judges),
        "rater": list(raters),
        "pattern": list(range(np.shape(counts)[1])),
        "rating": [*judges, *raters],
    }
    with pm.Model(coords=coords) as model:
        n = pm.Data("counts", np.asarray(counts, dtype=float), dims=("system", "pattern"))
        xm = pm.Data("said_yes", np.asarray(said_yes, float), dims=("pattern", "rating"))
        m = pm.Data("said_no", np.asarray(said_no, float), dims=("pattern", "rating"))
        theta = pm.Beta("theta", *priors.theta, dims="system")
        q0 = pm.Beta("q0", *priors.q0, dims="judge")
        q1 = pm.Beta("q1", *priors.q1, dims="judge")
        a0 = pm.Beta("rater_skill0", *priors.rater, dims="rater")
        a1 = pm.Beta("rater_skill1", *priors.rater, dims="rater")
        r0 = pm.Deterministic("rater_q0", 0.5 + 0.5 * a0, dims="rater")
        r1 = pm.Deterministic("rater_q1", 0.5 + 0.5 * a1, dims="rater")
        k0 = pt.concatenate([q0, r0])
        k1 = pt.concatenate([q1, r1])
        ll1 = xm @ pt.log(k1) + m @ pt.log1p(-k1)  # (P,)
        ll0 = xm @ pt.log1p(-k0) + m @ pt.log(k0)
        pos = pt.log(theta)[:, None] + ll1[None, :]
        neg = pt.log1p(-theta)[:, None] + ll0[None, :]
        pm.Potential("items_logp", (n * pt.logaddexp(pos, neg)).sum())
    return model


#: Gauss-Hermite nodes of the clustered model's population mean (error < 1e-8 for
#: logit-normal means with sigma <= 3)
GH_NODES = 32


def clustered_items_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    cluster_system: np.ndarray,
    *,
    systems: tuple[str, ...],
    clusters: tuple[str, ...],
    judge_rates: str = "shared",
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""The items design with clustered items (several responses per prompt): hierarchical.

    .. math::
        \mathrm{logit}\,\theta_g = \mu_s + \sigma_s z_g,\quad z_g \sim N(0, 1),\quad
        \mu_s \sim N(m_\mu, s_\mu),\ \sigma_s \sim \mathrm{HalfNormal}(s_\sigma)

        k_g \sim \mathrm{Bin}(n_g,\ \theta_g q_{1,s} + (1-\theta_g)(1-q_{0,s})),\quad
        m_{1,g} \sim \mathrm{Bin}(m_{0,g} + m_{1,g}, \theta_g),\quad
        tp_g \sim \mathrm{Bin}(m_{1,g}, q_{1,s}),\ tn_g \sim \mathrm{Bin}(m_{0,g}, q_{0,s})

    for cluster :math:`g` of system :math:`s`; items are independent given their cluster's
    rate; the judge's rates are one pair for every system (``judge_rates= "shared"``, drop
    the index :math:`s` of :math:`q`) or the system's (``"per_system"``). The process rate
    is the population mean :math:`\theta_s = E_z[\mathrm{logit}^{-1}(\mu_s + \sigma_s z)]`
    (Gauss-Hermite, :data:`GH_NODES` nodes): the mean over prompts, which is the item-level
    rate when every prompt has the same number of responses.

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (n_clusters,)
        Unlabelled and labelled counts per cluster.
    cluster_system : array of int, shape (n_clusters,)
        Each cluster's system code.
    systems, clusters : tuple of str
        Coordinates.
    judge_rates : {"shared", "per_system"}
        One pair of judge rates, or one per system.
    priors : AccuracyPriors
        ``cluster_mu``, ``cluster_sigma``; Beta ``q0``, ``q1``.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_cluster`` (cluster), ``mu``, ``sigma``, ``q0``, ``q1``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    g = len(clusters)
    sidx = np.asarray(cluster_system, dtype=np.int64).reshape(g)
    x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    w = w / np.sqrt(2 * np.pi)
    with pm.Model(coords={"system": list(systems), "cluster": list(clusters)}) as model:
        d = _count_data(g, "cluster", k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
        mu = pm.Normal("mu", *priors.cluster_mu, dims="system")
        sigma = pm.HalfNormal("sigma", priors.cluster_sigma, dims="system")
        z = pm.Normal("z", 0.0, 1.0, dims="cluster")
        th = pm.Deterministic(
            "theta_cluster", pm.math.invlogit(mu[sidx] + sigma[sidx] * z), dims="cluster"
        )
        if judge_rates == "per_system":
            q0, q1 = _judge_rates(priors, False, dims="system")
            q0g, q1g = q0[sidx], q1[sidx]
        else:
            q0g, q1g = _judge_rates(priors, False)
        p = th * q1g + (1 - th) * (1 - q0g)
        grid = pm.math.invlogit(mu[:, None] + sigma[:, None] * pt.as_tensor(x)[None, :])
        pm.Deterministic("theta", (grid * w[None, :]).sum(axis=1), dims="system")
        _judged_and_labelled(d, p, th, q0g, q1g, "cluster")
    return model


def stratified_accuracy_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    *,
    systems: tuple[str, ...],
    strata: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    """Calibration strata with partially pooled judge rates (variant d).

    Parameters
    ----------
    k, n : array of int, shape (n_systems, n_strata)
        Test counts per system and stratum.
    tp, m1, tn, m0 : array of int, shape (n_strata,)
        Calibration counts per stratum (a stratum may lack one class: pooling fills in).
    systems, strata : tuple of str
        Coordinates of the ``system`` and ``stratum`` dims.
    priors : AccuracyPriors
        Prior settings (``strata_mu``, ``strata_sigma`` for the population).

    Returns
    -------
    pm.Model
        ``theta`` (dim ``system``: accuracy over the test set's stratum shares),
        ``theta_stratum`` (``system, stratum``), ``q0``/``q1`` (``stratum``), population
        parameters ``mu_q0, sigma_q0, mu_q1, sigma_q1`` and non-centred ``z_q0, z_q1``.
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    shape = (len(systems), len(strata))
    k = np.asarray(k, dtype=np.int64).reshape(shape)
    n = np.asarray(n, dtype=np.int64).reshape(shape)
    tot = n.sum(1, keepdims=True)
    if np.any(tot == 0):
        raise InputError("a system has no judged test items", field="n", value=0)
    w = n / tot
    coords = {"system": list(systems), "stratum": list(strata)}
    with pm.Model(coords=coords) as model:
        k_d = pm.Data("k", k, dims=("system", "stratum"))
        n_d = pm.Data("n", n, dims=("system", "stratum"))
        w_d = pm.Data("weights", w, dims=("system", "stratum"))
        cal = {
            nm: pm.Data(nm, np.asarray(v, dtype=np.int64).reshape(len(strata)), dims="stratum")
            for nm, v in (("tp", tp), ("m1", m1), ("tn", tn), ("m0", m0))
        }
        rates = {}
        for c in ("q0", "q1"):
            mu = pm.Normal(f"mu_{c}", *priors.strata_mu)
            sigma = pm.HalfNormal(f"sigma_{c}", priors.strata_sigma)
            z = pm.Normal(f"z_{c}", 0.0, 1.0, dims="stratum")
            rates[c] = pm.Deterministic(c, pm.math.invlogit(mu + sigma * z), dims="stratum")
        q0, q1 = rates["q0"], rates["q1"]
        theta_st = pm.Beta("theta_stratum", *priors.theta, dims=("system", "stratum"))
        p = theta_st * q1[None, :] + (1 - theta_st) * (1 - q0[None, :])
        pm.Binomial("k_obs", n=n_d, p=p, observed=k_d, dims=("system", "stratum"))
        pm.Binomial("tp_obs", n=cal["m1"], p=q1, observed=cal["tp"], dims="stratum")
        pm.Binomial("tn_obs", n=cal["m0"], p=q0, observed=cal["tn"], dims="stratum")
        pm.Deterministic("theta", (theta_st * w_d).sum(axis=1), dims="system")
    return model


def multiclass_accuracy_model(
    confusion: np.ndarray,
    test: np.ndarray,
    *,
    classes: tuple[str, ...],
    systems: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    """K-class judge: Dirichlet confusion rows and class prevalences (variant e).

    Parameters
    ----------
    confusion : array of int, shape (K, K)
        Calibration counts, rows = true (human) class, columns = judged class.
    test : array of int, shape (n_systems, K)
        Judged-class counts on the test set.
    classes, systems : tuple of str
        Coordinates of the class dims and of ``system``.
    priors : AccuracyPriors
        ``prevalence`` is the symmetric Dirichlet concentration.

    Returns
    -------
    pm.Model
        ``prevalence`` (``system, true_class``), ``confusion_rates``
        (``true_class, judged_class``), ``judged_rate`` (``system, judged_class``).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    kk = len(classes)
    confusion = np.asarray(confusion, dtype=np.int64).reshape(kk, kk)
    test = np.asarray(test, dtype=np.int64).reshape(len(systems), kk)
    coords = {"system": list(systems), "true_class": list(classes), "judged_class": list(classes)}
    with pm.Model(coords=coords) as model:
        cal_d = pm.Data("confusion_counts", confusion, dims=("true_class", "judged_class"))
        test_d = pm.Data("test_counts", test, dims=("system", "judged_class"))
        rates = dirichlet(
            pm, "confusion_rates", np.ones((kk, kk)), dims=("true_class", "judged_class")
        )
        pm.Multinomial(
            "confusion_obs",
            n=cal_d.sum(axis=1),
            p=rates,
            observed=cal_d,
            dims=("true_class", "judged_class"),
        )
        prev = dirichlet(
            pm,
            "prevalence",
            np.full((len(systems), kk), priors.prevalence),
            dims=("system", "true_class"),
        )
        q = pm.Deterministic("judged_rate", pt.dot(prev, rates), dims=("system", "judged_class"))
        pm.Multinomial(
            "test_obs", n=test_d.sum(axis=1), p=q, observed=test_d, dims=("system", "judged_class")
        )
    return model


#: most systems the paired model takes (its joint has 2 ** S cells)
PAIRED_MAX_SYSTEMS = 8


def truth_states(n_systems: int) -> np.ndarray:
    """Every joint truth of ``n_systems`` answers to one item, (2 ** S, S) of 0/1."""
    return ((np.arange(2**n_systems)[:, None] >> np.arange(n_systems)[::-1]) & 1).astype(np.int64)


def pattern_masks(verdict: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each pattern, which joint verdicts (``V``, (P, W)) and joint truths (``L``,
    (P, T)) it is compatible with: a system without a verdict (label) allows either.
    """
    v, h = np.asarray(verdict), np.asarray(human)
    states = truth_states(v.shape[1])  # (T, S); also the joint verdicts
    V = np.all((v[:, None, :] < 0) | (v[:, None, :] == states[None]), -1).astype(float)
    L = np.all((h[:, None, :] < 0) | (h[:, None, :] == states[None]), -1).astype(float)
    return V, L


def paired_items_model(
    counts: np.ndarray,
    verdict: np.ndarray,
    human: np.ndarray,
    *,
    systems: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Several systems answering the same items, one judge: joint verdicts, joint truths.

    Each item :math:`i` has a joint verdict :math:`w_i \in \{0, 1\}^S` (which answers the
    judge passed) and a joint truth :math:`t_i \in \{0, 1\}^S` (which systems answered it
    right), with

    .. math::
        w_i \sim \mathrm{Categorical}(s),\quad
        s \sim \mathrm{Dirichlet}(2^{1-S}),\qquad
        t_i \mid w_i \sim \mathrm{Categorical}(r_{w_i}),\quad
        r_w \sim \mathrm{Dirichlet}(\alpha),\quad
        \alpha_t = (a + b)\prod_s \rho^{t_s}(1 - \rho)^{1 - t_s},\ \rho = a / (a + b),

    the parametrisation of the exact paired posterior
    (:mod:`judgebayes.inference.accuracy.paired`) and of the closed form's joint verdict
    categories: the verdicts' shares and the truths given a verdict.  Nothing is assumed
    about how the systems' truths relate (an item hard for one system may be hard for all:
    the pairing) or about how the judge errs: on each system differently (self-preference),
    or on the answers to one prompt together (a grader that compares the answers with the
    same reference passes or fails them together).  Each system's human rate within a
    joint verdict, :math:`\sum_{t: t_s = 1} r_{wt}`, is a priori the items prior
    Beta(:math:`a, b`) (Beta(1/2, 1/2) by default); the rate
    :math:`\theta_s = \sum_w s_w \sum_{t: t_s = 1} r_{wt}` has that prior's mean.
    An item's likelihood sums over the joint verdicts its verdicts allow and the joint
    truths its labels allow (a missing verdict or label allows both values):
    :math:`\sum_w V_{iw} s_w \sum_t r_{wt} L_{it}` (:func:`pattern_masks`).  Differences
    :math:`\theta_a - \theta_b` are paired: both are sums over the same :math:`s` and
    :math:`r`.

    Parameters
    ----------
    counts : array of int, shape (P,)
        Items per pattern.
    verdict, human : array of int, shape (P, S)
        Each pattern's verdict and human label per system (1, 0, or -1: none).
    systems : tuple of str
        Coordinates (at most :data:`PAIRED_MAX_SYSTEMS`).
    priors : AccuracyPriors
        ``theta`` (sets :math:`\alpha`).

    Returns
    -------
    pm.Model
        ``theta`` (system), ``share`` (verdict), ``given`` (verdict, state), and the
        potential ``loglik``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    S = len(systems)
    states = truth_states(S)  # (T, S): the joint truths, and the joint verdicts
    names = ["".join(map(str, t)) for t in states]
    V, L = pattern_masks(verdict, human)
    a, b = (float(x) for x in priors.theta)
    rho = a / (a + b)
    conc = (a + b) * np.prod(np.where(states == 1, rho, 1 - rho), axis=1)  # (T,)
    with pm.Model(coords={"system": list(systems), "state": names, "verdict": names}) as model:
        c = pm.Data("counts", np.asarray(counts, dtype=float))
        share = dirichlet(pm, "share", np.full(len(states), 2.0 ** (1 - S)), dims="verdict")
        given = dirichlet(pm, "given", np.tile(conc, (len(states), 1)), dims=("verdict", "state"))
        allowed = pt.dot(pt.as_tensor(L), given.T)  # (P, W): P(labels seen | w)
        lik = (pt.as_tensor(V) * allowed * share[None, :]).sum(-1)
        pm.Potential("loglik", (c * pt.log(pt.maximum(lik, 1e-300))).sum())
        truth = pt.dot(share, given)  # (T,): the joint truths' shares
        pm.Deterministic("theta", pt.dot(truth, pt.as_tensor(states.astype(float))), dims="system")
    return model


def repeated_verdicts_model(
    k: np.ndarray,
    runs: np.ndarray,
    prompt: np.ndarray,
    *,
    n_prompts: int,
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Repeated generations per prompt and repeated judge runs per generation.

    Generation :math:`g` of prompt :math:`i` passes one judge run with probability

    .. math::
        \mathrm{logit}\,p_{ig} = \mu + \sigma_\text{prompt} a_i + \sigma_\text{gen} b_{ig},
        \qquad a_i, b_{ig} \sim N(0, 1),\qquad k_{ig} \sim \mathrm{Bin}(r_{ig}, p_{ig}),

    with :math:`k_{ig}` passes in :math:`r_{ig}` runs (runs independent given the
    generation: the judge's run-to-run noise is the binomial's).  The variance of one
    verdict splits on the probability scale into prompts
    (:math:`\mathrm{Var}_i\,E_g[p_{ig}]`), generations within a prompt
    (:math:`E_i\,\mathrm{Var}_g[p_{ig}]`) and judge runs (:math:`E[p(1 - p)]`).  The
    normal prompt effect is a prior that pools the prompts, not a claim about their
    population: the components average over the observed prompts' own effects with
    Bayesian-bootstrap weights :math:`\pi \sim \mathrm{Dirichlet}(1, \dots, 1)`
    (``prompt_weight``, free of the data), so a population of easy and hard prompts is
    not read through a normal's shape.  Per prompt, :math:`m_i = E_g[p_{ig}]` and
    :math:`s_i = E_g[p_{ig}^2]` by Gauss-Hermite over the generation effect;
    :math:`\text{rate} = \sum_i \pi_i m_i`, ``var_prompt`` :math:`= \frac{I+1}{I-1}\sum_i
    \pi_i (m_i - \text{rate})^2` (the factor makes its mean the :math:`I` prompts' sample
    variance), ``var_generation`` :math:`= \sum_i \pi_i (s_i - m_i^2)`, ``var_judge``
    :math:`= \sum_i \pi_i (m_i - s_i)`.  With prompts whose logit difficulty is -2.5 or
    +2.5 (40 prompts x 4 generations x 3 runs), integrating over the fitted normal instead
    covered the prompt and judge-run components in 0 of 7 sets.  Priors:
    :math:`\mu \sim N(m_\mu, s_\mu)` (``cluster_mu``), both sds
    :math:`\mathrm{HalfNormal}(s_\sigma)` (``cluster_sigma``).

    Parameters
    ----------
    k, runs : array of int, shape (n_generations,)
        Passes and judge runs of each generation.
    prompt : array of int, shape (n_generations,)
        Each generation's prompt code (0 .. n_prompts - 1).
    n_prompts : int
        Number of prompts.
    priors : AccuracyPriors
        ``cluster_mu``, ``cluster_sigma``.

    Returns
    -------
    pm.Model
        ``mu``, ``sigma_prompt``, ``sigma_generation``, ``rate``, ``var_prompt``,
        ``var_generation``, ``var_judge`` and the three together as ``variance``
        (component: prompt, generation, judge run).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    k = np.asarray(k, dtype=np.int64)
    x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    w = w / w.sum()
    components = ["prompt", "generation", "judge run"]
    with pm.Model(coords={"component": components}) as model:
        kd = pm.Data("k", k)
        rd = pm.Data("runs", np.asarray(runs, dtype=np.int64))
        mu = pm.Normal("mu", *priors.cluster_mu)
        s_p = pm.HalfNormal("sigma_prompt", priors.cluster_sigma)
        s_g = pm.HalfNormal("sigma_generation", priors.cluster_sigma)
        a = pm.Normal("a", 0.0, 1.0, shape=n_prompts)
        b = pm.Normal("b", 0.0, 1.0, shape=k.size)
        eta = mu + s_p * a[np.asarray(prompt, dtype=np.int64)] + s_g * b
        pm.Binomial("k_obs", n=rd, p=pm.math.invlogit(eta), observed=kd)
        # p at every (observed prompt, generation node): (n_prompts, K)
        grid = pm.math.invlogit(mu + s_p * a[:, None] + s_g * x[None, :])
        wg = pt.as_tensor(w)
        m_prompt = (grid * wg[None, :]).sum(1)  # E_g p of each prompt
        second = (grid**2 * wg[None, :]).sum(1)  # E_g p^2
        pi = dirichlet(pm, "prompt_weight", np.ones(n_prompts))
        rate = pm.Deterministic("rate", (pi * m_prompt).sum())
        # the weighted variance's mean is (I - 1)/(I + 1) of the prompts' sample variance
        shrink = (n_prompts + 1) / max(n_prompts - 1, 1)
        v_p = pm.Deterministic("var_prompt", shrink * (pi * (m_prompt - rate) ** 2).sum())
        v_g = pm.Deterministic("var_generation", (pi * (second - m_prompt**2)).sum())
        v_j = pm.Deterministic("var_judge", (pi * (m_prompt - second)).sum())
        pm.Deterministic("variance", pt.stack([v_p, v_g, v_j]), dims="component")
    return model
