r"""One frame, every item judged, a subset labelled by humans: the items design.

The set-up evaluation teams run: an LLM judge scores all :math:`N` outputs of one or
several systems, and humans label some of those same outputs.  A blank human label means
*unlabelled*, never *negative*.  Labelled items are part of the evaluated set (their
verdicts count in the judge's rate and their labels in the rate over the :math:`N`
items), so nothing is counted twice.

Sufficient statistics
---------------------
Per system :math:`s` and stratum :math:`t` (one stratum when none is given), with
:math:`v` the judge's verdict and :math:`h` the human label:

* ``N1, N0``: items judged positive / negative (labelled ones included);
* ``L1, L0``: labelled items judged positive / negative;
* ``H1, H0``: of those, the human-positive ones.

Under any labelling design whose selection probability depends only on what is observed
for every item (the verdict, the stratum), these counts carry everything the likelihood
has to say (:mod:`judgebayes.models.accuracy`, items model).  ``cluster`` and ``weights``
keep the item-level arrays, which the cluster-robust and the unequal-probability
estimators need.

Rows whose verdict is missing are not evaluated items: they are counted per system in
``n_missing`` (and reported by every fit), never silently dropped.
"""

from judgebayes.data.items.covariates import SPLINE_KNOTS, TERMS, spline_basis
from judgebayes.data.items.data import ItemData
from judgebayes.data.items.frame import items_from_frame
from judgebayes.data.items.labels import binary_labels
from judgebayes.data.items.roles import ItemRoles

__all__ = [
    "SPLINE_KNOTS",
    "TERMS",
    "ItemData",
    "ItemRoles",
    "binary_labels",
    "items_from_frame",
    "spline_basis",
]
