"""The repeats family's model: generations and judge runs per prompt.  Builders never
sample.
"""

from judgebayes.models.repeats.model import repeated_verdicts_model as repeated_verdicts_model

__all__ = ["repeated_verdicts_model"]
