"""The items design's checks, one module each: :mod:`~.labelling` (the items labelled at
random within the design's cells, and given the covariates), :mod:`~.judge_dependence`
(several judges independent given the label), :mod:`~.self_preference` (the judge errs
alike on every system's items), :mod:`~.raters` (several human raters agree enough) and
:mod:`~.judge_drift` (the judge's rates steady over the periods).
"""

from judgebayes.checks.items import (  # noqa: F401  (each module registers its check)
    judge_dependence,
    judge_drift,
    labelling,
    raters,
    self_preference,
)
