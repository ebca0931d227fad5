r"""Do the judge's calibrated rates carry over?  (two frames: test and calibration)

Every method of the two-frame study assumes that the judge's rates on the calibration
items hold on the test items.  The data can refute it in two ways, each the variant's own
predictive (``study.transfer_rows``; ``study.transfer_predictive`` gives the replicates
for ArviZ's plots):

* one calibration set (binary): each system's judged rate must be reachable from the
  calibrated rates, :math:`k/n \in [1 - q_0, q_1]`; its predictive under
  :math:`\theta \sim U(0, 1)` and the calibration posteriors of :math:`q_0, q_1`;
* calibration strata: each stratum's counts against the rates of the other strata
  (leave one stratum out, Beta-binomial, exact).
"""

from __future__ import annotations

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]

CHECK = register(
    Check(
        "transfer",
        lambda study, fit=None, *, alpha: study.transfer_rows(),
        applies_to=("accuracy.binary", "accuracy.strata"),
        assumption="the judge's rates on the calibration items hold on the test items "
        "(and across calibration strata)",
    )
)
