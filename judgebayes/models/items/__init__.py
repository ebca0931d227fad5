r"""PyMC builders of the items design: every item judged, a few labelled by humans.
Builders never sample.

One module per model: :mod:`~judgebayes.models.items.items` (the items model),
``clustered``, ``covariate``, ``judges``, ``raters``, ``paired``, ``dynamic``; the design's
priors in ``priors`` (:func:`items_priors`, the judge's rates shared or pooled across
systems), the items model's numpy density in ``density``.  The priors' settings are
:class:`~judgebayes.models.accuracy.AccuracyPriors`, shared with the two-frames design.
"""

from judgebayes.models.items.clustered import clustered_items_model as clustered_items_model
from judgebayes.models.items.covariate import items_covariate_model as items_covariate_model
from judgebayes.models.items.covariate import standardise as standardise
from judgebayes.models.items.density import ItemsLogDensity as ItemsLogDensity
from judgebayes.models.items.dynamic import items_dynamic_model as items_dynamic_model
from judgebayes.models.items.items import items_accuracy_model as items_accuracy_model
from judgebayes.models.items.judges import multi_judge_items_model as multi_judge_items_model
from judgebayes.models.items.paired import PAIRED_MAX_SYSTEMS as PAIRED_MAX_SYSTEMS
from judgebayes.models.items.paired import paired_items_model as paired_items_model
from judgebayes.models.items.paired import pattern_masks as pattern_masks
from judgebayes.models.items.paired import truth_states as truth_states
from judgebayes.models.items.priors import ITEMS_THETA_PRIOR as ITEMS_THETA_PRIOR
from judgebayes.models.items.priors import JUDGE_RATES as JUDGE_RATES
from judgebayes.models.items.priors import items_priors as items_priors
from judgebayes.models.items.raters import raters_items_model as raters_items_model

__all__ = [
    "ItemsLogDensity",
    "clustered_items_model",
    "items_accuracy_model",
    "items_covariate_model",
    "items_dynamic_model",
    "items_priors",
    "multi_judge_items_model",
    "paired_items_model",
    "raters_items_model",
]
