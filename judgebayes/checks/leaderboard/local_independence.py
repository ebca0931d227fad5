r"""Are a leaderboard's items independent given the systems' abilities?  (local independence)

The item-response models take each system's outcomes on two items as independent once its
ability and the items' difficulties are known.  Items that share a passage, a subtask or a
template break this: a system that gets one right gets the others right more often than
its ability says, so the board counts the group as many items and every interval is too
narrow.  The statistic is Yen's :math:`Q_3`: with the standardised residuals
:math:`r_{si} = (k_{si} - n_{si} q_{si}) / \sqrt{n_{si} q_{si} (1 - q_{si})}` (:math:`q` the
probability of a positive outcome: :math:`p`, or the judge's verdict's), :math:`Q_{3,ij}`
is the correlation over systems of items :math:`i` and :math:`j`'s residuals.  Rows:

* ``all pairs``: the mean of :math:`Q_3^2` over every pair of items (dependence anywhere
  widens the spread of the correlations);
* with clusters, ``within clusters``: the mean :math:`Q_3` of the pairs in one cluster
  less the mean over all pairs (Christensen et al. 2017's :math:`Q_3^*`).

The first row sees dependence spread over many pairs; against a few small groups among
many items it has little power (groups of 5 among 120 items, 12 systems, a shared effect
of sd 1 logit: not flagged), which the second row, given the groups, flags.  Name the
items' groups (``cluster=``) when they exist.

Each row against its posterior predictive (realised discrepancies at :data:`DRAWS`
draws: the statistic of data replicated from a draw against the observed data's at the
same draw), the one-sided p-value :math:`\Pr(T^{rep} \ge T)`.
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register

__all__ = ["CHECK", "DRAWS", "q3_statistics"]

#: posterior draws the replicates are drawn at
DRAWS = 200


def q3_statistics(k, n, q, cluster=None) -> tuple[float, float]:
    """(mean squared :math:`Q_3` over all item pairs, within-cluster mean :math:`Q_3`
    less the overall mean (NaN without clusters)) of counts ``k`` of ``n`` (systems,
    items) at positive probabilities ``q``.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(n > 0, (k - n * q) / np.sqrt(n * q * (1 - q)), 0.0)
    r = r - r.mean(axis=0, keepdims=True)
    norm = np.sqrt((r**2).sum(axis=0))
    keep = norm > 0
    z = r[:, keep] / norm[keep]
    q3 = z.T @ z
    iu = np.triu_indices(q3.shape[0], 1)
    spread = float(np.mean(q3[iu] ** 2))
    if cluster is None:
        return spread, float("nan")
    g = np.asarray(cluster)[keep]
    same = (g[:, None] == g[None, :])[iu]
    within = float(q3[iu][same].mean() - q3[iu].mean()) if same.any() else float("nan")
    return spread, within


def _rows(study, fit, *, alpha: float, random_seed: int = 0) -> list[dict]:
    d = study.data
    rng = np.random.default_rng(random_seed)
    cluster = d.cluster if d.clusters else None
    obs, rep = [], []
    for q, k_rep in study.replicates(fit, DRAWS, rng):
        obs.append(q3_statistics(d.k, d.n, q, cluster))
        rep.append(q3_statistics(k_rep, d.n, q, cluster))
    obs_a, rep_a = np.array(obs), np.array(rep)
    rows = []
    for c, unit in enumerate(("all pairs: mean squared Q3", "within clusters: Q3 less mean")):
        if np.isnan(obs_a[:, c]).all():
            continue
        rows.append(
            {
                "unit": unit,
                "observed": float(np.nanmean(obs_a[:, c])),
                "expected": float(np.nanmean(rep_a[:, c])),
                "p_raw": float(np.mean(rep_a[:, c] >= obs_a[:, c])),
            }
        )
    return rows


CHECK = register(
    Check(
        "local_independence",
        _rows,
        applies_to=("leaderboard",),
        assumption="a system's outcomes on two items are independent given its ability "
        "and the items' difficulties (no shared passage, subtask or template)",
        needs="draws",
        accepts=lambda fit: "ability" in fit.tree.posterior,
    )
)
