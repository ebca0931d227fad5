r"""Posterior predictive checks of a Bradley-Terry fit's verdicts.

Replicated verdicts at :data:`DRAWS` posterior draws
(:mod:`judgebayes.inference.ranking.predictive`):

* ``win_matrix``: the chi-square discrepancy of each pair's scores (with parameters;
  p-value :math:`\Pr(T^{rep} \ge T)`);
* ``intransitive``: 3-cycles of the majority graph;
* ``order_swap`` (with instance ids: the study's ``instance``, or the fit's instance
  effect): the share of instances shown in both orders whose two verdicts pick the same
  item; the model treats the two orders as independent given the qualities, so a share far
  above the replicates' says the verdicts share an instance effect.

:func:`table` gives the same rows with the per-pair details in ``attrs["pairs"]``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.checks.base import Check, register
from judgebayes.inference.ranking.predictive import predictive_check_table

__all__ = ["CHECK", "DRAWS", "table"]

#: posterior draws the replicates are drawn at
DRAWS = 500
#: the methods whose verdicts are the human's, not the judges': the check is not theirs
_HUMAN = ("judge_error", "ppi")


def table(fit, instance=None, *, draws: int = DRAWS, random_seed: int = 0) -> pd.DataFrame:
    """The check's statistics of ``fit`` (a row each: ``observed``, ``expected``, ``lower``,
    ``upper``, ``p_value``, ``n``), ``instance`` (one index per kept comparison) adding
    ``order_swap``; ``attrs["pairs"]``: each pair's observed score share and its 95%
    predictive interval, ``outside`` where it falls out of it.
    """
    d = fit.data
    eta = fit.eta_draws(draws, random_seed)
    nu = None
    if "nu" in fit.tree.posterior:
        nu_all = fit.tree.posterior["nu"].values.ravel()
        idx = np.arange(nu_all.size)
        if draws < nu_all.size:
            idx = np.sort(
                np.random.default_rng(random_seed).choice(nu_all.size, draws, replace=False)
            )
        nu = nu_all[idx]
    rng = np.random.default_rng([random_seed, 1])
    rows, pairs = predictive_check_table(
        d.y, d.first, d.second, d.n_items, eta, nu, rng, instance=instance
    )
    df = pd.DataFrame(rows).set_index("statistic")
    pt = pd.DataFrame(pairs)
    pt["item_a"] = [d.items[i] for i in pt.pop("lo")]
    pt["item_b"] = [d.items[i] for i in pt.pop("hi")]
    pt["outside"] = (pt["observed"] < pt["lower"]) | (pt["observed"] > pt["upper"])
    df.attrs["pairs"] = pt.set_index(["item_a", "item_b"])
    return df


def _rows(ranking, fit, *, alpha: float) -> pd.DataFrame:
    inst = fit.instance if fit.instance is not None else ranking.instance
    t = table(fit, inst)
    return pd.DataFrame(
        {
            "unit": t.index.astype(str),
            "observed": t["observed"].to_numpy(float),
            "expected": t["expected"].to_numpy(float) if "expected" in t else np.nan,
            "p_raw": t["p_value"].to_numpy(float),
        }
    )


CHECK = register(
    Check(
        "pairs",
        _rows,
        applies_to=("ranking",),
        assumption="verdicts are independent Bradley-Terry outcomes given the qualities "
        "(no pair, cycle or instance effect beyond them)",
        needs="draws",
        accepts=lambda fit: fit.method not in _HUMAN,
    )
)
