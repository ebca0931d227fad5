r"""A pairwise judge's length and position bias, measured against gold labels.

Each instance has two outputs, one of which the gold label prefers; the judge sees the
pair in one or both presentation orders and picks one.  Written as a two-item
Bradley-Terry comparison between the roles ``"gold"`` (the output gold prefers) and
``"other"``, the bias-aware model of :mod:`judgebayes.studies.ranking` reads

.. math::
    \Pr(\text{judge picks the output shown first}) =
    \sigma\big(\beta\,s + c\,(x_{first} - x_{second}) + \kappa\big),

with :math:`s = +1` when the gold output is shown first and :math:`-1` otherwise,
:math:`\beta = \theta_{gold} - \theta_{other}` the judge's discrimination (one per
subset by default: items ``"gold:<subset>"``, ``"other:<subset>"``, because a judge can
be good on natural pairs and worse than chance on adversarial ones),
:math:`x = \log_2(1 + \text{words})` the (standardised) length, :math:`c` the length
bias per standardised unit and :math:`\kappa` the first-position bias; :math:`c` and
:math:`\kappa` get the horseshoe (NUTS) or a normal prior (MAP/Laplace).

Correction.  For a held-out instance the fitted model gives the posterior odds that
output 1 is the gold output,

.. math::
    \frac{\Pr(g = 1 \mid y)}{\Pr(g = 2 \mid y)} = \frac{\pi}{1-\pi}
    \prod_{v} \frac{\Pr(y_v \mid s_v(g{=}1))}{\Pr(y_v \mid s_v(g{=}2))},

over the instance's usable verdicts :math:`v`, with :math:`\pi` the prior probability
that output 1 is gold given what is known before the judge speaks: by default a logistic
regression of gold on the outputs' length difference, fitted on the training instances
(``gold_prior="length"``), because in LLMBar the gold output is the shorter one in most
pairs by construction; ``gold_prior="constant"`` uses the training share of output-1
wins.  A judge that prefers the longer output and picks the first-shown
output both times is thereby read as undecided, and the length term breaks the tie
towards the output it did not favour for length.  :func:`cross_validated_agreement`
reports the agreement with gold of the raw verdicts and of this decision over K folds
of instances, beside the ranking paper's correction (an L2-regularised logistic
regression of gold on the order-averaged judge score and the length difference).
"""

from judgebayes.data.ranking.verdicts import bias_comparisons as bias_comparisons
from judgebayes.data.ranking.verdicts import instance_ids as instance_ids
from judgebayes.workflows.judge_bias.correction import (
    cross_validated_agreement as cross_validated_agreement,
)
from judgebayes.workflows.judge_bias.fit import LLMBAR_BIAS_SUBSETS as LLMBAR_BIAS_SUBSETS
from judgebayes.workflows.judge_bias.fit import fit_judge_bias as fit_judge_bias
from judgebayes.workflows.judge_bias.fit import judge_bias_table as judge_bias_table
from judgebayes.workflows.judge_bias.fit import plot_bias_forest as plot_bias_forest

__all__ = [
    "LLMBAR_BIAS_SUBSETS",
    "bias_comparisons",
    "cross_validated_agreement",
    "fit_judge_bias",
    "instance_ids",
    "judge_bias_table",
    "plot_bias_forest",
]
