r"""PyMC builders for accuracy under misclassification.  Builders never sample.

Every builder takes validated counts and returns a fresh ``pm.Model`` with named dims.
Observed counts enter through ``pm.Data`` containers with fixed names, so that one
compiled model can be refitted on new data (nutpie ``with_data``) without recompiling.

One module per model of the two-frames design: :mod:`~judgebayes.models.accuracy.binary`,
``strata``, ``multiclass``; the priors every accuracy model takes in ``priors``, and the
pieces the items and repeats builders share with them in ``parts``.  The items design's
models are :mod:`judgebayes.models.items`, the repeats model :mod:`judgebayes.models.repeats`.
"""

from judgebayes.models.accuracy.binary import batched_accuracy_model as batched_accuracy_model
from judgebayes.models.accuracy.binary import binary_accuracy_model as binary_accuracy_model
from judgebayes.models.accuracy.multiclass import (
    multiclass_accuracy_model as multiclass_accuracy_model,
)
from judgebayes.models.accuracy.priors import DESIGNS as DESIGNS
from judgebayes.models.accuracy.priors import AccuracyPriors as AccuracyPriors
from judgebayes.models.accuracy.strata import stratified_accuracy_model as stratified_accuracy_model

__all__ = [
    "DESIGNS",
    "AccuracyPriors",
    "batched_accuracy_model",
    "binary_accuracy_model",
    "multiclass_accuracy_model",
    "stratified_accuracy_model",
]
