r"""Which items to label next: inclusion probabilities from per-item uncertainty, and the
design-unbiased estimate of a round of labels drawn with them.

Items :math:`i = 1..N`, every one judged (:math:`f_i`: a verdict or a score), a label
:math:`Y_i` for those sampled.  A round draws item :math:`i` with probability :math:`\pi_i`
(independently: Poisson sampling; an item already labelled costs nothing when drawn again)
and estimates the mean of :math:`Y` over the :math:`N` items by the difference (GREG)
estimator

.. math::

    \hat\theta = \frac1N \sum_i g(f_i) + \frac1N \sum_i \frac{R_i}{\pi_i} (Y_i - g(f_i)),
    \qquad
    \widehat{\mathrm{Var}} = \frac{1}{N^2} \sum_i R_i \frac{1 - \pi_i}{\pi_i^2} e_i^2,

with :math:`g` the working model fixed before the round (a least-squares fit of :math:`Y`
on :math:`f` from earlier labels; with an uncertainty :math:`u` known for every item, on
:math:`f`, :math:`u` and :math:`f u`, a line in :math:`u` per verdict, since the
uncertainty that says where the judge errs also says which way) and
:math:`e_i = Y_i - g(f_i)`: unbiased for the rate of
the :math:`N` items whatever :math:`g` is, its variance
:math:`\frac{1}{N^2}\sum_i \frac{1 - \pi_i}{\pi_i} e_i^2` smallest for
:math:`\pi_i \propto |e_i| / \sqrt{c_i}` at a budget :math:`\sum_i \pi_i c_i` (:math:`c_i`
the cost of labelling item :math:`i`; Neyman for Poisson sampling, capped at 1).  The
:math:`|e_i|` are unknown before labelling: their root mean square is predicted from the
labels so far within quantile bins of the item's uncertainty (the judge's probability or
score, the spread of several judges or runs), shrunk to the overall value, and the
probabilities are mixed with uniform ones, :math:`\pi = (1 - \tau) \pi^{active} + \tau
\pi^{uniform}`, at the :math:`\tau \in \{0, 0.1, ..., 1\}` whose predicted variance is
smallest, so the design is never predicted worse than uniform.

A round's design needs :math:`g` fixed before the round; its estimate can do better.  The
items are split into folds :math:`1..K` at random once (:func:`fold_of`), and the items of
fold :math:`k` are predicted by the working model fitted on the labels before the round
and on the round's own labels in folds :math:`1..k-1` (sequential cross-fitting,
:func:`crossfit_predictions`).  Given the past and the draws in earlier folds, that model
is fixed and fold :math:`k`'s draws are still independent with probabilities
:math:`\pi_i`, so the folds' parts of the sum are martingale differences: the round's
estimate stays exactly unbiased given the rounds before it, and so does the variance
formula above, while the model learns from the round's own labels too (a round with fewer
than :data:`MIN_LABELS` labels before it reads those alone).  Fitting each fold's model on
every other fold's labels instead keeps the estimate unbiased but not the variance: the
folds' models lean on each other's draws, a covariance the formula misses.  Each round's
estimate is unbiased given the rounds before it, so the rounds' errors are uncorrelated and a
combination with fixed weights has the weighted sum of their variances.  The default
weights are the inverses of each round's variance as the design formula gives it with
error scales learnt from the labels before the round (the first round's from the labels
after it), so no round's weight follows its own residuals.  Weights that do are too
narrow: each round's own variance estimate lets a small round whose few residuals happen
to be near zero take the weight, and scales learnt from all labels under-estimate the se
(BENCHMARKS.md, evaluation as it runs).
"""

from judgebayes.inference.active_labels.rounds import claim_outlook as claim_outlook
from judgebayes.inference.active_labels.rounds import combined_variance as combined_variance
from judgebayes.inference.active_labels.rounds import design_round as design_round
from judgebayes.inference.active_labels.rounds import greg_estimate as greg_estimate
from judgebayes.inference.active_labels.rounds import (
    inclusion_probabilities as inclusion_probabilities,
)
from judgebayes.inference.active_labels.rounds import mixed_design as mixed_design
from judgebayes.inference.active_labels.rounds import normal_interval as normal_interval
from judgebayes.inference.active_labels.rounds import plan_round as plan_round
from judgebayes.inference.active_labels.rounds import predicted_variance as predicted_variance
from judgebayes.inference.active_labels.rounds import require_complete as require_complete
from judgebayes.inference.active_labels.rounds import round_model as round_model
from judgebayes.inference.active_labels.rounds import round_rng as round_rng
from judgebayes.inference.active_labels.working import EVIDENCE_LEVEL as EVIDENCE_LEVEL
from judgebayes.inference.active_labels.working import MIN_LABELS as MIN_LABELS
from judgebayes.inference.active_labels.working import _same_scale as _same_scale
from judgebayes.inference.active_labels.working import crossfit_predictions as crossfit_predictions
from judgebayes.inference.active_labels.working import error_scale as error_scale
from judgebayes.inference.active_labels.working import fold_of as fold_of
from judgebayes.inference.active_labels.working import regressors as regressors
from judgebayes.inference.active_labels.working import working_model as working_model

__all__ = [
    "EVIDENCE_LEVEL",
    "MIN_LABELS",
    "claim_outlook",
    "combined_variance",
    "crossfit_predictions",
    "design_round",
    "error_scale",
    "fold_of",
    "greg_estimate",
    "inclusion_probabilities",
    "mixed_design",
    "normal_interval",
    "plan_round",
    "predicted_variance",
    "regressors",
    "require_complete",
    "round_model",
    "working_model",
]
