r"""PyMC builders for accuracy under misclassification.  Builders never sample.

Every builder takes validated counts and returns a fresh ``pm.Model`` with named dims.
Observed counts enter through ``pm.Data`` containers with fixed names, so that one
compiled model can be refitted on new data (nutpie ``with_data``) without recompiling.

One module per model: :mod:`~judgebayes.models.accuracy.binary`, ``strata``,
``multiclass``, ``items``, ``dynamic``, ``covariate``, ``judges``, ``raters``, ``clustered``,
``paired``, ``repeats``; the priors in ``priors``, the items model's numpy density in
``density``.
"""

from judgebayes.models.accuracy.binary import batched_accuracy_model as batched_accuracy_model
from judgebayes.models.accuracy.binary import binary_accuracy_model as binary_accuracy_model
from judgebayes.models.accuracy.clustered import GH_NODES as GH_NODES
from judgebayes.models.accuracy.clustered import clustered_items_model as clustered_items_model
from judgebayes.models.accuracy.covariate import items_covariate_model as items_covariate_model
from judgebayes.models.accuracy.density import ItemsLogDensity as ItemsLogDensity
from judgebayes.models.accuracy.dynamic import items_dynamic_model as items_dynamic_model
from judgebayes.models.accuracy.items import items_accuracy_model as items_accuracy_model
from judgebayes.models.accuracy.judges import multi_judge_items_model as multi_judge_items_model
from judgebayes.models.accuracy.multiclass import (
    multiclass_accuracy_model as multiclass_accuracy_model,
)
from judgebayes.models.accuracy.paired import PAIRED_MAX_SYSTEMS as PAIRED_MAX_SYSTEMS
from judgebayes.models.accuracy.paired import paired_items_model as paired_items_model
from judgebayes.models.accuracy.paired import pattern_masks as pattern_masks
from judgebayes.models.accuracy.paired import truth_states as truth_states
from judgebayes.models.accuracy.parts import COUNTS as COUNTS
from judgebayes.models.accuracy.parts import standardise as standardise
from judgebayes.models.accuracy.priors import DESIGNS as DESIGNS
from judgebayes.models.accuracy.priors import ITEMS_THETA_PRIOR as ITEMS_THETA_PRIOR
from judgebayes.models.accuracy.priors import JUDGE_RATES as JUDGE_RATES
from judgebayes.models.accuracy.priors import AccuracyPriors as AccuracyPriors
from judgebayes.models.accuracy.priors import Design as Design
from judgebayes.models.accuracy.priors import items_priors as items_priors
from judgebayes.models.accuracy.raters import raters_items_model as raters_items_model
from judgebayes.models.accuracy.repeats import repeated_verdicts_model as repeated_verdicts_model
from judgebayes.models.accuracy.strata import stratified_accuracy_model as stratified_accuracy_model

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
