r"""A CI gate: are stated claims about corrected rates supported at a stated level?

A claim compares one system's rate with a number, or the difference of two systems' rates
with a margin:

* ``"A > 0.8"``, ``"A < 0.25"``: a rate against a number;
* ``"A > B"``, ``"A > B - 0.02"`` (non-inferiority: A is at most 0.02 worse),
  ``"A < B + 0.01"``: a difference against a margin (spaces around the sign);
* ``"|A - B| < 0.03"``: equivalence, both sides at once.

For a fit of the scores design the rate is the mean human label and the numbers are on
its human scale (``"A > 3.5"``, ``"A > B - 0.2"`` on a 1-5 scale).

``>=`` and ``<=`` are read as ``>`` and ``<`` (the rates are continuous).  With a fit that
has draws (``exact``, ``laplace``, ``nuts``) a claim's posterior probability is the share
of draws where it holds,

.. math::
    \Pr(\theta_A - \theta_B > m \mid \text{data}) \approx
    \frac1S\sum_s 1[\theta_A^{(s)} - \theta_B^{(s)} > m],

and several claims by Holm's step-down on the tail probabilities :math:`1 - \Pr`, at
``1 - prob``, stopping also where the supported claims no longer hold together in ``prob``
of the draws, so that the family-wise error stays near ``1 - prob`` (a joint posterior
probability alone let one of 8 false claims through in 0.35 of the data sets).  A
point method (``closed_form``) reads each claim off its one-sided bounds (the difference's,
for two systems: the items design's closed form, paired by item with ``item=``;
equivalence by two one-sided bounds), turns them into
p-values by inverting the bound in its level, and decides several claims by Holm's step-down
at ``1 - prob``, so the family-wise error rate is at most ``1 - prob``.  The table's
``control`` column says which.  A NUTS fit that fails the convergence gate supports nothing,
nor does a fit that leaves fewer than :data:`MIN_DECISION_DRAWS` effective draws (the
exact paired posterior with prompts labelled on some systems only).

>>> from judgebayes.workflows.gate import check_claims
>>> fit = study.fit("exact", random_seed=0)
>>> table = check_claims(fit, ["A > 0.8", "A > B - 0.02"], prob=0.95)
>>> table["supported"].all()  # the CLI exits 1 when this is False
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgebayes.results import Fit

__all__ = ["Claim", "check_claims", "parse_claim"]

_CLAIM = re.compile(r"^\s*(?P<lhs>.+?)\s*(?P<op>>=|<=|>|<)\s*(?P<rhs>.+?)\s*$")
_EQUIV = re.compile(r"^\s*\|\s*(?P<lhs>.+?)\s+-\s+(?P<rhs>.+?)\s*\|\s*(<=|<)\s*(?P<m>\S+)\s*$")
_MARGIN = re.compile(r"^(?P<unit>.+?)\s+(?P<sign>[+-])\s+(?P<m>\d*\.?\d+)$")


@dataclass(frozen=True)
class Claim:
    """``lhs op rhs``: ``lhs`` a unit (system); ``rhs`` a number, or another unit written
    with an optional margin (``"B - 0.02"``, resolved against the fit's units); ``kind``
    ``"equivalence"`` for ``|lhs - rhs| < margin``.
    """

    text: str
    lhs: str
    op: str  # ">" or "<"
    rhs: float | str
    kind: str = "compare"  # or "equivalence"
    margin: float = 0.0


#: a claim read off fewer effective posterior draws than this is not supported: its tail
#: probability's Monte-Carlo error (about 0.01 at P = 0.95 with 400 draws) is the claim's
#: margin
MIN_DECISION_DRAWS = 400


def _malformed(text: str) -> InputError:
    return InputError(
        f"claim {text!r} is not of the form 'A > 0.8', 'A < 0.25', 'A > B', "
        "'A > B - 0.02' or '|A - B| < 0.03'",
        field="claim",
        value=text,
    )


def _number(text: str, s: str, low: float, high: float, what: str) -> float:
    try:
        x = float(s)
    except ValueError:
        raise _malformed(text) from None
    if not low <= x <= high:
        raise InputError(
            f"claim {text!r}: {what} must be a number in [{low:g}, {high:g}]; got {s}",
            field="claim",
            value=text,
        )
    return x


def parse_claim(text: str, scale: tuple[float, float] = (0.0, 1.0)) -> Claim:
    """Read a claim (module docstring); its numbers must lie on ``scale`` (a rate's
    [0, 1], or a score mean's human scale such as (1, 5)), a margin within its span.

    Raises
    ------
    InputError
        The text is none of the forms, or a number or margin is off the scale.
    """
    lo, hi = (float(v) for v in scale)
    if not isinstance(text, str):
        raise InputError(
            f"a claim must be a string like 'A > 0.8'; got {text!r}", field="claim", value=text
        )
    eq = _EQUIV.match(text)
    if eq is not None:
        m = _number(text, eq["m"], 0.0, hi - lo, "an equivalence margin")
        return Claim(text.strip(), eq["lhs"], "<", eq["rhs"], "equivalence", m)
    m = _CLAIM.match(text)
    if m is None or not m["lhs"] or not m["rhs"] or any(c in m["lhs"] + m["rhs"] for c in "<>=|"):
        raise _malformed(text)
    try:
        rhs: float | str = float(m["rhs"])
    except ValueError:
        rhs = m["rhs"]
    else:
        _number(text, m["rhs"], lo, hi, "a rate" if (lo, hi) == (0.0, 1.0) else "a mean")
    return Claim(text.strip(), m["lhs"], m["op"][0], rhs)


def claim_scale(fit: Fit) -> tuple[float, float]:
    """The scale a claim on ``fit``'s quantity is on: a score mean's human scale, else
    a rate's [0, 1].
    """
    lo, hi = fit.info.get("human_scale", (0.0, 1.0))
    return float(lo), float(hi)


def _unit(fit: Fit, name: str, claim: Claim) -> int:
    units = list(fit.units)
    if name in units:
        return units.index(name)
    if len(units) == 1 and name in ("rate", "theta", fit.quantity):
        return 0
    raise InputError(
        f"claim {claim.text!r}: no {fit.unit} named {name!r}; the fit has {units}"
        + (" (with one system, 'rate' also names it)" if len(units) == 1 else ""),
        field="claim",
        value=name,
    )


def _resolve(fit: Fit, c: Claim) -> tuple[int, int | None, float]:
    """(lhs index, rhs index or None, the number or margin compared with)."""
    i = _unit(fit, c.lhs, c)
    lo, hi = claim_scale(fit)
    if isinstance(c.rhs, float):
        return i, None, c.rhs
    if c.rhs in fit.units or c.kind == "equivalence":
        return i, _unit(fit, c.rhs, c), c.margin
    mm = _MARGIN.match(c.rhs)
    if mm is None:
        return i, _unit(fit, c.rhs, c), 0.0  # names the unknown unit
    margin = _number(c.text, mm["m"], 0.0, hi - lo, "a margin")
    return i, _unit(fit, mm["unit"], c), margin if mm["sign"] == "+" else -margin


def _holds(c: Claim, x: np.ndarray, value: float) -> np.ndarray:
    """Where the claim holds for values ``x`` of its rate or difference."""
    if c.kind == "equivalence":
        return np.abs(x) < value
    return x > value if c.op == ">" else x < value


def _contrast(fit: Fit, i: int, j: int, alpha: float):
    """The fit's own row for the difference of units ``i`` and ``j`` (its contrasts)."""
    names = list(fit.units)
    table = fit.contrasts(alpha=alpha)
    at = (table["a"].to_numpy() == names[i]) & (table["b"].to_numpy() == names[j])
    if not at.any():
        raise KeyError((names[i], names[j]))
    return table.iloc[int(np.argmax(at))]


def _bound(fit: Fit, i: int, j: int | None, alpha1: float, side: str) -> float:
    """One-sided (1 - alpha1) bound of a rate (j None) or of the difference i - j."""
    if j is None:
        return float(fit.interval(alpha=2 * alpha1).iloc[i][side])
    return float(_contrast(fit, i, j, 2 * alpha1)[side])


def _p_value(fit: Fit, i: int, j: int | None, side: str, value: float) -> float:
    """The smallest one-sided level at which the ``side`` bound clears ``value``.

    A difference's bound is the Wald bound of the fit's contrast table, widened by its
    partial-identification slack, so its level is read off the normal tail directly.  A
    rate's interval has whatever form its method gives (Lang-Reiczigel, t, Agresti-Coull,
    clipped), so its level is found by bisection, the bound being monotone in the level.
    """
    if j is not None:
        row = _contrast(fit, i, j, 0.05)
        d, se, slack = (float(row[k]) for k in ("difference", "se", "slack"))
        gap = (d - slack - value) if side == "lower" else (value - d - slack)
        df = float(row.get("df", np.inf))  # Student's t where the bound is a t bound
        tail = stats.norm.sf if not np.isfinite(df) else stats.t(df).sf
        return float(tail(gap / se)) if se > 0 else float(gap <= 0)
    beyond = (lambda b: b > value) if side == "lower" else (lambda b: b < value)
    hi_level, lo_level = 0.4999, 1e-10
    at_half = _bound(fit, i, j, hi_level, side)
    if not np.isfinite(at_half) or not beyond(at_half):
        return 1.0
    if beyond(_bound(fit, i, j, lo_level, side)):
        return lo_level
    for _ in range(40):
        mid = 0.5 * (lo_level + hi_level)
        if beyond(_bound(fit, i, j, mid, side)):
            hi_level = mid
        else:
            lo_level = mid
    return hi_level


def _pair_text(fit: Fit, i: int, j: int | None) -> str:
    if j is None:
        return ""
    return f" of the difference ({_contrast(fit, i, j, 0.05)['estimand']})"


def check_claims(fit: Fit, claims, prob: float = 0.95) -> pd.DataFrame:
    """Check claims against ``fit``, jointly (module docstring).

    Parameters
    ----------
    fit : Fit
        A fit of any family; its reported quantity is the rate compared.
    claims : str or sequence of str
        Claims such as ``"A > 0.8"``, ``"A > B - 0.02"`` or ``"|A - B| < 0.03"``.
    prob : float
        Posterior probability (or one minus the family-wise error rate, for a point
        method) required, in (0.5, 1).

    Returns
    -------
    DataFrame
        One row per claim: ``claim``, ``method``, ``probability`` (the claim's own
        posterior probability; NaN for a point method), ``p_value`` (a point method's;
        NaN otherwise), ``bound`` (the point method's one-sided ``prob`` bound),
        ``required``, ``supported``, ``control`` and ``reason``.

    Raises
    ------
    InputError
        A malformed claim, an unknown system, ``prob`` outside (0.5, 1), or a claim on
        two systems with a point method that has no joint distribution of them.
    """
    if isinstance(prob, bool) or not isinstance(prob, int | float) or not 0.5 < prob < 1:
        raise InputError(
            f"prob must be a number in (0.5, 1); got {prob!r}", field="prob", value=prob
        )
    scale = claim_scale(fit)
    parsed = [
        parse_claim(c, scale) for c in ([claims] if isinstance(claims, str) else list(claims))
    ]
    if not parsed:
        raise InputError("no claim to check", field="claim", value=None)
    resolved = [_resolve(fit, c) for c in parsed]
    if fit.is_point:
        return _point_claims(fit, parsed, resolved, prob)
    return _draw_claims(fit, parsed, resolved, prob)


def _point_claims(fit: Fit, parsed, resolved, prob: float) -> pd.DataFrame:
    """Claims read off a point method's own intervals: p-values with Holm's step-down."""
    n = len(parsed)
    rows = []
    pairs = [c.text for c, (_, j, _) in zip(parsed, resolved, strict=True) if j is not None]
    if pairs and not fit.has_contrasts:
        raise InputError(
            f"claim(s) {pairs} compare two systems: method {fit.method!r} gives a point "
            "and an interval per system, not their joint distribution; use the items "
            "design's closed form, 'exact', 'laplace' or 'nuts'",
            field="method",
            value=fit.method,
        )
    for c, (i, j, value) in zip(parsed, resolved, strict=True):
        sides = (
            [("lower", -value), ("upper", value)]
            if c.kind == "equivalence"
            else [("lower" if c.op == ">" else "upper", value)]
        )
        p_value = max(_p_value(fit, i, j, side, v) for side, v in sides)
        bounds = [_bound(fit, i, j, 1 - prob, side) for side, _ in sides]
        rows.append(
            {
                "claim": c.text,
                "method": fit.method,
                "probability": np.nan,
                "p_value": p_value,
                "bound": bounds[0] if len(bounds) == 1 else np.nan,
                "bounds": bounds,
            }
        )
    # Holm's step-down at 1 - prob over the claims
    order = np.argsort([r["p_value"] for r in rows], kind="stable")
    supported = np.zeros(n, bool)
    for rank, k in enumerate(order):
        if rows[k]["p_value"] <= (1 - prob) / (n - rank):
            supported[k] = True
        else:
            break
    control = "single claim" if n == 1 else f"Holm over {n} claims (family-wise)"
    for k, r in enumerate(rows):
        bounds = r.pop("bounds")
        shown = ", ".join(f"{b:.3f}" for b in bounds)
        r |= {
            "required": float(prob),
            "supported": bool(supported[k]),
            "control": control,
            "reason": f"p = {r['p_value']:.3g}; one-sided {prob:g} bound(s) {shown}"
            + _pair_text(fit, *resolved[k][:2]),
        }
        if not np.all(np.isfinite(bounds)):
            r["supported"] = False
            r["reason"] = "the method gives no interval here (see the fit's notes)"
    return pd.DataFrame(rows)


def _draw_claims(fit: Fit, parsed, resolved, prob: float) -> pd.DataFrame:
    """Claims read off the draws: each claim's probability, and the supported set by Holm's
    step-down on the tail probabilities :math:`1 - P` at ``1 - prob`` (the supported
    claims then also hold together with posterior probability at least ``prob``).
    """
    n = len(parsed)
    rows = []
    d = fit.draws().values
    d = d.reshape(d.shape[0], -1)
    holds = []
    for c, (i, j, value) in zip(parsed, resolved, strict=True):
        x = d[:, i] if j is None else d[:, i] - d[:, j]
        holds.append(np.where(np.isfinite(x), _holds(c, x, value), False))
    holds = np.array(holds)
    # Holm's step-down on the tail probabilities 1 - P (a joint posterior probability alone
    # let at least one of 8 false claims through in 0.35 of data sets: each claim at its
    # boundary is supported alone 1 time in 20), stopping where the supported set no longer
    # holds together in at least `prob` of the draws
    tail = 1.0 - holds.mean(axis=1)
    chosen = np.zeros(n, bool)
    for rank, k in enumerate(np.argsort(tail, kind="stable")):
        trial = chosen.copy()
        trial[k] = True
        if tail[k] > (1 - prob) / (n - rank) or holds[trial].all(axis=0).mean() < prob:
            break
        chosen = trial
    joint = float(holds[chosen].all(axis=0).mean()) if chosen.any() else np.nan
    gate_failed = fit.diagnostics is not None and not fit.diagnostics.passed
    ess = fit.info.get("ess")  # importance-weighted draws (the exact paired posterior)
    ess = None if ess is None else float(np.min(np.asarray(ess, float)))
    too_few = ess is not None and ess < MIN_DECISION_DRAWS
    control = (
        "single claim"
        if n == 1
        else f"Holm over {n} claims on the posterior tail probabilities (family-wise), "
        f"the supported ones holding together with P >= {prob:g}"
    )
    for k, c in enumerate(parsed):
        p = float(holds[k].mean())
        ok = bool(chosen[k])
        reason = f"P = {p:.3f}"
        if n > 1:
            reason += f"; supported claims jointly {joint:.3f}" if chosen.any() else ""
        reason += f" {'>=' if ok else '<'} {prob:g}" if n == 1 else ""
        if gate_failed:
            ok = False
            reason = f"the fit failed its convergence gate ({fit.diagnostics.message()})"
        elif too_few:
            ok = False
            reason = (
                f"the fit leaves {ess:.0f} effective draws, fewer than the "
                f"{MIN_DECISION_DRAWS} a decision needs ({'; '.join(fit.notes) or 'refit'})"
            )
        rows.append(
            {
                "claim": c.text,
                "method": fit.method,
                "probability": p,
                "p_value": np.nan,
                "bound": np.nan,
                "required": float(prob),
                "supported": ok,
                "control": control,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows)
