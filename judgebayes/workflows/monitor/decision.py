"""Decisions read from a monitor's table: the first period a claim is decided, and the
bound for sampling a finite pool without replacement.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.data.monitor import labelled_sequence
from judgebayes.errors import InputError
from judgebayes.inference import sequences as sq
from judgebayes.inference.registry import check_count
from judgebayes.results import check_alpha


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
