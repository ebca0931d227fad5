r"""Evaluation as it runs: anytime-valid rates by period, a drift alarm for the judge, and
an exact sequence for a fixed set of items labelled in random order.

:func:`monitor` reads a log of judged items with a period column and a few human labels per
period and returns, after every period, the corrected rate of all items so far with a
confidence sequence (valid at every look, however often one looks) and an alarm when the
judge's sensitivity or specificity has changed (one alarm for all systems, or one per
system); a judge that gives scores gets the same sequence for the mean human label.
:func:`sequential_decision` reads a claim
off the last look: pass, fail or continue.  :func:`without_replacement` is the sequence for
the ``items`` estimand of one fixed set.  The mathematics is in
:mod:`judgebayes.inference.sequences`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from judgebayes.data.monitor import labelled_sequence, monitor_log
from judgebayes.data.monitor.anchors import anchor_log
from judgebayes.errors import InputError, LabellingWarning
from judgebayes.inference import sequences as sq
from judgebayes.inference.monitor.anchors import anchor_attribution
from judgebayes.inference.monitor.channels import MIN_LABELS, channel_alarm
from judgebayes.inference.registry import check_count
from judgebayes.results import check_alpha

__all__ = ["monitor", "sequential_decision", "without_replacement"]

_METHODS = ("asymptotic",)


def monitor(
    frame,
    judge: str,
    human: str,
    time: str,
    *,
    system: str | None = None,
    label_prob: str | None = None,
    alpha: float = 0.05,
    freq: str | None = None,
    tightest_at: int = 10,
    reference: int = 4,
    floors: dict[str, float] | None = None,
    power_tuning: bool = True,
    positive=None,
    method: str = "asymptotic",
    drift_by: str = "pooled",
    drift_from: str = "all",
    scale: tuple[float, float] | None = None,
    human_scale: tuple[float, float] | None = None,
    anchors=None,
    item: str | None = None,
) -> pd.DataFrame:
    r"""The corrected rate of all items so far after every period, with an anytime-valid
    confidence sequence, and an alarm when the judge's rates drift; or, with an anchor
    set judged again every period, who moved: the judge or the system.

    Parameters
    ----------
    frame : DataFrame
        One row per judged item (pandas or Polars).
    judge : str
        The judge's verdict (0/1 or any spelling :func:`normalize_labels` reads).
    human : str
        The human label; blank = not labelled.  Within a period the labelled items must be
        a random sample of the period's items (or drawn with the probabilities in
        ``label_prob``).
    time : str
        The period (a number, a date, or text that sorts in time order); with ``freq`` a
        timestamp bucketed into periods.
    system : str, optional
        One sequence per system (each at level ``alpha``; the drift alarm pools them
        unless ``drift_by="system"``).
    label_prob : str, optional
        Each item's probability of having been sent for labelling (Bernoulli labelling,
        e.g. by an active-labelling rule; every item's probability > 0).  Default: a simple
        random sample of each period, probability :math:`m_t / N_t`.
    alpha : float
        The sequence's miscoverage over all looks, and the drift alarm's false-alarm rate
        over the whole run.
    freq : str, optional
        Bucket a timestamp column into periods (``"D"``, ``"W"``, ``"M"``).
    tightest_at : int
        The sequence is tuned to be tightest after this many periods (its validity does
        not depend on it; a factor 10 off costs under 10% of width).
    reference : int
        The drift alarm compares the judge's sensitivity and specificity with their values
        in the first ``reference`` periods (for a rate without a floor).
    floors : dict, optional
        The lowest sensitivity and / or specificity you accept, e.g.
        ``{"sensitivity": 0.85}``: that rate's alarm then sounds once the judge is shown to
        be below it (over every period), which needs no reference and is much faster.
    power_tuning : bool
        Weigh the judge by :math:`\lambda_t` chosen from earlier periods' labels (else 1).
    positive : optional
        The positive label value where it is not a usual spelling.
    method : {"asymptotic"}
        The prediction-powered Gaussian-mixture sequence (Waudby-Smith et al. 2024).
    drift_by : {"pooled", "system"}
        One drift alarm on every system's labels (``"pooled"``), or one per system
        (``"system"``, needs ``system``): a judge that drifts on one system's answers only
        (a new version of that system writes differently) is diluted in the pooled alarm.
        Each system's alarm then has ``alpha / S`` of the false-alarm rate (Bonferroni), so
        the chance that any of them ever sounds without drift stays at most ``alpha``;
        ``attrs["reference_bounds"]`` is then keyed by system.
    drift_from : {"all", "labels"}
        What the drift alarm reads.  ``"all"``: every channel of the stream, the labelled
        items' agreement and the verdict rate of all items, each period's labels saying
        how much of that rate the prevalence explains
        (:mod:`judgebayes.inference.monitor.channels`; its false-alarm guarantee is
        asymptotic in the items of a period).  ``"labels"``: the labelled agreement alone,
        by an exact change-point e-process (slower to find a drift).  With ``floors`` the
        alarm is the labels' capital against the floors.
    scale : (low, high), optional
        The judge gives scores on this scale (e.g. ``(1, 10)``), not verdicts: the
        sequence is then for the mean human label, with the score as the predictor (the
        same prediction-powered totals on both columns mapped to [0, 1]).  The drift alarm
        reads verdicts and is not run (a note says so).
    human_scale : (low, high), optional
        With ``scale``: the human label's range (a Likert scale, ``(0, 1)`` for passes);
        default the labels' observed range.  The bounds are clipped to it, so it must hold
        every item's label, labelled or not.
    anchors : DataFrame, optional
        The anchor design: a fixed set of items with human labels, judged again every
        period, one row per anchor and period (``judge``, ``time``, ``item`` and the
        anchor's fixed label in ``human``, on at least one of its rows).  ``frame`` then
        holds the period's new items (``judge`` and ``time``; labels not needed) and the
        table says per period whether the judge's rates or the system's corrected rate
        moved (below).  ``alpha``, ``reference``, ``freq`` and ``positive`` apply; the
        other options are for the labelled-sample design and are refused.
    item : str, optional
        With ``anchors``: the anchors' id column.

    Returns
    -------
    DataFrame
        One row per period (and system): ``period``, ``n_items``, ``n_labelled``, ``lam``,
        ``period_estimate`` (the period's own corrected rate), ``estimate``, ``lower``,
        ``upper`` (the rate of all items up to this period, anytime-valid),
        ``sensitivity`` / ``specificity`` (the judge's, on this period's labels),
        ``drift_evidence`` (the largest betting capital against "the judge's rates have not
        moved", as a share of its alarm level: it alarms at 1), ``alarm`` and
        ``drift`` (which rate moved and which way, e.g. ``"sensitivity down"``).
        With ``scale`` (a score judge) the estimates and bounds are on the human label's
        scale and the judge's rates and drift columns are left out.
        ``attrs["reference_bounds"]`` holds the reference rates' exact bounds.
        ``attrs["notes"]`` counts what was left out and says why.

        With ``anchors``: ``period``, ``n_anchors``, ``n_new``, ``sensitivity`` and
        ``specificity`` (the judge's, on that period's anchors), ``verdict_rate`` (the
        new items' share of positive verdicts), ``system_rate`` (their rate corrected by
        that period's anchor rates), ``judge_evidence`` and ``system_evidence`` (each
        test's level over its p-value: it alarms at 1), ``judge_moved`` (which rate,
        which way), ``system_change`` and ``system_se`` (the corrected rate's change
        behind the system's evidence, and its standard error), ``judge_alarm``,
        ``system_alarm`` (sounded by this period) and ``verdict``: ``none``, ``judge``,
        ``system`` or ``both`` (:mod:`judgebayes.inference.monitor.anchors`).

    Notes
    -----
    The sequence is for the rate of the items judged so far, not of a process; it is valid
    whatever the judge does (drift costs width, not coverage).  Items of a period with
    fewer than two labels (random-sample design) cannot be corrected there: they are left
    out of the estimand and counted in the notes.  The drift alarm assumes the labelled
    items of each period are a random sample (with ``label_prob`` depending on the
    verdict, the per-period rates are those of the labelled items).  Its false-alarm rate is
    at most ``alpha`` over the whole run however long it goes
    (:func:`judgebayes.inference.sequences.drift_alarm`).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import judgebayes as jb
    >>> rng = np.random.default_rng(0)
    >>> y = rng.binomial(1, 0.6, 2000)
    >>> f = np.where(y == 1, rng.binomial(1, 0.9, 2000), rng.binomial(1, 0.2, 2000))
    >>> human = np.where(rng.random(2000) < 0.1, y, np.nan)
    >>> log = pd.DataFrame({"week": np.repeat(np.arange(10), 200), "judge": f, "human": human})
    >>> table = jb.monitor(log, judge="judge", human="human", time="week")
    >>> bool(table["lower"].iloc[-1] < y.mean() < table["upper"].iloc[-1])
    True
    """
    if anchors is not None or item is not None:
        given = {
            k: v for k, v in locals().items() if k in _LABELLED_ONLY and v != _LABELLED_ONLY[k]
        }
        return _anchored(frame, anchors, judge, human, time, item, alpha, reference, freq,
                         positive, given)  # fmt: skip
    alpha = check_alpha(alpha)
    tightest_at = check_count(tightest_at, "tightest_at")
    _check_choices(method, drift_by, drift_from, system)
    f, y, back, period, labels, prob, systems = monitor_log(
        frame, judge, human, time, system=system, label_prob=label_prob, freq=freq, scale=scale,
        human_scale=human_scale, positive=positive,
    )  # fmt: skip
    notes: list[str] = []
    missing = np.isnan(f)
    if missing.any():
        notes.append(
            f"{int(missing.sum())} item(s) have no verdict in {judge!r}: left out (the rate "
            "is of the judged items)"
        )
    if prob is None:
        _within_period_labelling(systems, period, f, y, missing, notes)
    reference = check_count(reference, "reference")
    floors = _floors(floors)
    drift, bounds = _drift_part(
        back, drift_by, systems, missing, period, f, y, labels, alpha, reference,
        floors if floors or drift_from == "labels" else None, notes,
    )  # fmt: skip
    if back is None and len(labels) <= reference and len(floors) < 2:
        notes.append(
            f"{len(labels)} period(s) so far, the first {reference} the drift alarm's "
            "reference: it tests the periods after them (or give floors=)"
        )
    rows = []
    for name in pd.unique(systems):
        sel = (systems == name) & ~missing
        rows.append(
            _system_table(
                period[sel],
                f[sel],
                y[sel],
                None if prob is None else prob[sel],
                labels,
                alpha,
                tightest_at,
                power_tuning,
                notes,
                name if system is not None else None,
            )
        )
    attrs = {"notes": notes, "reference_bounds": bounds, "alpha": alpha, "method": method,
             "drift_by": drift_by, "human_scale": back}  # fmt: skip
    return _assembled(rows, drift, drift_by, back, system is not None, attrs)


def _check_choices(method, drift_by, drift_from, system) -> None:
    """The monitor's named choices, each refused by name when not one of its values."""
    if method not in _METHODS:
        raise InputError(
            f"method must be one of {', '.join(_METHODS)}; got {method!r}",
            field="method",
            value=method,
        )
    if drift_from not in ("all", "labels"):
        raise InputError(
            f"drift_from must be 'all' or 'labels'; got {drift_from!r}",
            field="drift_from",
            value=drift_from,
        )
    if drift_by not in ("pooled", "system") or (drift_by == "system" and system is None):
        raise InputError(
            f"drift_by must be 'pooled' or 'system' (with system=); got {drift_by!r}"
            + ("" if system is not None else " without system="),
            field="drift_by",
            value=drift_by,
        )


#: the options of the labelled-sample design, and their defaults (refused with anchors=)
_LABELLED_ONLY = {"system": None, "label_prob": None, "tightest_at": 10, "floors": None,
                  "power_tuning": True, "method": "asymptotic", "drift_by": "pooled",
                  "drift_from": "all", "scale": None, "human_scale": None}  # fmt: skip


def _anchored(items, anchors, judge, human, time, item, alpha, reference, freq, positive,
              given) -> pd.DataFrame:  # fmt: skip
    """:func:`monitor` with an anchor set (its ``anchors`` parameter)."""
    if given:
        name = sorted(given)[0]
        raise InputError(
            f"{name}= is for the labelled-sample design, not with anchors= (the anchor "
            "design reads the judge's rates on the anchors)",
            field=name,
            value=given[name],
        )
    for value, field in ((anchors, "anchors"), (item, "item")):
        if value is None:
            raise InputError(
                "the anchor design needs both anchors= (the anchors' frame) and item= (their "
                f"id column); {field}= is missing",
                field=field,
                value=None,
            )
    alpha = check_alpha(alpha)
    reference = check_count(reference, "reference")
    log = anchor_log(
        items, anchors, judge=judge, human=human, time=time, item=item, freq=freq,
        positive=positive,
    )  # fmt: skip
    labels = np.bincount(log.a_y[np.unique(log.a_item, return_index=True)[1]].astype(int),
                         minlength=2)  # fmt: skip
    if labels.min() < 2:
        raise InputError(
            f"the anchors hold {labels[1]} positive and {labels[0]} negative label(s) in "
            f"{human!r}: the judge's two rates need at least 2 anchors of each",
            field=human,
            value=int(labels.min()),
        )
    P = len(log.periods)
    notes = list(log.notes)
    if P <= reference:
        notes.append(
            f"{P} period(s) so far, the first {reference} the reference: the tests start after them"
        )
    out = anchor_attribution(
        log.a_period, log.a_item, log.a_f, log.a_y, log.n_period, log.n_f, P, alpha,
        reference,
    )  # fmt: skip
    anchored = np.bincount(log.a_period, minlength=P) > 0
    if P > reference and not anchored[:reference].all():
        notes.append(
            f"the first {reference} period(s) (the reference) hold anchors in "
            f"{int(anchored[:reference].sum())}: later periods are compared with the "
            "anchored periods before them"
        )
    if P > reference and np.isnan(out["judge_evidence"]).all():
        notes.append("no period after the reference has anchors to test: nothing was tested")
    table = pd.DataFrame(
        {
            "period": log.periods,
            "n_anchors": np.bincount(log.a_period, minlength=P),
            "n_new": out["n_new"],
            "sensitivity": out["sensitivity"],
            "specificity": out["specificity"],
            "verdict_rate": out["verdict_rate"],
            "system_rate": out["system_rate"],
            "judge_evidence": out["judge_evidence"],
            "judge_moved": out["judge_moved"],
            "system_evidence": out["system_evidence"],
            "system_change": out["system_change"],
            "system_se": out["system_se"],
            "judge_alarm": out["judge_alarm"],
            "system_alarm": out["system_alarm"],
            "verdict": out["verdict"],
        }
    )
    table.attrs.update(notes=notes, alpha=alpha, reference=reference)
    return table


#: the within-period labelling check's level (it warns below it; benchmarks/
#: monitor_labelling.py: 0.000-0.005 of random-label streams, 0.82-0.93 of those it misses)
LABELLING_ALPHA = 0.01


def _within_period_labelling(systems, period, f, y, missing, notes: list[str]) -> None:
    r"""Warn (and note) when, within the periods, the labelled items' verdicts differ from
    the others': labels taken from the first arrivals of a period, or from whole batches,
    of a log whose items drift within it.  Each period (of each system) with two
    labelled and two other
    items gives :math:`z_p = (\bar f_{\text{lab}} - \bar f_{\text{other}}) / (s_p
    \sqrt{1/n_{\text{lab}} + 1/n_{\text{other}}})` (:math:`s_p` the period's verdicts'
    sd); :math:`\sum_p z_p^2` is chi-square on the periods' count when the labelled items
    are a random sample of their period.  The verdicts are seen on every item, so a
    labelling that follows arrival order is harmless (and not flagged) unless the items
    change along it.
    """
    from scipy import stats

    keys = pd.Series(systems[~missing]).astype(str) + "|" + pd.Series(period[~missing]).astype(str)
    cell, f, labelled = pd.factorize(keys)[0], f[~missing], ~np.isnan(y[~missing])
    stat, used = 0.0, 0
    for p in np.unique(cell):
        at = cell == p
        lab, other = f[at & labelled], f[at & ~labelled]
        sd = float(np.std(f[at], ddof=1)) if at.sum() > 1 else 0.0
        if lab.size < 2 or other.size < 2 or sd == 0:
            continue
        z = (lab.mean() - other.mean()) / (sd * np.sqrt(1 / lab.size + 1 / other.size))
        stat, used = stat + float(z**2), used + 1
    if not used:
        return
    pval = float(stats.chi2.sf(stat, used))
    if pval < LABELLING_ALPHA:
        note = (
            f"within the periods, the labelled items' verdicts differ from the others' (p = "
            f"{pval:.1e} over {used} periods): the labels are not a random sample of their "
            "period (the first arrivals, or whole batches, of items that change within it), "
            "and the sequence assumes they are; draw each period's labels at random "
            "(jb.plan.label_next), or give their probabilities as label_prob="
        )
        warnings.warn(note, LabellingWarning, stacklevel=3)
        notes.append(note)


def _assembled(rows, drift, drift_by: str, back, by_system: bool, attrs: dict) -> pd.DataFrame:
    """The systems' tables as one, with the drift alarm's columns, on the human scale."""
    table = pd.concat(rows, ignore_index=True)
    if drift is not None:
        on = ["system", "period"] if drift_by == "system" else "period"
        table = table.merge(drift, on=on, how="left")
    if back is not None:  # from [0, 1] back to the human label's scale
        lo, hi = back
        for col in ("period_estimate", "estimate", "lower", "upper"):
            table[col] = lo + (hi - lo) * table[col]
    if by_system:
        table.insert(0, "system", table.pop("system"))
    else:
        table = table.drop(columns="system")
    table.attrs.update(attrs)
    return table


def _drift_part(back, drift_by, systems, missing, period, f, y, labels, alpha, reference,
                floors, notes):  # fmt: skip
    """The drift alarm's table and its reference bounds (pooled or by system); none on
    scores.
    """
    if back is not None:
        drift, bounds = None, {}
        notes.append(
            "the drift alarm reads verdicts (the judge's sensitivity and specificity): not "
            "run on scores"
        )
    elif drift_by == "pooled":
        drift, bounds = _drift(
            period[~missing], f[~missing], y[~missing], labels, alpha, reference, floors, notes
        )
        if not bounds:
            notes.append(
                f"the first {reference} period(s) have no labels: the drift alarm has no reference"
            )
    else:
        drift, bounds = _drift_by_system(
            systems, missing, period, f, y, labels, alpha, reference, floors, notes
        )
    return drift, bounds


def _system_table(period, f, y, prob, labels, alpha, tightest_at, power_tuning, notes, name):
    est = sq.period_estimates(period, f, y, prob, power_tuning=power_tuning)
    valid = est["valid"] & (est["n"] > 0)
    short = (~est["valid"]) & (est["n"] > 0)
    if short.any():
        who = f" of system {name!r}" if name is not None else ""
        notes.append(
            f"{int(est['n'][short].sum())} item(s){who} in {int(short.sum())} period(s) with "
            "fewer than two labels are outside the rate (no correction possible there): "
            + ", ".join(labels[t] for t in np.flatnonzero(short)[:5])
        )
    total = np.where(valid, est["total"], 0.0)
    var = np.where(valid, est["variance"], 0.0)
    n_in = np.where(valid, est["n"], 0.0)
    S, V, N = np.cumsum(total), np.cumsum(var), np.cumsum(n_in)
    first = np.flatnonzero(var > 0)
    target = tightest_at * var[first[0]] if first.size else 1.0
    rho2 = sq.tuning(target, alpha)
    radius = sq.mixture_radius(V, alpha, rho2)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = S / N
        lower = np.clip((S - radius) / N, 0.0, 1.0)
        upper = np.clip((S + radius) / N, 0.0, 1.0)
        period_estimate = np.where(valid, est["total"] / est["n"], np.nan)
    lower[N == 0] = 0.0
    upper[N == 0] = 1.0
    return pd.DataFrame(
        {
            "system": name,
            "period": labels,
            "n_items": est["n"].astype(int),
            "n_labelled": est["m"].astype(int),
            "lam": est["lam"],
            "period_estimate": period_estimate,
            "estimate": estimate,
            "lower": lower,
            "upper": upper,
        }
    )


def _drift(period, f, y, labels, alpha, reference, floors, notes) -> tuple[pd.DataFrame, dict]:
    """One drift alarm: on every channel (``floors`` None) or on the labels.  When no
    period has the labels the all-channel alarm needs, the labels' exact alarm.
    """
    d = None
    if floors is None:
        d = channel_alarm(period, f, y, len(labels), alpha, reference)
        if d["thin"] == len(labels):
            notes.append(
                f"no period has {MIN_LABELS} labels, which the all-channel drift alarm needs "
                "(its tests are asymptotic): the alarm reads the labels alone (exact)"
            )
            d = None
        elif d["thin"]:
            notes.append(
                f"{d['thin']} period(s) with fewer than {MIN_LABELS} labels are left out of "
                "the all-channel drift alarm (its tests are asymptotic); "
                "drift_from='labels' reads every label"
            )
    if d is None:
        d = sq.drift_alarm(period, f, y, len(labels), alpha, reference, floors=floors or {})
    alarm = d["alarm"]
    table = pd.DataFrame(
        {
            "period": labels,
            "sensitivity": d["sens"],
            "specificity": d["spec"],
            "drift_evidence": d["evidence"],
            "alarm": alarm,
            "drift": np.where(alarm, d["which"], None),
        }
    )
    return table, d["bounds"]


def _drift_by_system(systems, missing, period, f, y, labels, alpha, reference, floors, notes):
    """One drift alarm per system at ``alpha / S`` (Bonferroni over the systems)."""
    names = pd.unique(systems)
    tables, bounds = [], {}
    for name in names:
        sel = (systems == name) & ~missing
        t, b = _drift(
            period[sel], f[sel], y[sel], labels, alpha / len(names), reference, floors, notes
        )
        tables.append(t.assign(system=name))
        bounds[name] = b
        if not b:
            notes.append(
                f"system {name!r}: the first {reference} period(s) have no labels: its drift "
                "alarm has no reference"
            )
    notes.append(
        f"one drift alarm per system, each at alpha / {len(names)}: the chance that any of "
        f"them ever sounds without drift is at most {alpha:g}"
    )
    return pd.concat(tables, ignore_index=True), bounds


def _floors(floors) -> dict[str, float]:
    if floors is None:
        return {}
    if not isinstance(floors, dict):
        raise InputError(
            f"floors must be a dict such as {{'sensitivity': 0.85}}; got {floors!r}",
            field="floors",
            value=floors,
        )
    out = {}
    for key, value in floors.items():
        if key not in ("sensitivity", "specificity"):
            raise InputError(
                f"floors: {key!r} is not a rate of the judge; use 'sensitivity' or 'specificity'",
                field="floors",
                value=key,
            )
        out[key] = check_alpha(value, f"floors[{key!r}]")
    return out


# ------------------------------------------------------------------ decisions
def sequential_decision(table: pd.DataFrame, claim: str) -> pd.DataFrame:
    """Read a claim about the rate off a :func:`monitor` table at every look: ``pass`` once
    the sequence lies wholly on the claim's side, ``fail`` once wholly on the other, else
    ``continue``.  Because the sequence holds at every look at once, stopping at the first
    decision keeps the error at most the table's ``alpha``.

    ``claim`` is ``"rate > 0.8"`` / ``"rate < 0.2"`` (one system) or ``"<system> > 0.8"``.

    Returns
    -------
    DataFrame
        ``system`` (when the table has systems), ``period``, ``lower``, ``upper`` and
        ``decision`` for the claim's system.
    """
    from judgebayes.workflows.gate import parse_claim

    # a score judge's table is on the human label's scale (its claims too: "rate > 3.5")
    missing = [col for col in ("period", "lower", "upper") if col not in table.columns]
    if missing:
        raise InputError(
            f"table: no column {', '.join(map(repr, missing))}; give the table jb.monitor "
            "returns (its bounds are the sequence's)",
            field="table",
            value=missing,
        )
    c = parse_claim(claim, table.attrs.get("human_scale") or (0.0, 1.0))
    if isinstance(c.rhs, str) or c.kind != "compare":
        raise InputError(
            f"a sequential claim compares one rate with a number ('rate > 0.8'); got {claim!r}",
            field="claim",
            value=claim,
        )
    if "system" in table.columns:
        sub = table[table["system"] == c.lhs]
        if sub.empty:
            raise InputError(
                f"claim {claim!r}: no system {c.lhs!r} in the table (systems: "
                f"{', '.join(map(str, pd.unique(table['system'])))})",
                field="claim",
                value=c.lhs,
            )
    else:
        if c.lhs != "rate":
            raise InputError(
                f"claim {claim!r}: the table has one rate; write it as 'rate {c.op} {c.rhs}'",
                field="claim",
                value=c.lhs,
            )
        sub = table
    sub = sub.copy()
    above, below = sub["lower"] > c.rhs, sub["upper"] < c.rhs
    yes, no = (above, below) if c.op == ">" else (below, above)
    decision = np.where(yes, "pass", np.where(no, "fail", "continue"))
    # the first decision stands: a sequence that has decided is not read again
    decided = np.flatnonzero(decision != "continue")
    if decided.size:
        decision[decided[0] :] = decision[decided[0]]
    sub["decision"] = decision
    cols = [c_ for c_ in ("system", "period", "lower", "upper", "decision") if c_ in sub]
    return sub[cols].reset_index(drop=True)


def without_replacement(
    frame,
    human: str,
    *,
    order: str | None = None,
    judge: str | None = None,
    population: int | None = None,
    alpha: float = 0.05,
    positive=None,
) -> pd.DataFrame:
    r"""An exact confidence sequence for the rate of one fixed set of items, labelled one
    at a time in random order (the ``items`` estimand, looked at after every label).

    Parameters
    ----------
    frame : DataFrame
        Every item of the set, one row each (labelled or not).
    human : str
        The human label; blank = not labelled yet.
    order : str, optional
        The position at which each labelled item was labelled (default: row order).
    judge : str, optional
        The judge's verdict on every item: the sequence then bets on
        :math:`(Y - f + 1) / 2`, whose mean over the set is known up to the rate
        (:math:`\theta = \bar f + 2 m - 1`), so an accurate judge narrows it.
    population : int, optional
        The number of items in the set (default: the frame's rows; with ``judge`` it must
        be the frame's rows, every item judged).
    alpha : float
        Miscoverage over all looks.
    positive : optional
        The positive label value where it is not a usual spelling.

    Returns
    -------
    DataFrame
        ``n_labelled``, ``estimate`` (the labelled items' rate, or the judge-corrected
        rate), ``lower``, ``upper`` after each label.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import judgebayes as jb
    >>> y = np.random.default_rng(1).binomial(1, 0.3, 500).astype(float)
    >>> t = jb.estimators.without_replacement(pd.DataFrame({"h": y[:100]}), "h", population=500)
    >>> bool(t["lower"].iloc[-1] <= y.mean() <= t["upper"].iloc[-1])
    True
    """
    alpha = check_alpha(alpha)
    if population is not None:
        check_count(population, "population")
    y, idx, f, N = labelled_sequence(
        frame, human, order=order, judge=judge, population=population, positive=positive
    )
    if f is None:
        x = y[idx]
        lo, hi = sq.betting_sequence(x, N, alpha)
        est = np.cumsum(x) / np.arange(1, x.size + 1)
    else:
        fbar = float(f.mean())
        x = (y[idx] - f[idx] + 1.0) / 2.0
        lo_m, hi_m = sq.betting_sequence(x, N, alpha, resolution=2)
        lo = np.clip(fbar + 2.0 * lo_m - 1.0, 0.0, 1.0)
        hi = np.clip(fbar + 2.0 * hi_m - 1.0, 0.0, 1.0)
        est = np.clip(fbar + 2.0 * np.cumsum(x) / np.arange(1, x.size + 1) - 1.0, 0.0, 1.0)
    return pd.DataFrame(
        {"n_labelled": np.arange(1, x.size + 1), "estimate": est, "lower": lo, "upper": hi}
    )
