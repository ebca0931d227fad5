r"""How much raters agree, with intervals: coefficients, a judge against the humans, and the
effective number of independent judges.

All three take ratings in a long frame (``item``, ``rater``, ``value``) or a wide one
(``raters=`` columns) and resample items, or clusters of items with ``cluster=``, for their
bootstrap intervals.  The coefficients themselves live in
:mod:`judgebayes.inference.agreement`.
"""

from judgebayes.workflows.agreement.coefficients import agreement as agreement
from judgebayes.workflows.agreement.judges import effective_judges as effective_judges
from judgebayes.workflows.agreement.judges import judge_agreement as judge_agreement

__all__ = ["agreement", "effective_judges", "judge_agreement"]
