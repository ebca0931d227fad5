r"""Pairwise comparison data: validation, covariate standardisation and identifiability.

Everything a pairwise ranking model needs leaves this module as a :class:`PairwiseData`:
integer item indices in presentation order, the verdict :math:`y` (1 when the
first-shown item won, 0 when the second did, 1/2 for a tie counted as half a win),
the judge index and the matrix of covariate *differences* :math:`x_a - x_b` on the
package's standardised scale.

Input contract (``PairwiseRanking.from_frames``)
-----------------------------------------------
comparisons : first, second (item ids in presentation order), winner (id of the
    preferred item; empty or ``"tie"`` for a tie); optional ``judge`` column; optional
    per-comparison covariates as ``<name>_first`` / ``<name>_second`` columns.
items : ``item`` plus item-level covariate columns (optional when every covariate is
    per comparison).

Ties default to ``ties="davidson"``: kept, and modelled as a third outcome by
Davidson's (1970) tie model (:mod:`judgebayes.inference.ranking.newton`).
``ties="drop"`` drops them (counted in ``n_ties``); ``ties="half"`` keeps them as half a
win for each side, which is not a probability model and is offered only as the
comparator practitioners use.  Unknown item ids, self-comparisons, winners
that are neither shown item, constant covariates and missing covariate values are
:class:`~judgebayes.errors.InputError`\ s naming the column and the value.

Standardisation: an item-level covariate is centred and scaled by its mean and standard
deviation over the items; a per-comparison covariate by the mean and standard deviation
of all shown responses (both columns pooled).  The scale is kept in
``PairwiseData.scales`` so that a coefficient can be reported per raw unit
(``c / sd``).
"""

from judgebayes.data.ranking.frames import ParsedPairs as ParsedPairs
from judgebayes.data.ranking.frames import kept_instances as kept_instances
from judgebayes.data.ranking.frames import outcome_codes as outcome_codes
from judgebayes.data.ranking.frames import pairwise_from_frames as pairwise_from_frames
from judgebayes.data.ranking.frames import parse_pairs as parse_pairs
from judgebayes.data.ranking.identifiability import IdentifiabilityReport as IdentifiabilityReport
from judgebayes.data.ranking.identifiability import difference_matrix as difference_matrix
from judgebayes.data.ranking.identifiability import identifiability_report as identifiability_report
from judgebayes.data.ranking.identifiability import warn_identifiability as warn_identifiability
from judgebayes.data.ranking.pairs import POSITION as POSITION
from judgebayes.data.ranking.pairs import TIES as TIES
from judgebayes.data.ranking.pairs import PairwiseData as PairwiseData
from judgebayes.data.ranking.pairs import component_labels as component_labels
from judgebayes.data.ranking.pairs import log_length as log_length
from judgebayes.data.ranking.pairs import pairwise_from_arrays as pairwise_from_arrays
from judgebayes.errors import IdentifiabilityWarning as IdentifiabilityWarning

__all__ = [
    "POSITION",
    "IdentifiabilityReport",
    "IdentifiabilityWarning",
    "PairwiseData",
    "component_labels",
    "difference_matrix",
    "identifiability_report",
    "log_length",
    "pairwise_from_arrays",
    "pairwise_from_frames",
]
