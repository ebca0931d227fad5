"""How many anchors: the smallest anchor set whose judge test finds a given drop of the
judge's sensitivity within a given number of periods, by simulating the test itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.inference.monitor.anchors import anchor_attribution
from judgebayes.inference.registry import check_count
from judgebayes.results import check_alpha

__all__ = ["plan_anchors"]

SIZES = (20, 40, 60, 80, 100, 150, 200, 300, 400, 600)

#: the fewest simulated streams per size (a detection rate's sd is then at most 0.11)
MIN_STREAMS = 20


def plan_anchors(
    drop: float,
    *,
    sensitivity: float = 0.9,
    specificity: float = 0.85,
    prevalence: float = 0.7,
    reference: int = 4,
    within: int = 2,
    alpha: float = 0.05,
    power: float = 0.95,
    streams: int = 200,
    seed: int = 0,
) -> pd.DataFrame:
    r"""The chance that ``jb.monitor(anchors=)`` finds the judge's sensitivity
    falling by ``drop`` within ``within`` periods, per anchor-set size.

    Each size is simulated ``streams`` times: anchors with human labels at
    ``prevalence``, re-judged every period by a judge that gets each anchor right
    afresh with the same chance (a binomial judge: the least consistent with itself, so
    a judge that agrees with itself more needs fewer anchors), the sensitivity falling
    from ``sensitivity`` to ``sensitivity - drop`` after the ``reference`` periods.

    Returns
    -------
    DataFrame
        ``anchors``, ``detected`` (the share of streams whose judge alarm sounded within
        ``within`` periods of the drop) and ``enough`` (``detected >= power``).
        ``attrs["anchors"]`` is the smallest size that is enough (None when none of the
        sizes tried is).

    Examples
    --------
    >>> import judgebayes as jb
    >>> jb.plan.plan_anchors(0.2, streams=50).attrs["anchors"]
    100
    """
    # each a number in (0, 1), or the error naming it
    drop = check_alpha(drop, "drop")
    sensitivity = check_alpha(sensitivity, "sensitivity")
    specificity = check_alpha(specificity, "specificity")
    prevalence, power = check_alpha(prevalence, "prevalence"), check_alpha(power, "power")
    if drop >= sensitivity:
        raise InputError(
            f"drop {drop} would take the sensitivity {sensitivity} to 0 or below",
            field="drop",
            value=drop,
        )
    alpha = check_alpha(alpha)
    reference, within = check_count(reference, "reference"), check_count(within, "within")
    streams = check_count(streams, "streams")
    if streams < MIN_STREAMS:
        raise InputError(
            f"streams={streams} is too few to read a detection rate (at least {MIN_STREAMS}; "
            "the rate's Monte-Carlo sd is about 0.5 / sqrt(streams))",
            field="streams",
            value=streams,
        )
    rng = np.random.default_rng(seed)
    P = reference + within
    rows = []
    for size in SIZES:
        found = 0
        for _ in range(streams):
            label = (rng.random(size) < prevalence).astype(float)
            sens = np.where(np.arange(P) < reference, sensitivity, sensitivity - drop)
            right = rng.random((P, size)) < np.where(label == 1, sens[:, None], specificity)
            f = np.where(right, label, 1.0 - label)
            out = anchor_attribution(
                np.repeat(np.arange(P), size), np.tile(np.arange(size), P), f.ravel(),
                np.tile(label, P), np.zeros(0, dtype=int), np.zeros(0), P, alpha, reference,
            )  # fmt: skip
            found += bool(out["judge_alarm"][-1])
        rows.append((size, found / streams))
    table = pd.DataFrame(rows, columns=["anchors", "detected"])
    table["enough"] = table["detected"] >= power
    enough = table.loc[table["enough"], "anchors"]
    table.attrs["anchors"] = int(enough.iloc[0]) if len(enough) else None
    table.attrs["mc_sd"] = float(np.sqrt(power * (1 - power) / streams))
    return table
