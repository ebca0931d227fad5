"""The agreement family's data: raters' labels of the same items, long or wide, read by
:mod:`~.ratings` into an item x rater array of category codes.
"""

from judgebayes.data.agreement.ratings import (
    LEVELS,
    Ratings,
    cluster_codes,
    judge_ratings,
    judge_values,
    rating_counts,
    ratings_from_frame,
)

__all__ = [
    "LEVELS",
    "Ratings",
    "cluster_codes",
    "judge_ratings",
    "judge_values",
    "rating_counts",
    "ratings_from_frame",
]
