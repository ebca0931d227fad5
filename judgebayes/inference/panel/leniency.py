r"""Does a panel's judged rate follow the share valid one to one on the logit scale?

The leniency model (:func:`~judgebayes.models.panel.panel_leniency_model`) says a
validator's judged rate on a generator's outputs is the generator's share valid shifted by
the validator's leniency and a generator deviation: averaged over validators, on the
annotated generators,

.. math::

    \bar y_i = \frac{1}{|V_i|}\sum_{j \in V_i} \operatorname{logit} \hat r_{ij}
             = a + \beta \operatorname{logit} \hat s_i + u_i + \bar e_i,
    \qquad \beta = 1,

with :math:`\hat r_{ij} = (tp + fp + 1/2) / (tp + fn + tn + fp + 1)` the validator's
judged rate on the annotated outputs (the cell's :math:`(n_\text{valid} + 1/2) /
(n_\text{judged} + 1)` where the annotations have no confusion counts), :math:`\hat s_i =
(n_\text{valid,human} + 1/2) / (n_\text{annotated} + 1)` their share valid, and
:math:`V_i` the validators with verdicts there, a validator's own model's outputs left
out (the model shifts those).  A panel whose validators keep a sensitivity and a
specificity across generators (the cell model's mixture) has
:math:`\partial \operatorname{logit} r / \partial \operatorname{logit} s =
(v^+ - (1 - v^-))\, s(1 - s) / (r(1 - r)) < 1`: agreeable validators (TPR 0.96, TNR
0.1-0.5) give 0.3.  The test is the least-squares slope of :math:`\bar y_i` on
:math:`\operatorname{logit} \hat s_i` against 1, a t test with :math:`K - 2` degrees of
freedom over the :math:`K` annotated generators (the generator deviation :math:`u_i` is
the residual; it is not known, so it is estimated from them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.data.panel import PanelData

__all__ = ["LeniencySlope", "leniency_slope"]


@dataclass(frozen=True)
class LeniencySlope:
    """The slope of the validators' mean logit judged rate on the logit share valid.

    Attributes
    ----------
    slope, se : float
        Least-squares slope and its standard error.
    df : int
        Residual degrees of freedom (annotated generators minus 2).
    p_value : float
        Two-sided t test of slope 1.
    n_annotated : int
        Annotated generators with verdicts (the points of the fit).
    """

    slope: float
    se: float
    df: int
    p_value: float
    n_annotated: int


def leniency_slope(data: PanelData) -> LeniencySlope | None:
    """The test of the module docstring; None with fewer than 3 annotated generators
    with verdicts (no degree of freedom left for the residual).
    """
    from scipy import stats

    H = np.flatnonzero(data.n_annotated > 0)
    conf = (data.tp + data.fn + data.tn + data.fp)[H]
    judged_valid = np.where(conf > 0, (data.tp + data.fp)[H], data.n_valid[H])
    total = np.where(conf > 0, conf, data.n_judged[H])
    use = (total > 0) & ~data.self_judge[H]
    k = judged_valid + 0.5
    y_cell = np.log(k / np.where(use, total + 1 - k, 1.0))
    n_use = use.sum(1)
    y = np.where(use, y_cell, 0.0).sum(1) / np.maximum(n_use, 1)
    s = data.n_valid_human[H] + 0.5
    x = np.log(s / (data.n_annotated[H] + 1 - s))
    x, y = x[n_use > 0], y[n_use > 0]
    K = x.size
    if K < 3 or np.ptp(x) == 0:
        return None
    xc = x - x.mean()
    slope = float(xc @ (y - y.mean()) / (xc @ xc))
    resid = y - y.mean() - slope * xc
    df = K - 2
    se = float(np.sqrt(resid @ resid / df / (xc @ xc)))
    t = (slope - 1.0) / se if se > 0 else (0.0 if slope == 1.0 else np.inf)
    return LeniencySlope(slope, se, df, float(2 * stats.t.sf(abs(t), df)), K)
