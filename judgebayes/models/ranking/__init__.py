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

Priors on the bias coefficients :math:`b = (c, \kappa)` are classes
(:mod:`~judgebayes.models.ranking.priors`): :class:`NormalBias` (fixed precision),
:class:`HierarchicalBias` (one learnt scale), :class:`HorseshoeBias` (the regularized
horseshoe), and :class:`NoBias` for the naive model.

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

from judgebayes.models.ranking.model import bradley_terry_model, bt_var_names, theta_prior
from judgebayes.models.ranking.priors import (
    BIAS_PRIORS,
    PRIORS,
    BiasPrior,
    HierarchicalBias,
    HorseshoeBias,
    NoBias,
    NormalBias,
    RankingPriors,
    bias_prior,
)

__all__ = [
    "BIAS_PRIORS",
    "PRIORS",
    "BiasPrior",
    "HierarchicalBias",
    "HorseshoeBias",
    "NoBias",
    "NormalBias",
    "RankingPriors",
    "bias_prior",
    "bradley_terry_model",
    "bt_var_names",
    "theta_prior",
]
