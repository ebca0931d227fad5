"""The leaderboard family's data: many systems' outcomes on the same items.

:class:`~.data.BoardData` (the cells every method reads) and :mod:`~.frame`, the family's
one frame reader (:func:`~.frame.board_from_frame`) and the reader of a new system's
outcomes (:func:`~.frame.new_system_outcomes`).
"""

from judgebayes.data.leaderboard.data import BoardData
from judgebayes.data.leaderboard.frame import board_from_frame, check_scale, new_system_outcomes

__all__ = ["BoardData", "board_from_frame", "check_scale", "new_system_outcomes"]
