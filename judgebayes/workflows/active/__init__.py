r"""Active acquisition of pairwise comparisons for top-k identification (Xu et al., Alg. 1).

After every ``refit_every`` verdicts the Laplace posterior
:math:`N(\hat\beta, H^{-1})` of the naive or bias-aware model is refitted (Newton,
warm-started), :math:`S` draws of :math:`\theta` give the membership probabilities
:math:`p_i = \Pr(i \in S_k)`, and every unqueried unordered pair is scored by

.. math::
    s(i, j) = I_{ij}\;
    \operatorname{Var}(\theta_i - \theta_j)\;
    \big(\mathcal H(p_i) + \mathcal H(p_j)\big),
    \qquad I_{ij} = \tfrac12\big[\sigma'(\hat\eta_{ij}^{+}) + \sigma'(\hat\eta_{ij}^{-})\big],

(``rule="topk"``), where :math:`\hat\eta^{\pm}_{ij} = \hat\theta_i - \hat\theta_j +
\hat c^\top(x_i - x_j) \pm \hat\kappa` is the full linear predictor in the two
presentation orders (each is shown with probability 1/2) and :math:`\sigma' =
\sigma(1-\sigma)` is a verdict's Fisher information about the quality difference.  The
paper's score uses :math:`\sigma'(\hat\theta_i - \hat\theta_j)`, the quality difference
alone: a pair the judge's bias makes predictable carries less information than that says.
``rule="topk_quality"`` keeps the paper's score as the comparator.  The next
``refit_every`` pairs are the best-scoring unqueried ones, each shown in a random order
that is recorded (it is what identifies kappa).

Rules: ``"topk"`` (the score above), ``"topk_quality"`` (the paper's), ``"global"``
(without the boundary factor: the D-optimal / global-uncertainty rule), ``"entropy"``
(boundary factor only),
``"no_variance"`` and ``"no_informativeness"`` (the ablations that drop one factor),
``"round_robin"`` (rounds of a round-robin tournament, every item once per round,
random within a round) and ``"random"``.  Ties of the score are broken at random.

Oracles: :class:`MatrixOracle` reveals entries of a full ordered verdict matrix
(offline evaluation: every strategy faces the same judge); :class:`CallableOracle`
asks a callable (an online judge).
"""

from judgebayes.workflows.active.budget import budget_study as budget_study
from judgebayes.workflows.active.oracles import RULES as RULES
from judgebayes.workflows.active.oracles import CallableOracle as CallableOracle
from judgebayes.workflows.active.oracles import MatrixOracle as MatrixOracle
from judgebayes.workflows.active.oracles import acquisition_scores as acquisition_scores
from judgebayes.workflows.active.run import ActiveResult as ActiveResult
from judgebayes.workflows.active.run import run_active as run_active

__all__ = [
    "RULES",
    "ActiveResult",
    "CallableOracle",
    "MatrixOracle",
    "acquisition_scores",
    "budget_study",
    "run_active",
]
