"""The paired items model: several systems' verdicts on the same items."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.priors import AccuracyPriors
from judgebayes.models.simplex import dirichlet

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


#: most systems the paired model takes (its joint has 2 ** S cells)
PAIRED_MAX_SYSTEMS = 8


def truth_states(n_systems: int) -> np.ndarray:
    """Every joint truth of ``n_systems`` answers to one item, (2 ** S, S) of 0/1."""
    return ((np.arange(2**n_systems)[:, None] >> np.arange(n_systems)[::-1]) & 1).astype(np.int64)


def pattern_masks(verdict: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each pattern, which joint verdicts (``V``, (P, W)) and joint truths (``L``,
    (P, T)) it is compatible with: a system without a verdict (label) allows either.
    """
    v, h = np.asarray(verdict), np.asarray(human)
    states = truth_states(v.shape[1])  # (T, S); also the joint verdicts
    V = np.all((v[:, None, :] < 0) | (v[:, None, :] == states[None]), -1).astype(float)
    L = np.all((h[:, None, :] < 0) | (h[:, None, :] == states[None]), -1).astype(float)
    return V, L


def paired_items_model(
    counts: np.ndarray,
    verdict: np.ndarray,
    human: np.ndarray,
    *,
    systems: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Several systems answering the same items, one judge: joint verdicts, joint truths.

    Each item :math:`i` has a joint verdict :math:`w_i \in \{0, 1\}^S` (which answers the
    judge passed) and a joint truth :math:`t_i \in \{0, 1\}^S` (which systems answered it
    right), with

    .. math::
        w_i \sim \mathrm{Categorical}(s),\quad
        s \sim \mathrm{Dirichlet}(2^{1-S}),\qquad
        t_i \mid w_i \sim \mathrm{Categorical}(r_{w_i}),\quad
        r_w \sim \mathrm{Dirichlet}(\alpha),\quad
        \alpha_t = (a + b)\prod_s \rho^{t_s}(1 - \rho)^{1 - t_s},\ \rho = a / (a + b),

    the parametrisation of the exact paired posterior
    (:mod:`judgebayes.inference.items.paired`) and of the closed form's joint verdict
    categories: the verdicts' shares and the truths given a verdict.  Nothing is assumed
    about how the systems' truths relate (an item hard for one system may be hard for all:
    the pairing) or about how the judge errs: on each system differently (self-preference),
    or on the answers to one prompt together (a grader that compares the answers with the
    same reference passes or fails them together).  Each system's human rate within a
    joint verdict, :math:`\sum_{t: t_s = 1} r_{wt}`, is a priori the items prior
    Beta(:math:`a, b`) (Beta(1/2, 1/2) by default); the rate
    :math:`\theta_s = \sum_w s_w \sum_{t: t_s = 1} r_{wt}` has that prior's mean.
    An item's likelihood sums over the joint verdicts its verdicts allow and the joint
    truths its labels allow (a missing verdict or label allows both values):
    :math:`\sum_w V_{iw} s_w \sum_t r_{wt} L_{it}` (:func:`pattern_masks`).  Differences
    :math:`\theta_a - \theta_b` are paired: both are sums over the same :math:`s` and
    :math:`r`.

    Parameters
    ----------
    counts : array of int, shape (P,)
        Items per pattern.
    verdict, human : array of int, shape (P, S)
        Each pattern's verdict and human label per system (1, 0, or -1: none).
    systems : tuple of str
        Coordinates (at most :data:`PAIRED_MAX_SYSTEMS`).
    priors : AccuracyPriors
        ``theta`` (sets :math:`\alpha`).

    Returns
    -------
    pm.Model
        ``theta`` (system), ``share`` (verdict), ``given`` (verdict, state), and the
        potential ``loglik``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    S = len(systems)
    states = truth_states(S)  # (T, S): the joint truths, and the joint verdicts
    names = ["".join(map(str, t)) for t in states]
    V, L = pattern_masks(verdict, human)
    a, b = (float(x) for x in priors.theta)
    rho = a / (a + b)
    conc = (a + b) * np.prod(np.where(states == 1, rho, 1 - rho), axis=1)  # (T,)
    with pm.Model(coords={"system": list(systems), "state": names, "verdict": names}) as model:
        c = pm.Data("counts", np.asarray(counts, dtype=float))
        share = dirichlet(pm, "share", np.full(len(states), 2.0 ** (1 - S)), dims="verdict")
        given = dirichlet(pm, "given", np.tile(conc, (len(states), 1)), dims=("verdict", "state"))
        allowed = pt.dot(pt.as_tensor(L), given.T)  # (P, W): P(labels seen | w)
        lik = (pt.as_tensor(V) * allowed * share[None, :]).sum(-1)
        pm.Potential("loglik", (c * pt.log(pt.maximum(lik, 1e-300))).sum())
        truth = pt.dot(share, given)  # (T,): the joint truths' shares
        pm.Deterministic("theta", pt.dot(truth, pt.as_tensor(states.astype(float))), dims="system")
    return model
