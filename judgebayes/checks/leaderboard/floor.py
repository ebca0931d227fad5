r"""Do the weakest systems fail the hardest items as often as the model says?  (a guessing
floor)

The one- and two-parameter models let a success probability fall to 0: a system far below
an item's difficulty never solves it.  On multiple-choice items it still picks the right
option by chance.  The fit cannot show that as a floor; it bends instead (the weakest
abilities rise, the difficulties draw together), so that each system's total still fits
and the misfit hides in the corner of weak systems on hard items, whose success stays near
the chance rate while the model's falls.  Additive on the logit scale, the models keep the
gap between hard and easy items the same for every system; a floor narrows it for the
weak.  The statistic is that interaction: with the systems and the items each split in
thirds by their success rates in the same data,

.. math::
    L = \ell_{\text{weak, hard}} - \ell_{\text{weak, easy}}
        - \ell_{\text{strong, hard}} + \ell_{\text{strong, easy}},\qquad
    \ell = \log\frac{k + 1/2}{n - k + 1/2}

over each block's successes :math:`k` of :math:`n`, against its posterior predictive
(:data:`DRAWS` replicates, each split by its own rates, so that the blocks' selection by
chance is the same on both sides), the one-sided p-value
:math:`\Pr(L^{rep} \ge L)`.  A flag names the board with a floor,
:class:`~judgebayes.studies.leaderboard.GuessingBoard`; on its own fits the check tests
that floor.  The p-value is a posterior predictive one, conservative: where the floor is
faint it fires in some boards only (BENCHMARKS).
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "DRAWS", "floor_interaction"]

#: posterior draws the replicates are drawn at
DRAWS = 400


def floor_interaction(k, n) -> float:
    """The interaction :math:`L` (module docstring) of counts ``k`` of ``n`` (systems,
    items), the thirds read off the same counts' success rates.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        system_rate = np.nan_to_num(k.sum(axis=1) / n.sum(axis=1))
        item_rate = np.nan_to_num(k.sum(axis=0) / n.sum(axis=0))
    s3, i3 = max(1, system_rate.size // 3), max(1, item_rate.size // 3)
    by_s, by_i = np.argsort(system_rate, kind="stable"), np.argsort(item_rate, kind="stable")
    weak, strong, hard, easy = by_s[:s3], by_s[-s3:], by_i[:i3], by_i[-i3:]

    def logit(systems, items):
        kk = float(k[np.ix_(systems, items)].sum())
        nn = float(n[np.ix_(systems, items)].sum())
        return np.log((kk + 0.5) / (nn - kk + 0.5))

    return logit(weak, hard) - logit(weak, easy) - logit(strong, hard) + logit(strong, easy)


def _rows(study, fit, *, alpha: float, random_seed: int = 0) -> list[dict]:
    d = study.data
    observed = floor_interaction(d.k, d.n)
    rng = np.random.default_rng(random_seed)
    rep = np.array([floor_interaction(k, d.n) for _, k in study.replicates(fit, DRAWS, rng)])
    return [
        {
            "unit": "weakest third of systems on the hardest third of items: logit interaction",
            "observed": observed,
            "expected": float(rep.mean()),
            "p_raw": float(np.mean(rep >= observed)),
        }
    ]


CHECK = register(
    Check(
        "guessing_floor",
        _rows,
        applies_to=("leaderboard",),
        assumption="the weakest systems fail the hardest items as often as the model says "
        "(no guessing floor, as multiple-choice items have; if flagged: GuessingBoard)",
        needs="draws",
        accepts=lambda fit: (
            "ability" in fit.tree.posterior
            and "difficulty" in fit.tree.posterior
            and fit.tree.posterior.sizes.get("system", 0) >= 3
        ),
    )
)
