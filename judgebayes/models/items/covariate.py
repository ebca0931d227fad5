"""The covariate items model: the judge's rates depend on an item's covariates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.priors import AccuracyPriors, judge_rate_variables
from judgebayes.models.items.priors import check_judge_rates, logit, pooled_judge_rates

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def items_covariate_model(
    item_system: np.ndarray,
    item_stratum: np.ndarray,
    z: np.ndarray,
    verdict: np.ndarray,
    human: np.ndarray,
    *,
    systems: tuple[str, ...],
    strata: tuple[str, ...],
    covariates: tuple[str, ...],
    judge_rates: str = "shared",
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""The items design when the judge's errors, and the rate, depend on item covariates.

    Item :math:`i` of system :math:`s`, stratum :math:`t`, with standardised covariates
    :math:`z_i`, true label :math:`h_i` and verdict :math:`v_i`:

    .. math::
        \operatorname{logit} P(h_i = 1) = \operatorname{logit}\theta^{0}_{st}
            + z_i^\top\gamma_s,\qquad
        \operatorname{logit} P(v_i = 1 \mid h_i = 1) = \operatorname{logit} q^{0}_{1,g}
            + z_i^\top\beta_{1,g'},

        \operatorname{logit} P(v_i = 0 \mid h_i = 0) = \operatorname{logit} q^{0}_{0,g}
            + z_i^\top\beta_{0,g'},\qquad
        \theta_s = \frac{1}{N_s}\sum_{i \in s} P(h_i = 1)

    with :math:`\theta^0 \sim \mathrm{Beta}(a_\theta, b_\theta)` (the rate at the
    covariates' mean), :math:`q^0_0, q^0_1` Beta as in :func:`items_accuracy_model`, and
    every slope :math:`\gamma, \beta \sim N(0, \sigma_\beta^2)` (``priors.coef_sd``),
    which shrinks what a few labels would fit to noise.  :math:`g = t` and
    :math:`g' = \cdot` (``judge_rates="shared"``: one judge whose errors follow the
    covariates the same way on every system's items) or :math:`g = (s, t)`,
    :math:`g' = s` (``"per_system"``).  Labelled items contribute
    :math:`P(h_i)P(v_i \mid h_i)`, unlabelled ones :math:`P(v_i)`, summed over
    :math:`h_i`; the likelihood is the full one for any design that labels on the verdict,
    the stratum and the covariates.  :math:`\theta_s` is the process rate over the
    system's own covariate distribution (its items' mean).

    What it is for: with shared judge rates, systems whose answers differ in a covariate
    the judge's errors follow (one system writes longer answers, the judge is lenient on
    long answers) make the constant-rates model wrong for both; here the judge's rates
    are still shared, but as a function of the covariate.

    Parameters
    ----------
    item_system, item_stratum : array of int, shape (N,)
        Each item's codes into ``systems`` and ``strata``.
    z : array of float, shape (N, P)
        Standardised covariates (:func:`standardise`).
    verdict : array of {0, 1}, shape (N,)
        The judge's verdicts.
    human : array of {0, 1, nan}, shape (N,)
        Human labels (NaN or -1: unlabelled).
    systems, strata, covariates : tuple of str
        Coordinates.
    judge_rates : {"shared", "pooled", "per_system"}
        How the judge's rates relate across systems (above).
    priors : AccuracyPriors
        Beta priors of the rates at the covariates' mean; ``coef_sd`` of the slopes.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``theta_stratum`` (system, stratum), ``q0``, ``q1`` (the judge's
        rates at the covariates' mean), ``rate_coef`` (system, covariate), ``q0_coef``,
        ``q1_coef`` (covariate, or system x covariate).
    """
    import pymc as pm
    import pytensor.tensor as pt

    check_judge_rates(judge_rates)
    priors = priors or AccuracyPriors()
    arrs = {
        "item_system": np.asarray(item_system, dtype=np.int64),
        "item_stratum": np.asarray(item_stratum, dtype=np.int64),
        "z": np.asarray(z, dtype=float).reshape(len(item_system), -1),
        "verdict": np.asarray(verdict, dtype=float),
        "human": np.nan_to_num(np.asarray(human, dtype=float), nan=-1.0),
    }
    coords = {"system": list(systems), "stratum": list(strata), "covariate": list(covariates)}
    cells = ("system", "stratum")
    sd = priors.coef_sd

    def log_sigmoid(x):
        return -pt.softplus(-x)

    with pm.Model(coords=coords) as model:
        d = {k: pm.Data(k, v) for k, v in arrs.items()}
        sy, st, zz = d["item_system"], d["item_stratum"], d["z"]
        th0 = pm.Beta("theta_stratum", *priors.theta, dims=cells)
        gamma = pm.Normal("rate_coef", 0.0, sd, dims=("system", "covariate"))
        shared = judge_rates == "shared"
        if judge_rates == "pooled":
            q0, q1 = pooled_judge_rates(priors, cells)
        else:
            q0, q1 = judge_rate_variables(priors, False, dims="stratum" if shared else cells)
        per_system = judge_rates == "per_system"
        cdims = ("system", "covariate") if per_system else "covariate"
        b0 = pm.Normal("q0_coef", 0.0, sd, dims=cdims)
        b1 = pm.Normal("q1_coef", 0.0, sd, dims=cdims)
        eta = logit(th0)[sy, st] + (zz * gamma[sy]).sum(-1)
        at = (st,) if shared else (sy, st)
        i1, i0 = logit(q1)[at], logit(q0)[at]
        if per_system:
            e1 = i1 + (zz * b1[sy]).sum(-1)
            e0 = i0 + (zz * b0[sy]).sum(-1)
        else:
            e1 = i1 + pt.dot(zz, b1)
            e0 = i0 + pt.dot(zz, b0)
        onehot = pt.eq(sy[None, :], pt.arange(len(systems))[:, None])
        mean_of = onehot / pt.maximum(onehot.sum(1, keepdims=True), 1)
        pm.Deterministic("theta", pt.dot(mean_of, pt.sigmoid(eta)), dims="system")
        is_lab = pt.ge(d["human"], 0)
        v, h = d["verdict"], pt.switch(is_lab, d["human"], 0.0)
        # log P(v | h = 1) and log P(v | h = 0), in log space for rates near 0 and 1
        lv1 = v * log_sigmoid(e1) + (1 - v) * log_sigmoid(-e1)
        lv0 = v * log_sigmoid(-e0) + (1 - v) * log_sigmoid(e0)
        lpos, lneg = log_sigmoid(eta) + lv1, log_sigmoid(-eta) + lv0
        labelled = h * lpos + (1 - h) * lneg
        pm.Potential("items", pt.sum(pt.switch(is_lab, labelled, pt.logaddexp(lpos, lneg))))
    return model


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns of ``x`` centred and scaled by their sd (a constant column: scale 1)."""
    x = np.asarray(x, dtype=float)
    mu, sd = x.mean(0), x.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    return (x - mu) / sd, mu, sd
