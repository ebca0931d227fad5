r"""The drift alarm on every channel of the stream: the labelled items' agreement and the
verdict rate of all items, the labels saying how much of that rate the prevalence
explains.

A period :math:`t` has :math:`m_t` items labelled at random, with counts
:math:`n_{yf}` of label :math:`y` and verdict :math:`f`, and :math:`u_t` unlabelled
items, :math:`u_{1}` of them judged positive.  With the period's prevalence
:math:`\theta_t`, the judge's sensitivity :math:`se_t` and false-positive rate
:math:`fp_t = 1 - sp_t`, its log-likelihood is

.. math::

    n_{11} \log \theta se + n_{10} \log \theta (1 - se)
      + n_{01} \log (1 - \theta) fp + n_{00} \log (1 - \theta)(1 - fp)
      + u_1 \log q + u_0 \log (1 - q), \qquad q = fp + \theta (se - fp).

The labelled pairs alone identify the three rates (the labels-only alarm reads
:math:`n_{11} / (n_{11} + n_{10})`); the unlabelled verdicts add what their rate
:math:`q` says, which is much: a judge whose sensitivity falls moves the verdict rate of
all :math:`u_t` items by :math:`\theta \Delta se`, and the period's labels tell that
apart from a change of the prevalence.  Each period's maximum-likelihood rates
(:func:`period_rates`, in closed form, half a count added to each labelled cell) go to
the change scan (:func:`~judgebayes.inference.monitor.scan.scan`) with their variances
under "the judge did not move": the delta method on the likelihood's three independent
factors, at each period's own prevalence and the judge's rates pooled over the periods
up to the look
(:func:`pooled_rates`), so a period whose labelled positives were all judged right does
not get a variance of 0.  The prevalence may move from period to period (the system's
drift is not the judge's).  Each rate gets :math:`\alpha / 2`; the guarantee (any alarm
over an unending run without drift at most :math:`\alpha`) is asymptotic in the items of
a period.
"""

from __future__ import annotations

import numpy as np

from judgebayes.inference.monitor.scan import scan
from judgebayes.inference.sequences import clopper_pearson

__all__ = ["channel_alarm", "period_counts", "period_rates", "pooled_rates"]

#: the fewest labels a period needs to be read by the scan
MIN_LABELS = 30

#: half a count added to each labelled (label, verdict) cell for the scan's rates: a period
#: whose few labelled negative verdicts hold no positive label would read a sensitivity of
#: exactly 1, a skew that made the z-tests anti-conservative (false alarms 0.050 -> 0.030
#: on benchmarks/drift_power.py's null streams, power unchanged); the same in every period,
#: so a contrast between periods keeps its null
SMOOTH = np.array([0.5, 0.5, 0.5, 0.5, 0.0, 0.0])


def period_counts(period, f, y, n_periods: int) -> np.ndarray:
    """(P, 6): per period ``n11, n10, n01, n00`` (labelled: label, verdict) and ``u1,
    u0`` (unlabelled: verdict).
    """
    lab = ~np.isnan(y)
    cells = np.zeros((n_periods, 6))
    f1 = f >= 0.5
    y1 = np.where(lab, y >= 0.5, False)
    codes = np.where(lab, 2 * (~y1) + (~f1), 4 + (~f1))
    np.add.at(cells, (period, codes.astype(int)), 1.0)
    return cells


