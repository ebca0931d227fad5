r"""Repeated calibration/test splits of a fully labelled item set (Lee et al.'s protocol).

When every item carries both a judge verdict and a gold label, the gold rate of any test
part is known, so an estimator can be checked on real data: draw a calibration part
(``calibration_fraction`` of the items), use only its gold labels to estimate the judge's
specificity :math:`q_0` and sensitivity :math:`q_1`, correct the judge's rate on the rest,
and compare with the rest's gold rate.  Over ``n_splits`` seeded splits this gives

* the mean bias of the naive rate :math:`\hat p - \theta_{test}` and of each corrected
  estimate,
* the coverage and mean width of each interval: Lang-Reiczigel (closed form), the Laplace
  interval and the NUTS credible interval of the binary model (uniform priors).

All splits of one group are fitted at once: the Bayesian model is the binary model
repeated along a ``split`` dim with nothing shared
(:func:`judgebayes.models.accuracy.batched_accuracy_model`), whose posterior is the product
of the per-split posteriors, so one NUTS run or one Laplace fit covers every split.  With
``splits_per_fit`` a group's splits go to several such fits of that many splits each: more,
smaller tasks for an executor (the unit of parallel work is one fit), one compile per worker
when the fits have the same size.

The truth of a split is the gold rate of its test items that have a judge verdict (the
quantity the corrected estimate targets); items without a verdict take part in no split
and are counted per group.
"""

from judgebayes.workflows.split_protocol.masks import SPLIT_METHODS as SPLIT_METHODS
from judgebayes.workflows.split_protocol.masks import SplitProtocolResult as SplitProtocolResult
from judgebayes.workflows.split_protocol.masks import split_masks as split_masks
from judgebayes.workflows.split_protocol.run import split_protocol as split_protocol

__all__ = ["SPLIT_METHODS", "SplitProtocolResult", "split_masks", "split_protocol"]
