r"""MAP and Laplace for Gaussian-prior Bradley-Terry models, with analytic derivatives.

Parameters :math:`\beta = (\theta, b)`, one row of the design per comparison

.. math::
    z_{ab} = (e_a - e_b,\ f_{ab}),\qquad
    \Pr(y = 1) = \sigma(\beta^\top z_{ab}),

where :math:`f_{ab}` holds the bias features: the covariate differences
:math:`x_a - x_b` and a 1 for the position term :math:`\kappa`; with several judges
the features appear twice, once in the shared (population) block and once in the
judge's own deviation block, so that judge :math:`j`'s coefficients are
:math:`\mu + \delta_j` (partial pooling with Gaussian priors).  The negative
log-posterior

.. math::
    \mathcal L(\beta) = \sum_{\mathcal D} w\,[\operatorname{softplus}(\eta) - y\eta]
    + \tfrac12 \beta^\top \Lambda \beta,\qquad \eta = z^\top\beta,

is convex, with gradient :math:`Z^\top(\pi - y) + \Lambda\beta` and Hessian
:math:`H = Z^\top \operatorname{diag}(\pi(1-\pi)) Z + \Lambda`.  It is minimised by
Newton's method with a backtracking line search (quadratic convergence, warm starts);
the Laplace posterior is :math:`N(\hat\beta, H^{-1})`.  A tie counted as half a win
enters with :math:`y = 1/2`.  ``Λ`` is diagonal: :math:`\lambda` on :math:`\theta`
(the paper's prior precision, which also identifies the additive constant),
:math:`\lambda_b = 1/\tau^2` on the bias coefficients.

Ties (Davidson 1970).  With ``ties="davidson"`` a comparison has three outcomes,

.. math::
    \Pr(\text{first wins}) = \frac{e^{\eta/2}}{D},\quad
    \Pr(\text{second wins}) = \frac{e^{-\eta/2}}{D},\quad
    \Pr(\text{tie}) = \frac{\nu}{D},\qquad D = e^{\eta/2} + e^{-\eta/2} + \nu,

(Davidson's :math:`\pi_a / (\pi_a + \pi_b + \nu\sqrt{\pi_a\pi_b})` divided through by
:math:`\sqrt{\pi_a\pi_b}`).  The tie parameter enters as :math:`s = \log\nu`, the last
entry of :math:`\beta`, with prior :math:`N(0, 1/\lambda_\nu)`.  The three log-odds
:math:`(\eta/2, -\eta/2, s)` are linear in :math:`\beta`, so the negative
log-likelihood (a log-sum-exp minus a linear term) stays convex and Newton's method
applies unchanged; gradient and Hessian are those of a multinomial logit with the
3 x p Jacobian :math:`G = [(z/2, 0); (-z/2, 0); (0, 1)]`.  It reduces to Bradley-Terry
as :math:`\nu \to 0`.

The hierarchical variant learns :math:`\tau^2` by empirical Bayes, alternating the
Laplace fit with the EM update
:math:`\tau^2 \leftarrow \operatorname{mean}_m(\hat b_m^2 + \operatorname{Var}\hat b_m)`.
"""

from judgebayes.inference.ranking.newton.design import TIE_PARAM as TIE_PARAM
from judgebayes.inference.ranking.newton.design import BTDesign as BTDesign
from judgebayes.inference.ranking.newton.design import bt_counts_design as bt_counts_design
from judgebayes.inference.ranking.newton.design import bt_design as bt_design
from judgebayes.inference.ranking.newton.design import (
    bt_design_from_counts as bt_design_from_counts,
)
from judgebayes.inference.ranking.newton.design import collapse_pairs as collapse_pairs
from judgebayes.inference.ranking.newton.fit import MapResult as MapResult
from judgebayes.inference.ranking.newton.fit import fit_map as fit_map
from judgebayes.inference.ranking.newton.fit import (
    fit_map_empirical_bayes as fit_map_empirical_bayes,
)
from judgebayes.inference.ranking.newton.fit import laplace_draws as laplace_draws
from judgebayes.inference.ranking.newton.fit import log_likelihood as log_likelihood

__all__ = [
    "BTDesign",
    "MapResult",
    "bt_counts_design",
    "bt_design",
    "bt_design_from_counts",
    "collapse_pairs",
    "fit_map",
    "fit_map_empirical_bayes",
    "laplace_draws",
    "log_likelihood",
]
