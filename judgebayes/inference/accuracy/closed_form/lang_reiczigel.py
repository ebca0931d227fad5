"""The Lang-Reiczigel interval: an adjusted Wald interval for the corrected rate that
keeps its coverage with few calibration labels.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy import special

from judgebayes.errors import InputError, NotBetterThanChanceWarning
from judgebayes.inference.accuracy.closed_form.binomial import (
    Interval,
    as_rate,
    as_size,
    chance_mask,
    rebuild_interval,
    z_value,
)

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.inference.accuracy.closed_form.binomial import Errors


def lr_parts(p, a0, a1, n, m0, m1, z):
    """Adjusted quantities of paper Eq. 7 and the centre shift of Eq. 8."""
    z2 = z**2
    with np.errstate(invalid="ignore", divide="ignore"):
        # n may be infinite: then p~ = p and the test-set variance term vanishes
        pt = np.where(np.isinf(n), p, (n * p + z2 / 2) / (n + z2))
        nt = n + z2
    m0t, m1t = m0 + 2, m1 + 2
    q0t = (m0 * a0 + 1) / m0t
    q1t = (m1 * a1 + 1) / m1t
    return pt, nt, q0t, q1t, m0t, m1t


def lr_se(pt, nt, q0t, q1t, m0t, m1t, tht):
    """The standard error of Eq. 6 at ``tht`` from the adjusted quantities of
    :func:`lr_parts`.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(
            pt * (1 - pt) / nt
            + (1 - tht) ** 2 * q0t * (1 - q0t) / m0t
            + tht**2 * q1t * (1 - q1t) / m1t
        ) / np.abs(q0t + q1t - 1)


