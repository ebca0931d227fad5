r"""Who drifted, the judge or the system: a fixed anchor set re-judged every period.

The anchors are :math:`A` items with human labels; every period the judge of the day
judges them again, beside the period's new items (verdicts only).  Two questions, each
with its error controlled over every look of an unending run.

**Has the judge moved?**  The judge's sensitivity in period :math:`t` read on the
anchors, :math:`\widehat{se}_t` (the share of positive anchors it calls positive), and
its specificity :math:`\widehat{sp}_t` on the negatives.

**Has the system moved?**  The period's corrected rate of the new items,
:math:`\hat\theta_t = (v_t + \widehat{sp}_t - 1) / J_t` with
:math:`J_t = \widehat{se}_t + \widehat{sp}_t - 1` (Rogan-Gladen) and :math:`v_t` the
new items' verdict rate, the judge's rates read on the anchors *of the same period*: a
judge that moved is corrected by its own new rates, so its move is not read as the
system's.

Both are one scan.  For a rate :math:`r_t` (either of the judge's, or
:math:`\hat\theta_t`), at look :math:`t` and for each candidate period :math:`c` of a
change after the ``reference`` periods, the mean over :math:`c..t` minus the mean over
the periods before :math:`c`, :math:`D_{c,t} = \sum_s w_s r_s`, is linear in the anchors'
verdicts :math:`f_{a,s}` with loadings :math:`\ell_{a,s}` (:math:`1 / n^+_s` for the
sensitivity; times :math:`\partial\theta/\partial se = -\theta/J` or
:math:`\partial\theta/\partial fp = -(1 - \theta)/J` for the corrected rate).  While the
judge stays the same each anchor's verdicts are independent draws at its own rate
:math:`p_a`, so

.. math::

    \mathrm{Var}(D_{c,t}) = \sum_a p_a (1 - p_a) \sum_s (w_s \ell_{a,s})^2
      + \sum_s w_s^2 \, \frac{v_s (1 - v_s)}{N_s J_s^2},

read at each anchor's own mean verdict (the last term, the new items' binomial variance,
for the corrected rate only): an anchor the judge always gets right (or always wrong) adds
nothing, so a consistent judge's change shows at once.  The system's test allows the
judge to have moved; its variance is at least the anchors' paired spread
:math:`\sum_a (\sum_s w_s \ell_{a,s} (f_{a,s} - \bar f_a))^2`, which carries their
sampling error, as a sample of the items, in a change of the judge.  The scan
(:func:`~judgebayes.inference.monitor.scan.scan`) spends its level over every look and
candidate (a union bound; each test is asymptotic in the anchors and new items of a
period): :math:`\alpha / 4` for each of the judge's rates and :math:`\alpha / 2` for
the system.

The three-way verdict of a period is which alarms have sounded by then: ``none``,
``judge``, ``system`` or ``both``.  Where neither moved, any alarm over the whole run has
chance at most :math:`\alpha`; where only the system moved, a judge alarm at most
:math:`\alpha / 2`; where only the judge moved, a system alarm at most
:math:`\alpha / 2`.  The anchors must be items like the new ones (the judge's rates on
them are its rates on the new items) and each period's new items a sample of the
system's output (their verdicts independent given the period).
"""

from __future__ import annotations

import numpy as np

from judgebayes.inference.monitor.scan import scan

__all__ = ["VERDICTS", "anchor_attribution"]

#: the three-way verdict's values, by (judge alarm, system alarm)
VERDICTS = {(False, False): "none", (True, False): "judge", (False, True): "system",
            (True, True): "both"}  # fmt: skip

#: below this Youden index (sensitivity + specificity - 1) the anchors' rates cannot
#: correct the period's verdict rate: its system test is not run
MIN_YOUDEN = 0.05


def _by_anchor(a_item, a_period, x, n_items, n_periods) -> np.ndarray:
    """(A, P): ``x`` of each anchor verdict placed by anchor and period."""
    m = np.zeros((n_items, n_periods))
    m[a_item, a_period] = np.nan_to_num(x)
    return m


def _judge_test(a_period, a_item, a_f, a_class, n_items, n_periods, alpha, reference) -> dict:
    """Per period: each rate on the anchors, the judge's evidence (the larger of the two
    rates' scans) and which rate moved which way.
    """
    out: dict = {}
    best = np.zeros(n_periods)
    which = np.full(n_periods, None, dtype=object)
    for cls, name in ((1, "sensitivity"), (0, "specificity")):
        sel = a_class == cls
        per, item = a_period[sel], a_item[sel]
        n = np.bincount(per, minlength=n_periods).astype(float)
        hit = (a_f[sel] == cls).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.bincount(per, weights=hit, minlength=n_periods) / n
        test = scan(
            r, _by_anchor(item, per, hit, n_items, n_periods),
            _by_anchor(item, per, 1.0 / n[per], n_items, n_periods),
            np.zeros(n_periods), n >= 2, reference, alpha / 4.0,
        )  # fmt: skip
        out[name] = r
        ev = np.nan_to_num(test["evidence"], nan=0.0)
        label = np.where(test["change"] < 0, f"{name} down", f"{name} up")
        which = np.where(ev > best, label, which)
        best = np.maximum(best, ev)
        out[f"{name}_alarm"] = test["alarm"]
    judged = np.zeros(n_periods, dtype=bool)
    for cls in (0, 1):
        judged |= np.bincount(a_period[a_class == cls], minlength=n_periods) >= 2
    out["evidence"] = np.where((np.arange(n_periods) >= reference) & judged, best, np.nan)
    out["alarm"] = out.pop("sensitivity_alarm") | out.pop("specificity_alarm")
    which[best <= 0] = None
    out["which"] = which
    return out


