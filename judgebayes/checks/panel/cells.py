r"""Each panel cell against the cell model's posterior predictive.

* ``count="cell"``: each cell's count of "valid" verdicts on unannotated outputs against
  its posterior predictive :math:`\text{Bin}(n_{ij}, f_i v^+_{ij} + (1 - f_i)(1 - v^-_{ij}))`,
  one replicate per posterior draw;
* ``count="tpr"`` / ``"tnr"`` (annotated cells): the confusion counts against the
  validator's panel-level rate :math:`\text{Bin}(tp + fn, v^+_j)`: a small p-value says
  this generator shifts the validator's rate, what the constant-rate assumption of the
  regression and of the pooled cell model (:class:`~judgebayes.studies.panel.PooledPanel`) deny.

Two-sided predictive p-values.  The same replicates, as a DataTree for ArviZ, are
``panel.predictive(fit)`` (plot them with :func:`judgebayes.results.plot_check`).
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK"]


def _rows(panel, fit, *, alpha: float, random_seed: int = 0) -> list[dict]:
    d, checks = panel.cell_replicates(fit, None, random_seed)
    rows = []
    for name, obs, tot, rep in checks:
        lo = (rep <= obs[None]).mean(0)
        hi = (rep >= obs[None]).mean(0)
        pval = np.minimum(1.0, 2 * np.minimum(lo, hi))
        mean = rep.mean(0)
        for i, j in zip(*np.nonzero(tot > 0), strict=True):
            rows.append(
                {
                    "unit": f"{d.generators[i]}|{d.validators[j]}",
                    "observed": int(obs[i, j]),
                    "expected": float(mean[i, j]),
                    "p_raw": float(pval[i, j]),
                    "generator": d.generators[i],
                    "validator": d.validators[j],
                    "count": name,
                    "total": int(tot[i, j]),
                }
            )
    return rows


CHECK = register(
    Check(
        "cells",
        _rows,
        applies_to=("panel",),
        assumption="each validator's rates are the panel's on every generator (the cell "
        "model's rate shifts aside): its cells reproduce the counts",
        needs="draws",
        accepts=lambda fit: "tpr_cell" in fit.tree.posterior,  # the cell model's fits
    )
)