def lang_reiczigel_interval(
    p_hat: Any,
    q0_hat: Any,
    q1_hat: Any,
    n: Any,
    m0: Any,
    m1: Any,
    alpha: float = 0.05,
    *,
    centre: Literal["adjusted", "point"] = "adjusted",
    errors: Errors = "raise",
) -> Interval:
    r"""Lang-Reiczigel adjusted-Wald interval for the true accuracy (paper Eqs. 6-8).

    With :math:`z = \Phi^{-1}(1-\alpha/2)` and the "add successes and failures"
    adjustments of Eq. 7,

    .. math::
        \tilde n = n + z^2,\quad \tilde p = \frac{n\hat p + z^2/2}{n + z^2},\quad
        \tilde m_c = m_c + 2,\quad \tilde q_c = \frac{m_c \hat q_c + 1}{m_c + 2},\quad
        \tilde\theta = \frac{\tilde p + \tilde q_0 - 1}{\tilde q_0 + \tilde q_1 - 1},

    the centre shift of Eq. 8,

    .. math::
        d\tilde\theta = 2z^2\Big(-(1-\tilde\theta)\frac{\tilde q_0(1-\tilde q_0)}{\tilde m_0}
        + \tilde\theta\frac{\tilde q_1(1-\tilde q_1)}{\tilde m_1}\Big),

    and the interval of Eq. 6,

    .. math::
        c \pm z\,\frac{\sqrt{\tilde p(1-\tilde p)/\tilde n
        + (1-\tilde\theta)^2\tilde q_0(1-\tilde q_0)/\tilde m_0
        + \tilde\theta^2\tilde q_1(1-\tilde q_1)/\tilde m_1}}{\tilde q_0 + \tilde q_1 - 1},

    truncated to [0, 1].  The centre is :math:`c = \tilde\theta + d\tilde\theta` with
    ``centre="adjusted"`` (default; Lang & Reiczigel 2014 and the paper's published code)
    or :math:`c = \hat\theta + d\tilde\theta` with ``centre="point"`` (Eq. 6 as printed).

    Boundary.  Truncation never yields ``lower > upper``.  When the whole two-sided
    interval lies below 0 (above 1), truncation would collapse it to the point 0 (1);
    instead the entry is flagged ``degenerate`` and the one-sided :math:`1-\alpha`
    interval :math:`[0,\ z_{1-\alpha}\,\tilde{se}_0]` (:math:`[1 - z_{1-\alpha}
    \tilde{se}_1,\ 1]`) is reported, where :math:`\tilde{se}_b` is the standard error
    above evaluated at :math:`\tilde\theta = b`.

    Point estimate.  The interval is centred on adjusted quantities, so with one or two
    calibration items in a class (where adding two pseudo-observations moves
    :math:`\tilde q_c` far from :math:`\hat q_c`) it can exclude the clipped Rogan-Gladen
    estimate; ``contains_estimate`` says whether it does.  In 4 million random inputs
    with :math:`\min(m_0, m_1) \ge 3` it always did.

    Parameters
    ----------
    p_hat : float or array
        Naive rate on the test set.
    q0_hat, q1_hat : float or array
        Specificity and sensitivity estimated on the calibration set.
    n : int or array
        Test-set size (``np.inf`` allowed: no test-set uncertainty).
    m0, m1 : int or array
        Calibration sizes of the truly negative and truly positive classes.
    alpha : float
        One minus the confidence level.
    centre : {"adjusted", "point"}
        See above.
    errors : {"raise", "nan"}
        Entries with :math:`\hat q_0 + \hat q_1 \le 1` or
        :math:`\tilde q_0 + \tilde q_1 \le 1` raise or become NaN.

    Returns
    -------
    Interval
        ``(lower, upper)`` with attributes ``estimate`` (clipped Rogan-Gladen),
        ``centre``, ``se``, ``degenerate``, ``contains_estimate``, ``n_invalid``.
    """
    if centre not in ("adjusted", "point"):
        raise InputError(f"centre must be 'adjusted' or 'point'; got {centre!r}", field="centre")
    p, a0, a1 = as_rate("p_hat", p_hat), as_rate("q0_hat", q0_hat), as_rate("q1_hat", q1_hat)
    n, m0, m1 = as_size("n", n), as_size("m0", m0), as_size("m1", m1)
    z = z_value(alpha)
    pt, nt, q0t, q1t, m0t, m1t = lr_parts(p, a0, a1, n, m0, m1, z)
    # the adjusted rates shrink towards 1/2 by different amounts, so check both sums
    bad = chance_mask(a0, a1, errors, "lang_reiczigel_interval", also=q0t + q1t <= 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tht = (pt + q0t - 1) / (q0t + q1t - 1)
        th_hat = (p + a0 - 1) / (a0 + a1 - 1)
        dth = 2 * z**2 * (-(1 - tht) * q0t * (1 - q0t) / m0t + tht * q1t * (1 - q1t) / m1t)
    se = lr_se(pt, nt, q0t, q1t, m0t, m1t, tht)
    c = (tht if centre == "adjusted" else th_hat) + dth
    lo_raw, hi_raw = c - z * se, c + z * se
    below, above = hi_raw < 0, lo_raw > 1
    z1 = float(special.ndtri(1.0 - alpha))
    se0 = lr_se(pt, nt, q0t, q1t, m0t, m1t, 0.0)
    se1 = lr_se(pt, nt, q0t, q1t, m0t, m1t, 1.0)
    lo = np.where(above, 1 - z1 * se1, lo_raw)
    hi = np.where(below, z1 * se0, hi_raw)
    lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    shape = np.broadcast(p, a0, a1, n, m0, m1).shape
    bad = np.broadcast_to(bad, shape)
    est = np.clip(th_hat, 0, 1)
    contains = ((lo <= est + 1e-12) & (est <= hi + 1e-12)) | bad
    degenerate = (below | above) & ~bad

    def nanify(x):
        return np.where(bad, np.nan, x)

    def flag(x):
        return bool(x) if np.ndim(x) == 0 else np.asarray(x)

    return Interval(
        nanify(lo),
        nanify(hi),
        estimate=nanify(est),
        contains_estimate=flag(contains),
        centre=nanify(c),
        se=nanify(se),
        degenerate=flag(degenerate),
        n_invalid=int(np.sum(bad)),
        alpha=alpha,
        method="lang_reiczigel",
    )


def lang_reiczigel_from_counts(
    k: Any, n: Any, tp: Any, m1: Any, tn: Any, m0: Any, alpha: float = 0.05
) -> Interval:
    """:func:`lang_reiczigel_interval` from counts, NaN where it is undefined, no warning.

    The one place the package turns counts into the corrected interval: ``p = k / n``,
    ``q0 = tn / m0``, ``q1 = tp / m1`` (arrays broadcast).  Entries whose judge is no
    better than chance (q0 + q1 <= 1, raw or adjusted), whose test set is empty (n = 0)
    or whose calibration lacks a class (m0 or m1 = 0) come back as NaN, silently: callers
    count them (``np.isnan(result.estimate)``) and say so in their own report.
    """
    k, n, tp, m1, tn, m0 = (np.asarray(x, dtype=float) for x in (k, n, tp, m1, tn, m0))
    empty = (n <= 0) | (m0 <= 0) | (m1 <= 0)
    one = np.ones_like
    nn, mm0, mm1 = (
        np.where(n > 0, n, one(n)),
        np.where(m0 > 0, m0, one(m0)),
        np.where(m1 > 0, m1, one(m1)),
    )
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", NotBetterThanChanceWarning)
        iv = lang_reiczigel_interval(
            np.where(n > 0, k, 0) / nn, np.where(m0 > 0, tn, 0) / mm0,
            np.where(m1 > 0, tp, 0) / mm1, nn, mm0, mm1, alpha, errors="nan",
        )  # fmt: skip
    if not np.any(empty):
        return iv
    nan = np.where(empty, np.nan, 0.0)
    return rebuild_interval(
        np.asarray(iv.lower, float) + nan,
        np.asarray(iv.upper, float) + nan,
        {**iv.__dict__, "estimate": np.asarray(iv.estimate, float) + nan},
    )
