r"""Estimators of the items design: every item judged, a subset labelled by humans.

Notation (per system :math:`s`, stratum :math:`t`; :mod:`judgebayes.data.items`): the
judge's verdict :math:`v_i`, the human label :math:`h_i` on labelled items, design
weights :math:`w_i` (1 without ``weights``), :math:`N_{st}` items of which :math:`N_{1,st}`
judged positive, stratum shares :math:`\pi_{st} = N_{st}/N_s`.

One module per estimator (double sampling, the comparators, contrasts, the conjugate
posterior in ``exact`` and the paired one in ``paired``), what they return in ``estimate``;
where the next labels go: ``allocation`` (across cells) and ``active`` (a round of labels
drawn by the design).
"""

from judgebayes.inference.items.allocation import allocate_labels as allocate_labels
from judgebayes.inference.items.allocation import predicted_se as predicted_se
from judgebayes.inference.items.comparators import labels_only_items as labels_only_items
from judgebayes.inference.items.comparators import naive_items as naive_items
from judgebayes.inference.items.comparators import ppi_items as ppi_items
from judgebayes.inference.items.contrasts import contrast_matrices as contrast_matrices
from judgebayes.inference.items.contrasts import contrasts_items as contrasts_items
from judgebayes.inference.items.contrasts import (
    labels_only_contrasts as labels_only_contrasts,
)
from judgebayes.inference.items.contrasts import paired_difference as paired_difference
from judgebayes.inference.items.double_sampling import (
    bell_mccaffrey_df as bell_mccaffrey_df,
)
from judgebayes.inference.items.double_sampling import (
    clusters_per_system as clusters_per_system,
)
from judgebayes.inference.items.double_sampling import (
    double_sampling_items as double_sampling_items,
)
from judgebayes.inference.items.estimate import ESTIMANDS as ESTIMANDS
from judgebayes.inference.items.estimate import ItemEstimate as ItemEstimate
from judgebayes.inference.items.estimate import category_counts as category_counts
from judgebayes.inference.items.estimate import category_names as category_names
from judgebayes.inference.items.estimate import check_estimand as check_estimand
from judgebayes.inference.items.exact import exact_items_draws as exact_items_draws

__all__ = [
    "ESTIMANDS",
    "ItemEstimate",
    "allocate_labels",
    "bell_mccaffrey_df",
    "category_counts",
    "category_names",
    "clusters_per_system",
    "contrast_matrices",
    "contrasts_items",
    "double_sampling_items",
    "exact_items_draws",
    "labels_only_contrasts",
    "labels_only_items",
    "naive_items",
    "paired_difference",
    "ppi_items",
    "predicted_se",
]