def _system_test(
    a_period, a_item, a_f, a_class, n_period, n_f, n_items, n_periods, alpha, reference
) -> dict:
    """Per period: the new items' verdict rate and corrected rate, and the corrected
    rate's scan.
    """
    N = np.bincount(n_period, minlength=n_periods).astype(float)
    pos, neg = a_class == 1, a_class == 0
    n_pos = np.bincount(a_period[pos], minlength=n_periods).astype(float)
    n_neg = np.bincount(a_period[neg], minlength=n_periods).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.bincount(n_period, weights=n_f, minlength=n_periods) / N
        se = np.bincount(a_period[pos], weights=a_f[pos], minlength=n_periods) / n_pos
        fp = np.bincount(a_period[neg], weights=a_f[neg], minlength=n_periods) / n_neg
        j = se - fp
        theta = (v - fp) / j
        usable = (N > 0) & (n_pos >= 2) & (n_neg >= 2) & (j >= MIN_YOUDEN)
        p = a_period
        # d theta / d se = -theta / J on positives; on negatives the false-positive rate
        # fp = 1 - sp, d theta / d fp = -(1 - theta) / J
        load = np.where(pos, -theta[p] / j[p] / n_pos[p], -(1.0 - theta[p]) / j[p] / n_neg[p])
        own = np.where(usable, v * (1.0 - v) / (N * j**2), 0.0)
    keep = usable[a_period]
    args = (a_item[keep], a_period[keep])
    test = scan(
        theta, _by_anchor(*args, a_f[keep], n_items, n_periods),
        _by_anchor(*args, load[keep], n_items, n_periods), own, usable, reference, alpha / 2.0,
        moving=True,
    )  # fmt: skip
    test.update(verdict_rate=v, n_new=N.astype(int), rate=np.where(usable, theta, np.nan))
    return test


def anchor_attribution(
    a_period: np.ndarray,
    a_item: np.ndarray,
    a_f: np.ndarray,
    a_y: np.ndarray,
    n_period: np.ndarray,
    n_f: np.ndarray,
    n_periods: int,
    alpha: float,
    reference: int,
) -> dict:
    """Did the judge or the system move, period by period (module docstring).

    Parameters
    ----------
    a_period, a_item, a_f, a_y : arrays
        One entry per anchor verdict: its period code (0..P-1, time order), the anchor's
        code (0..A-1), the judge's verdict (0/1) and the anchor's human label (0/1).
    n_period, n_f : arrays
        One entry per new item: its period code and the judge's verdict (0/1).
    n_periods : int
        P.
    alpha : float
        The chance of any alarm over the whole run when neither moved.
    reference : int
        The first periods, taken as before any drift.

    Returns
    -------
    dict
        Per period: ``sensitivity``, ``specificity`` (on the period's anchors),
        ``judge_evidence``, ``judge_alarm``, ``judge_moved`` (which rate, which way),
        ``verdict_rate`` and ``n_new`` (the new items), ``system_rate`` (their corrected
        rate), ``system_change`` and ``system_se`` (its change from the reference),
        ``system_evidence``, ``system_alarm`` and ``verdict`` (``none``, ``judge``,
        ``system``, ``both``).
    """
    a_f, a_y, n_f = (np.asarray(x, dtype=float) for x in (a_f, a_y, n_f))
    n_items = int(a_item.max()) + 1 if a_item.size else 0
    cls = a_y.astype(int)
    judge = _judge_test(a_period, a_item, a_f, cls, n_items, n_periods, alpha, reference)
    system = _system_test(
        a_period, a_item, a_f, cls, n_period, n_f, n_items, n_periods, alpha, reference
    )
    verdict = np.array(
        [
            VERDICTS[(bool(j), bool(s))]
            for j, s in zip(judge["alarm"], system["alarm"], strict=True)
        ],
        dtype=object,
    )
    return {
        "sensitivity": judge["sensitivity"],
        "specificity": judge["specificity"],
        "judge_evidence": judge["evidence"],
        "judge_alarm": judge["alarm"],
        "judge_moved": np.where(judge["alarm"], judge["which"], None),
        "verdict_rate": system["verdict_rate"],
        "n_new": system["n_new"],
        "system_rate": system["rate"],
        "system_change": system["change"],
        "system_se": system["se"],
        "system_evidence": system["evidence"],
        "system_alarm": system["alarm"],
        "verdict": verdict,
    }
