r"""Posterior predictive check of the judge channel on the labelled comparisons.

The fit's channel (one confusion matrix per judge, shifted by the covariates and item
favouritism it was given: :mod:`judgebayes.models.ranking.channel`) predicts how often each
labelled verdict agrees with the human.  A judge whose errors depend on what the fit
left out (it favours the longer answer, or a system of its own model family) agrees
with the human more when the human preferred that answer and less when the human
preferred its opponent.  Cells: for every judge and item, the labelled comparisons
with that item (human ties left out) split by whether the human preferred it; and for
every covariate of the study, the labelled comparisons in thirds of the preferred
answer's side of the difference.  With at least :data:`CHANNEL_CHECK_MIN` verdicts in
a cell, ``observed`` is the count of verdicts equal to the human's and ``expected``
its posterior predictive mean, each verdict replicated from its draw's
:math:`\Pr(\text{verdict} = h \mid \text{human} = h, \text{shift})`; ``p_value`` is
the two-sided predictive p-value, Holm-adjusted over the rows (the checks' policy).
"""

from __future__ import annotations

import numpy as np

from judgebayes.checks.base import Check, register
from judgebayes.models.ranking.channel import channel_shift, verdict_probs

__all__ = ["CHANNEL_CHECK_MIN", "CHECK"]

#: labelled verdicts a (judge, item, preferred or not) cell needs to be checked
CHANNEL_CHECK_MIN = 10


def _rows(ranking, fit, *, alpha: float) -> list[dict]:
    ch = ranking.channel
    post = fit.tree.posterior
    rng = np.random.default_rng(0)
    keep = None
    draws = {}
    for name in ("confusion", "channel_coef", "favour"):
        if name in post:
            x = post[name].values
            x = x.reshape(-1, *x.shape[2:])
            if keep is None:
                keep = rng.choice(x.shape[0], size=min(1000, x.shape[0]), replace=False)
            draws[name] = x[keep]
    conf = draws["confusion"]
    covs = list(post["channel_covariate"].values) if "channel_coef" in post else []
    X = ch.X[:, [ch.covariates.index(c) for c in covs]]
    preferred = np.where(ch.human == 0, ch.first, np.where(ch.human == 1, ch.second, -1))
    rows = []
    for j, judge in enumerate(ch.judges):
        usable = (preferred >= 0) & (ch.verdicts[:, j] >= 0)
        cells = []
        for i, item in enumerate(ch.items):
            has = usable & ((ch.first == i) | (ch.second == i))
            for won in (True, False):
                what = "preferred" if won else "not preferred"
                mask = has & ((preferred == i) == won)
                cells.append((f"{judge}: {item}, {what} by the human", mask))
        # every covariate of the study, used by the channel or not: the preferred answer's
        # side of the difference, in thirds over the usable labelled verdicts
        for c, name in enumerate(ch.covariates):
            signed = np.where(ch.human == 0, ch.X[:, c], -ch.X[:, c])
            if usable.sum() < 3 * CHANNEL_CHECK_MIN:
                continue
            cuts = np.quantile(signed[usable], [1 / 3, 2 / 3])
            third = np.searchsorted(cuts, signed, side="right")
            for t, label in enumerate(("lowest", "middle", "highest")):
                cells.append(
                    (
                        f"{judge}: {name} of the preferred answer, {label} third",
                        usable & (third == t),
                    )
                )
        for unit, mask in cells:
            idx = np.flatnonzero(mask)
            if idx.size < CHANNEL_CHECK_MIN:
                continue
            h = ch.human[idx]
            shift = channel_shift(draws, X[idx], ch.first[idx], ch.second[idx], j)
            probs = verdict_probs(conf[:, j, h, :], shift)  # (draws, n, verdict)
            agree = np.take_along_axis(probs, h[None, :, None], -1)[..., 0]
            rep = (rng.random(agree.shape) < agree).sum(1)
            obs = int(np.sum(ch.verdicts[idx, j] == h))
            p = 2 * min(np.mean(rep >= obs), np.mean(rep <= obs))
            rows.append(
                {
                    "unit": unit,
                    "observed": float(obs),
                    "expected": float(agree.sum(1).mean()),
                    "p_raw": float(min(1.0, p)),
                    "n": int(idx.size),
                }
            )
    return rows


CHECK = register(
    Check(
        "channel",
        _rows,
        applies_to=("ranking.channel",),
        assumption="each judge's confusion against the human is the fit's channel (shifted "
        "only by the covariates and item favouritism it was given)",
        needs="draws",
        accepts=lambda fit: fit.method == "judge_error",
    )
)
