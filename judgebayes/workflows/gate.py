r"""A CI gate: is a stated claim about corrected rates supported at a stated level?

A claim is a comparison of one system's rate with a number or with another system's rate:
``"A > 0.8"``, ``"A < 0.25"``, ``"A > B"`` (``>=`` and ``<=`` are read as ``>`` and ``<``:
the rates are continuous).  With a fit that has draws (``exact``, ``laplace``, ``nuts``) the
claim's posterior probability is the share of draws where it holds,

.. math::
    \Pr(\theta_A > c \mid \text{data}) \approx \frac1S\sum_s 1[\theta_A^{(s)} > c],

and it is supported when that probability is at least ``prob``.  A point method with an
interval (``closed_form``) supports ``A > c`` when the lower end of its one-sided
``prob`` interval (the two-sided interval at ``alpha = 2 (1 - prob)``) is above ``c``;
``A > B`` then reads the one-sided bound of the difference, which the items design's
closed form gives (paired by item with ``item=``, independent otherwise); the two-frame
closed form has no joint distribution of two systems and refuses it.
A NUTS fit that fails the convergence gate supports nothing: its draws are not trusted.

>>> from judgebayes.workflows.gate import check_claims
>>> fit = study.fit("exact", random_seed=0)
>>> table = check_claims(fit, ["A > 0.8", "A > B"], prob=0.95)
>>> table["supported"].all()  # the CLI exits 1 when this is False
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgebayes.results import Fit

__all__ = ["Claim", "check_claims", "parse_claim"]

_CLAIM = re.compile(r"^\s*(?P<lhs>.+?)\s*(?P<op>>=|<=|>|<)\s*(?P<rhs>.+?)\s*$")


@dataclass(frozen=True)
class Claim:
    """``lhs op rhs``: ``lhs`` a unit (system), ``rhs`` a number or another unit."""

    text: str
    lhs: str
    op: str  # ">" or "<"
    rhs: float | str


def parse_claim(text: str) -> Claim:
    """Read ``"A > 0.8"``, ``"A < 0.25"`` or ``"A > B"`` (module docstring).

    Raises
    ------
    InputError
        The text is not ``name op value`` with op one of ``> < >= <=``, or a number is
        outside [0, 1].
    """
    if not isinstance(text, str):
        raise InputError(
            f"a claim must be a string like 'A > 0.8'; got {text!r}", field="claim", value=text
        )
    m = _CLAIM.match(text)
    if m is None or not m["lhs"] or not m["rhs"] or any(c in m["lhs"] + m["rhs"] for c in "<>="):
        raise InputError(
            f"claim {text!r} is not of the form 'A > 0.8', 'A < 0.25' or 'A > B'",
            field="claim",
            value=text,
        )
    rhs: float | str = m["rhs"]
    try:
        rhs = float(m["rhs"])
    except ValueError:
        pass
    if isinstance(rhs, float) and not 0.0 <= rhs <= 1.0:
        raise InputError(
            f"claim {text!r}: a rate is compared with a number in [0, 1]; got {m['rhs']}",
            field="claim",
            value=text,
        )
    return Claim(text.strip(), m["lhs"], m["op"][0], rhs)


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


def check_claims(fit: Fit, claims, prob: float = 0.95) -> pd.DataFrame:
    """Check each claim against ``fit`` (module docstring).

    Parameters
    ----------
    fit : Fit
        A fit of any family; its reported quantity is the rate compared.
    claims : str or sequence of str
        Claims such as ``"A > 0.8"`` or ``"A > B"``.
    prob : float
        Posterior probability (or one-sided confidence, for a point method) required,
        in (0.5, 1).

    Returns
    -------
    DataFrame
        One row per claim: ``claim``, ``method``, ``probability`` (NaN for a point
        method), ``bound`` (the one-sided bound a point method used; NaN otherwise),
        ``required``, ``supported`` and ``reason``.

    Raises
    ------
    InputError
        A malformed claim, an unknown system, ``prob`` outside (0.5, 1), or ``A > B``
        with a point method.
    """
    if isinstance(prob, bool) or not isinstance(prob, int | float) or not 0.5 < prob < 1:
        raise InputError(
            f"prob must be a number in (0.5, 1); got {prob!r}", field="prob", value=prob
        )
    parsed = [parse_claim(c) for c in ([claims] if isinstance(claims, str) else list(claims))]
    if not parsed:
        raise InputError("no claim to check", field="claim", value=None)
    gate_failed = fit.diagnostics is not None and not fit.diagnostics.passed
    rows = []
    for c in parsed:
        i = _unit(fit, c.lhs, c)
        j = None if isinstance(c.rhs, float) else _unit(fit, c.rhs, c)
        p = bound = np.nan
        if fit.is_point and j is not None:
            if "contrasts" not in fit.info:
                raise InputError(
                    f"claim {c.text!r} compares two systems: method {fit.method!r} gives a "
                    "point and an interval per system, not their joint distribution; use "
                    "the items design's closed form, 'exact', 'laplace' or 'nuts'",
                    field="method",
                    value=fit.method,
                )
            names = list(fit.units)
            t = fit.contrasts(alpha=2 * (1 - prob)).set_index(["a", "b"])
            row = t.loc[(names[i], names[j])]
            bound = float(row["lower"] if c.op == ">" else row["upper"])
            ok = bool(bound > 0 if c.op == ">" else bound < 0)
            side = "lower" if c.op == ">" else "upper"
            reason = (
                f"one-sided {prob:g} {side} bound of the difference {bound:.3f} ({row['estimand']})"
            )
        elif fit.is_point:
            iv = fit.interval(alpha=2 * (1 - prob)).iloc[i]
            bound = float(iv["lower"] if c.op == ">" else iv["upper"])
            ok = bool(bound > c.rhs if c.op == ">" else bound < c.rhs)
            side = "lower" if c.op == ">" else "upper"
            reason = f"one-sided {prob:g} {side} bound {bound:.3f} against {c.rhs:g}"
            if not np.isfinite(bound):
                ok, reason = False, "the method gives no interval here (see the fit's notes)"
        else:
            d = fit.draws().values
            d = d.reshape(d.shape[0], -1)
            other = c.rhs if j is None else d[:, j]
            ok_draws = np.isfinite(d[:, i]) & np.isfinite(other)
            holds = d[:, i] > other if c.op == ">" else d[:, i] < other
            p = float(holds[ok_draws].mean()) if ok_draws.any() else np.nan
            ok = bool(np.isfinite(p) and p >= prob)
            reason = f"P = {p:.3f} {'>=' if ok else '<'} {prob:g}"
            if gate_failed:
                ok = False
                reason = f"the fit failed its convergence gate ({fit.diagnostics.message()})"
        rows.append(
            {
                "claim": c.text,
                "method": fit.method,
                "probability": p,
                "bound": bound,
                "required": float(prob),
                "supported": ok,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows)
