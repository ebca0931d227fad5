r"""Do a board's weakest cells succeed no more often than the model says?  (a guessing floor)

The one- and two-parameter models let a success probability fall to 0: a system far below
an item's difficulty never solves it.  On multiple-choice items it still picks the right
option by chance, so the cells the model puts lowest succeed more often than it says; the
abilities of the weakest systems and the difficulties of the hardest items bend to make up
for it, and their intervals miss.  The statistic is the standardised excess of successes
in the fifth of the observed cells with the lowest probability of a positive outcome
:math:`q_{si}` (:data:`SHARE`),

.. math::
    T = \frac{\sum_{(s,i) \in L} (k_{si} - n_{si} q_{si})}
             {\sqrt{\sum_{(s,i) \in L} n_{si} q_{si} (1 - q_{si})}},

against its posterior predictive (realised discrepancies at :data:`DRAWS` draws), the
one-sided p-value :math:`\Pr(T^{rep} \ge T)`.  A flag names the board with a floor,
:class:`~judgebayes.studies.leaderboard.GuessingBoard`; on its own fits the check tests
that floor.
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "DRAWS", "SHARE", "floor_excess"]

#: posterior draws the replicates are drawn at
DRAWS = 200
#: the share of the observed cells, lowest :math:`q` first, the excess is summed over
SHARE = 0.2


def floor_excess(k, n, q, share: float = SHARE) -> float:
    """The standardised excess of successes :math:`T` (module docstring) of counts ``k`` of
    ``n`` (systems, items) at positive probabilities ``q``, over the ``share`` of the
    observed cells with the lowest ``q``.
    """
    seen = n > 0
    qs, ks, ns = q[seen], k[seen], n[seen]
    low = np.argsort(qs, kind="stable")[: max(1, round(share * qs.size))]
    var = float(np.sum(ns[low] * qs[low] * (1 - qs[low])))
    return float(np.sum(ks[low] - ns[low] * qs[low]) / np.sqrt(var)) if var > 0 else 0.0


def _rows(study, fit, *, alpha: float, random_seed: int = 0) -> list[dict]:
    d = study.data
    rng = np.random.default_rng(random_seed)
    obs, rep = [], []
    for q, k_rep in study.replicates(fit, DRAWS, rng):
        obs.append(floor_excess(d.k, d.n, q))
        rep.append(floor_excess(k_rep, d.n, q))
    obs_a, rep_a = np.array(obs), np.array(rep)
    return [
        {
            "unit": f"the lowest {SHARE:.0%} of cells: standardised excess of successes",
            "observed": float(obs_a.mean()),
            "expected": float(rep_a.mean()),
            "p_raw": float(np.mean(rep_a >= obs_a)),
        }
    ]


CHECK = register(
    Check(
        "guessing_floor",
        _rows,
        applies_to=("leaderboard",),
        assumption="the cells the model puts lowest succeed as rarely as it says (no "
        "guessing floor, as multiple-choice items have; if flagged: GuessingBoard)",
        needs="draws",
        accepts=lambda fit: "ability" in fit.idata.posterior,
    )
)