def period_rates(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Each period's maximum-likelihood prevalence, sensitivity and false-positive rate.

    The three rates are a one-to-one map of the four cells' probabilities
    :math:`\pi_{yf}` (a saturated multinomial), and every item's verdict is seen while
    its label is missing at random, so the likelihood factors (Little and Rubin, 2002,
    sec. 7.2): the verdict rate :math:`q` from every item, and
    :math:`P(y = 1 \mid f)` from the labelled ones.  Then :math:`\pi_{11} = q\,P(y=1
    \mid f=1)`, :math:`\pi_{10} = (1 - q) P(y=1 \mid f=0)`, and
    :math:`\theta = \pi_{11} + \pi_{10}`, :math:`se = \pi_{11} / \theta`,
    :math:`fp = \pi_{01} / (1 - \theta)`.  NaN where a verdict value has no label.
    """
    n11, n10, n01, n00, u1, _ = cells.T
    with np.errstate(invalid="ignore", divide="ignore"):
        q = (n11 + n01 + u1) / cells.sum(1)
        pi11 = q * n11 / (n11 + n01)
        pi10 = (1.0 - q) * n10 / (n10 + n00)
        pi01 = q - pi11
        theta = pi11 + pi10
        return theta, pi11 / theta, pi01 / (1.0 - theta)


def pooled_rates(cells: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The judge's two rates pooled over the periods up to each one (their items' totals:
    each period's estimated positives and negatives weighted by its number of items),
    consistent when the judge's rates stay the same and the prevalence moves; the last
    entries pool every period.
    """
    n = cells.sum(1)
    n11, n01 = cells[:, 0], cells[:, 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        q = (n11 + n01 + cells[:, 4]) / n
        pi11 = q * n11 / (n11 + n01)
    w = np.where(np.isfinite(pi11) & np.isfinite(theta), n, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.cumsum(w * np.nan_to_num(pi11)) / np.cumsum(w * np.nan_to_num(theta))
        fp = np.cumsum(w * np.nan_to_num(q - pi11)) / np.cumsum(w * np.nan_to_num(1 - theta))
    return se, fp


def _variances(cells, theta, se, fp) -> tuple[np.ndarray, np.ndarray]:
    r"""Var(se_t) and Var(fp_t) of each period's own estimates at (theta_t, se, fp).

    The likelihood's three factors are independent: the verdict rate :math:`q` on all
    :math:`n` items, :math:`a = P(y = 1 \mid f = 1)` on the :math:`n_{\cdot 1}` labelled
    positive verdicts and :math:`b = P(y = 1 \mid f = 0)` on the :math:`n_{\cdot 0}`
    labelled negative ones (each binomial), so by the delta method, with
    :math:`se = q a / \theta`,

    .. math::

        \mathrm{Var}(\widehat{se}) = \Big(\frac{ab}{\theta^2}\Big)^2 \frac{q(1-q)}{n}
          + \Big(\frac{q(1-q) b}{\theta^2}\Big)^2 \frac{a(1-a)}{n_{\cdot 1}}
          + \Big(\frac{q(1-q) a}{\theta^2}\Big)^2 \frac{b(1-b)}{n_{\cdot 0}},

    and :math:`fp` alike with :math:`1 - a`, :math:`1 - b` and :math:`1 - \theta`.  The
    labelled counts are those observed, so labels drawn at random *given the verdict*
    (more among positive verdicts, say) are read right.
    """
    n = cells.sum(1)
    n_f1 = cells[:, 0] + cells[:, 2]
    n_f0 = cells[:, 1] + cells[:, 3]
    eps = 1e-9
    q = np.clip(fp + theta * (se - fp), eps, 1 - eps)
    a = np.clip(theta * se / q, eps, 1 - eps)
    b = np.clip(theta * (1 - se) / (1 - q), eps, 1 - eps)
    with np.errstate(invalid="ignore", divide="ignore"):
        vq, va, vb = q * (1 - q) / n, a * (1 - a) / n_f1, b * (1 - b) / n_f0
        qq = q * (1 - q)
        t2, u2 = theta**2, (1 - theta) ** 2
        r, s_ = 1 - a, 1 - b
        var_se = (a * b / t2) ** 2 * vq + (qq * b / t2) ** 2 * va + (qq * a / t2) ** 2 * vb
        var_fp = (r * s_ / u2) ** 2 * vq + (qq * s_ / u2) ** 2 * va + (qq * r / u2) ** 2 * vb
    bad = (n_f1 == 0) | (n_f0 == 0) | ~np.isfinite(var_se + var_fp)
    return np.where(bad, np.inf, var_se), np.where(bad, np.inf, var_fp)


def channel_alarm(
    period: np.ndarray,
    f: np.ndarray,
    y: np.ndarray,
    n_periods: int,
    alpha: float,
    reference: int,
) -> dict:
    r"""Has the judge's sensitivity or specificity moved, read on every channel (module
    docstring)?

    Returns
    -------
    dict
        As :func:`~judgebayes.inference.sequences.drift_alarm`: per period ``sens`` and
        ``spec`` (the period's maximum-likelihood rates, from its labels and verdicts),
        ``evidence`` (the stronger rate's test level over its p-value: 1 = alarm),
        ``alarm`` (sounded by this period) and ``which``; ``bounds``: the reference
        periods' labelled rates' exact Clopper-Pearson bounds at :math:`\alpha / 4` each
        side, for display; ``thin``: the periods with fewer than :data:`MIN_LABELS`
        labels, left out of the scan.
    """
    f = np.asarray(f, dtype=float)
    y = np.asarray(y, dtype=float)
    cells = period_counts(period, f, y, n_periods)
    theta, se, fp = period_rates(cells)
    _, se_s, fp_s = period_rates(cells + SMOOTH)
    n1 = cells[:, 0] + cells[:, 1]
    n0 = cells[:, 2] + cells[:, 3]
    # variances under "no move", with the judge's rates pooled over the periods up to
    # each look: row t of each (P, P) array is read at look t
    # the judge's rates pooled over the periods up to each look, and every period's
    # variances at them
    se0, fp0 = pooled_rates(cells, theta)
    th = np.clip(np.nan_to_num(theta, nan=0.5), 1e-6, 1 - 1e-6)
    v_se, v_fp = _variances(cells, th, se0[:, None], fp0[:, None])
    later = np.arange(n_periods)[None, :] > np.arange(n_periods)[:, None]
    v_se[later], v_fp[later] = np.inf, np.inf
    best = np.zeros(n_periods)
    which = np.full(n_periods, None, dtype=object)
    alarm = np.zeros(n_periods, dtype=bool)
    zero = np.zeros((0, n_periods))
    # a period with few labels: its z-tests are far from normal (on 10 labels a week the
    # null alarm rate grew past 0.1 over 12 weeks): left out of the scan
    thick = n1 + n0 >= MIN_LABELS
    for rate, var, name, usable, sign in (
        (se_s, v_se, "sensitivity", thick & (n1 >= 1), 1.0),
        (fp_s, v_fp, "specificity", thick & (n0 >= 1), -1.0),  # specificity = 1 - fp
    ):
        own = np.where(np.isfinite(var), var, 0.0)
        ok = usable & np.isfinite(rate)
        test = scan(np.nan_to_num(rate), zero, zero, own, ok, reference, alpha / 2.0)
        ev = np.nan_to_num(test["evidence"], nan=0.0)
        label = np.where(sign * test["change"] < 0, f"{name} down", f"{name} up")
        which = np.where(ev > best, label, which)
        best = np.maximum(best, ev)
        alarm |= test["alarm"]
    which[best <= 0] = None
    with np.errstate(invalid="ignore", divide="ignore"):
        sens_l = cells[:, 0] / n1
        spec_l = cells[:, 3] / n0
    ref = cells[:reference].sum(0)
    bounds = {
        name: clopper_pearson(float(k), float(n), alpha / 4)
        for name, k, n in (
            ("sensitivity", ref[0], ref[0] + ref[1]),
            ("specificity", ref[3], ref[2] + ref[3]),
        )
        if n > 0
    }
    return {
        "sens": sens_l,
        "spec": spec_l,
        "evidence": np.where(np.arange(n_periods) >= reference, best, np.nan),
        "alarm": alarm,
        "which": which,
        "bounds": bounds,
        "thin": int(np.sum(~thick)),
        "sens_all": se,
        "spec_all": 1.0 - fp,
    }
