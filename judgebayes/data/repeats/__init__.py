"""The repeats family's data: judge runs on several generations of several prompts, read by
:func:`~.frame.repeated_counts` into passes and runs per (prompt, generation).
"""

from judgebayes.data.repeats.frame import repeated_counts

__all__ = ["repeated_counts"]
