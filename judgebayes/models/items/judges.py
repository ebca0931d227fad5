"""The latent-class model of several judges on the same items."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.parts import GH_NODES
from judgebayes.models.accuracy.priors import AccuracyPriors

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def multi_judge_items_model(
    unlabelled: np.ndarray,
    labelled_pos: np.ndarray,
    labelled_neg: np.ndarray,
    patterns: np.ndarray,
    *,
    systems: tuple[str, ...],
    judges: tuple[str, ...],
    judge_rates: str = "shared",
    difficulty: bool = False,
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Several judges on the same items, one human subset: a latent-class model.

    Every item has a true label :math:`h \sim \mathrm{Bernoulli}(\theta_s)`; judge
    :math:`j` says positive with probability :math:`q_{1,j}` when :math:`h = 1` and
    :math:`1 - q_{0,j}` when :math:`h = 0`, the judges' verdicts being **independent given
    the true label** (Dawid & Skene 1979).  With :math:`V` the items' vote patterns,

    .. math::
        \ell_1(V) = \sum_j V_j\log q_{1,j} + (1 - V_j)\log(1 - q_{1,j}),\quad
        \ell_0(V) = \sum_j V_j\log(1 - q_{0,j}) + (1 - V_j)\log q_{0,j}

        \log p = \sum_V u_V\,\mathrm{logaddexp}(\log\theta + \ell_1(V),
        \log(1-\theta) + \ell_0(V)) + \sum_V \big[y_V(\log\theta + \ell_1(V))
        + z_V(\log(1-\theta) + \ell_0(V))\big]

    with :math:`u_V` unlabelled items of pattern :math:`V` and :math:`y_V, z_V` labelled
    human-positive and human-negative ones (any labelling design that selects on the
    verdicts only).  The labels identify every judge's rates, so no better-than-chance
    restriction is needed.  Conditional independence is an assumption (two judges from
    one model family err together); the closed form over the vote count does not make it.

    ``difficulty=True`` relaxes it: each item has a difficulty :math:`x \sim N(0, 1)` that
    lowers every judge's chance of being right,
    :math:`P(\text{judge } j \text{ right} \mid h, x) = \mathrm{logit}^{-1}(\gamma_{j,h}
    - \tau x)`, :math:`\gamma \sim N(1, 1.5)`, :math:`\tau \sim \mathrm{HalfNormal}(1)`,
    so hard items fool the judges together; :math:`x` is integrated out per pattern by
    Gauss-Hermite (:data:`GH_NODES` nodes) and ``q0``, ``q1`` are the rates averaged over
    items.

    Parameters
    ----------
    unlabelled, labelled_pos, labelled_neg : array of int, shape (n_systems, n_patterns)
        Counts per vote pattern.
    patterns : array of int, shape (n_patterns, n_judges)
        The 0/1 vote patterns.
    systems, judges : tuple of str
        Coordinates.
    judge_rates : {"per_system", "shared"}
        Each judge's rates per system or one set for all systems.
    difficulty : bool
        Add the shared item difficulty (above).
    priors : AccuracyPriors
        Beta ``theta``, ``q0``, ``q1``.

    Returns
    -------
    pm.Model
        ``theta`` (system), ``q0``, ``q1`` (judge, or system x judge).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    pat = np.asarray(patterns, dtype=float)
    coords = {"system": list(systems), "judge": list(judges), "pattern": list(range(len(pat)))}
    rate_dims = ("system", "judge") if judge_rates == "per_system" else ("judge",)
    with pm.Model(coords=coords) as model:
        u = pm.Data("unlabelled", np.asarray(unlabelled, dtype=float), dims=("system", "pattern"))
        y = pm.Data("labelled_pos", np.asarray(labelled_pos, float), dims=("system", "pattern"))
        z = pm.Data("labelled_neg", np.asarray(labelled_neg, float), dims=("system", "pattern"))
        theta = pm.Beta("theta", *priors.theta, dims="system")
        v = pt.as_tensor(pat)  # (P, J)
        if difficulty:
            x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
            logw = pt.as_tensor(np.log(w / np.sqrt(2 * np.pi)))
            g0 = pm.Normal("gamma0", 1.0, 1.5, dims=rate_dims)
            g1 = pm.Normal("gamma1", 1.0, 1.5, dims=rate_dims)
            tau = pm.HalfNormal("tau", 1.0)
            if judge_rates != "per_system":
                g0, g1 = g0[None, :], g1[None, :]
            xs = pt.as_tensor(x)[None, :, None]  # (1, K, 1)
            r1 = g1[:, None, :] - tau * xs  # (S, K, J): logit P(right | h = 1, x_k)
            r0 = g0[:, None, :] - tau * xs
            # log P(pattern | h, x_k), then integrate x out: (S, P)
            l1k = pt.tensordot(pt.log(pm.math.invlogit(r1)), v, axes=[[2], [1]]) + pt.tensordot(
                pt.log1p(-pm.math.invlogit(r1)), 1 - v, axes=[[2], [1]]
            )
            l0k = pt.tensordot(pt.log1p(-pm.math.invlogit(r0)), v, axes=[[2], [1]]) + pt.tensordot(
                pt.log(pm.math.invlogit(r0)), 1 - v, axes=[[2], [1]]
            )
            ll1 = pt.logsumexp(l1k + logw[None, :, None], axis=1)
            ll0 = pt.logsumexp(l0k + logw[None, :, None], axis=1)
            wq = w / np.sqrt(2 * np.pi)
            q1m = (pm.math.invlogit(r1) * wq[None, :, None]).sum(axis=1)
            q0m = (pm.math.invlogit(r0) * wq[None, :, None]).sum(axis=1)
            if judge_rates != "per_system":
                q1m, q0m = q1m[0], q0m[0]
            pm.Deterministic("q1", q1m, dims=rate_dims)
            pm.Deterministic("q0", q0m, dims=rate_dims)
        else:
            q0 = pm.Beta("q0", *priors.q0, dims=rate_dims)
            q1 = pm.Beta("q1", *priors.q1, dims=rate_dims)
            if judge_rates != "per_system":
                q0, q1 = q0[None, :], q1[None, :]
            # (S, P): sum over judges of each pattern's log-likelihood given h
            ll1 = pt.log(q1) @ v.T + pt.log1p(-q1) @ (1 - v).T
            ll0 = pt.log1p(-q0) @ v.T + pt.log(q0) @ (1 - v).T
        if difficulty:
            pm.Deterministic("log_lik_pos", ll1, dims=("system", "pattern"))
            pm.Deterministic("log_lik_neg", ll0, dims=("system", "pattern"))
        lt, lf = pt.log(theta)[:, None], pt.log1p(-theta)[:, None]
        pos, neg = lt + ll1, lf + ll0
        pm.Potential("unlabelled_logp", (u * pt.logaddexp(pos, neg)).sum())
        pm.Potential("labelled_logp", (y * pos + z * neg).sum())
    return model
