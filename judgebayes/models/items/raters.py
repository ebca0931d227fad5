"""The latent-truth model of several human raters and the judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.priors import AccuracyPriors

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def raters_items_model(
    counts: np.ndarray,
    said_yes: np.ndarray,
    said_no: np.ndarray,
    *,
    systems: tuple[str, ...],
    judges: tuple[str, ...],
    raters: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Judges and several human raters on the same items, the truth latent (Dawid-Skene with
    the judge in it).

    Every item has a true label :math:`t \sim \mathrm{Bernoulli}(\theta_s)`; judge
    :math:`j` and rater :math:`r` alike say positive with probability :math:`q_{1}` when
    :math:`t = 1` and :math:`1 - q_{0}` when :math:`t = 0`, independently given :math:`t`;
    a rating a rater did not give drops out.  With :math:`x_{Pk} \in \{0, 1\}` pattern
    :math:`P`'s rating by rater or judge :math:`k` and :math:`m_{Pk}` whether it was given,

    .. math::
        \ell_1(P) = \sum_k m_{Pk} [x_{Pk} \log q_{1k} + (1 - x_{Pk}) \log(1 - q_{1k})],\quad
        \ell_0(P) = \sum_k m_{Pk} [x_{Pk} \log(1 - q_{0k}) + (1 - x_{Pk}) \log q_{0k}]

        \log p = \sum_{s, P} n_{sP}\, \mathrm{logaddexp}(\log\theta_s + \ell_1(P),
        \log(1 - \theta_s) + \ell_0(P)).

    The judges' rates have uniform priors; the raters' are
    :math:`1/2 + 1/2 \cdot \mathrm{Beta}` (``priors.rater``), above chance, which is what
    names the latent class "true".  Three or more conditionally independent ratings of an
    item identify the model; raters (or judges) who err together on hard items break it.

    Parameters
    ----------
    counts : array of int, shape (n_systems, n_patterns)
        Items per system and pattern.
    said_yes, said_no : array of float, shape (n_patterns, n_judges + n_raters)
        :math:`m_{Pk} x_{Pk}` and :math:`m_{Pk} (1 - x_{Pk})`: whether pattern ``P`` has
        judge / rater ``k`` (judges first) saying positive, negative (both 0: not given).
        Data, not structure, so one compiled model serves every data set of the same shape.
    systems, judges, raters : tuple of str
        Coordinates.
    priors : AccuracyPriors
        ``theta``, ``q0``, ``q1`` (the judges') and ``rater``.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``q0``, ``q1`` (judge), ``rater_q0``, ``rater_q1`` (rater).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    coords = {
        "system": list(systems),
        "judge": list(judges),
        "rater": list(raters),
        "pattern": list(range(np.shape(counts)[1])),
        "rating": [*judges, *raters],
    }
    with pm.Model(coords=coords) as model:
        n = pm.Data("counts", np.asarray(counts, dtype=float), dims=("system", "pattern"))
        xm = pm.Data("said_yes", np.asarray(said_yes, float), dims=("pattern", "rating"))
        m = pm.Data("said_no", np.asarray(said_no, float), dims=("pattern", "rating"))
        theta = pm.Beta("theta", *priors.theta, dims="system")
        q0 = pm.Beta("q0", *priors.q0, dims="judge")
        q1 = pm.Beta("q1", *priors.q1, dims="judge")
        a0 = pm.Beta("rater_skill0", *priors.rater, dims="rater")
        a1 = pm.Beta("rater_skill1", *priors.rater, dims="rater")
        r0 = pm.Deterministic("rater_q0", 0.5 + 0.5 * a0, dims="rater")
        r1 = pm.Deterministic("rater_q1", 0.5 + 0.5 * a1, dims="rater")
        k0 = pt.concatenate([q0, r0])
        k1 = pt.concatenate([q1, r1])
        ll1 = xm @ pt.log(k1) + m @ pt.log1p(-k1)  # (P,)
        ll0 = xm @ pt.log1p(-k0) + m @ pt.log(k0)
        pos = pt.log(theta)[:, None] + ll1[None, :]
        neg = pt.log1p(-theta)[:, None] + ll0[None, :]
        pm.Potential("items_logp", (n * pt.logaddexp(pos, neg)).sum())
    return model
