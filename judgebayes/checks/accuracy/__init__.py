"""The accuracy family's checks (two frames: test and calibration), one module each:
:mod:`~.transfer` (the judge's calibrated rates carry over to the test frame) and
:mod:`~.predictive` (the judged counts against the fit's posterior predictive, ``ppc``).
"""

from judgebayes.checks.accuracy import (  # noqa: F401  (each module registers its check)
    predictive,
    transfer,
)
