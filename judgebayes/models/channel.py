r"""PyMC builder of the judge-error ranking: a judge's verdict as a noisy copy of the human
preference (never sample here).

Instance :math:`r` shows item :math:`a` first and :math:`b` second.  The human outcome
:math:`h_r \in \{\text{first}, \text{second}[, \text{tie}]\}` follows Bradley-Terry, with
Davidson's tie model when ties occur:

.. math::
    \Pr(h_r = k) = \operatorname{softmax}_k\big(\eta_r/2,\; -\eta_r/2\;[,\; \log\nu]\big),
    \qquad \eta_r = \theta_a - \theta_b .

Judge :math:`j`'s verdict is a noisy channel of it, with a confusion matrix per judge
(rows: the human outcome; columns: the verdict), position-aware because outcomes are
positions ("first wins"), so a judge who favours the first-shown answer has a larger
:math:`\pi_j[\text{second}, \text{first}]` than :math:`\pi_j[\text{first}, \text{second}]`:

.. math::
    \Pr(v_{rj} = m \mid h_r = k) = \pi_j[k, m], \qquad
    \pi_j[k, \cdot] \sim \operatorname{Dirichlet}(\alpha_k), \quad
    \alpha_{k,m} = \begin{cases} a_\text{diag} & m = k \\ a_\text{off} & m \ne k
    \end{cases}

Judges are conditionally independent given the human outcome (the assumption that
remains: two judges that err on the same hard instances are counted as two independent
witnesses).  An instance with a human label contributes
:math:`\log\Pr(h_r) + \sum_j \log\pi_j[h_r, v_{rj}]`; one without contributes
:math:`\log\sum_k \Pr(h_r = k)\prod_j \pi_j[k, v_{rj}]`; a missing verdict contributes
nothing.  The data enter as group counts (:meth:`ChannelData.groups`).

:math:`\theta \sim N(0, I/\lambda)` as in :mod:`judgebayes.models.ranking`;
:math:`\log\nu \sim N(0, 1/\lambda_\nu)`.
"""

from __future__ import annotations

import numpy as np

from judgebayes.models.ranking import theta_prior

__all__ = ["channel_var_names", "judge_channel_model"]

OUTCOMES = ("first", "second", "tie")


def channel_var_names(n_outcomes: int) -> tuple[str, ...]:
    """Reported variables (the gate checks these and every free variable)."""
    return ("theta", "confusion", *(("nu",) if n_outcomes == 3 else ()))


def judge_channel_model(
    first,
    second,
    human,
    verdicts,
    weight,
    *,
    items: tuple[str, ...],
    judges: tuple[str, ...],
    n_outcomes: int = 2,
    lam: float = 1.0,
    lam_nu: float = 0.25,
    confusion_diag: float = 4.0,
    confusion_off: float = 1.0,
):
    r"""Build the judge-error ranking model.

    Parameters
    ----------
    first, second : array of int, shape (G,)
        Items of each group, in presentation order.
    human : array of int, shape (G,)
        Human outcome code (0 first, 1 second, 2 tie, -1 not labelled).
    verdicts : array of int, shape (G, J)
        Judge verdict codes (same codes; -1 no verdict).
    weight : array of float, shape (G,)
        Instances in each group.
    items, judges : tuple of str
        Coordinates.
    n_outcomes : {2, 3}
        3 with Davidson ties.
    lam, lam_nu : float
        Prior precisions of theta and of log nu.
    confusion_diag, confusion_off : float
        Dirichlet concentrations of a confusion row (agreeing verdict, others).

    Returns
    -------
    pm.Model
        ``theta`` (item), ``confusion`` (judge, human, verdict), ``agreement`` (judge,
        human: :math:`\pi_j[k, k]`), ``nu`` with ties, and the potential ``loglik``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    K = int(n_outcomes)
    if K not in (2, 3):
        raise ValueError(f"n_outcomes must be 2 or 3, got {n_outcomes!r}")
    verdicts = np.asarray(verdicts, dtype=np.int64)
    G, J = verdicts.shape
    human = np.asarray(human, dtype=np.int64)
    coords = {
        "item": list(items),
        "judge": list(judges),
        "human_outcome": list(OUTCOMES[:K]),
        "verdict": list(OUTCOMES[:K]),
    }
    # which human outcomes each group allows: its label, or all of them when unlabelled
    allowed = (human[:, None] < 0) | (human[:, None] == np.arange(K)[None, :])
    alpha = np.full((J, K, K), float(confusion_off))
    alpha[:, np.arange(K), np.arange(K)] = float(confusion_diag)
    with pm.Model(coords=coords) as model:
        a = pm.Data("first", np.asarray(first, dtype=np.int64))
        b = pm.Data("second", np.asarray(second, dtype=np.int64))
        v = pm.Data("verdicts", np.where(verdicts < 0, K, verdicts))
        w = pm.Data("weight", np.asarray(weight, dtype=float))
        log_mask = pm.Data("log_mask", np.where(allowed, 0.0, -np.inf))
        th = theta_prior(pm, len(items), lam)
        eta = th[a] - th[b]
        cols = [eta / 2, -eta / 2]
        if K == 3:
            log_nu = pm.Normal("log_nu", 0.0, 1.0 / np.sqrt(lam_nu))
            pm.Deterministic("nu", pt.exp(log_nu))
            cols.append(pt.zeros_like(eta) + log_nu)
        u = pt.stack(cols, axis=1)  # (G, K)
        log_p_h = u - pt.logsumexp(u, axis=1, keepdims=True)
        conf = pm.Dirichlet("confusion", a=alpha, dims=("judge", "human_outcome", "verdict"))
        pm.Deterministic(
            "agreement", conf[:, np.arange(K), np.arange(K)], dims=("judge", "human_outcome")
        )
        # (J, verdict + "none", human): a missing verdict adds log 1 = 0 for every outcome
        log_c = pt.concatenate([pt.log(conf).dimshuffle(0, 2, 1), pt.zeros((J, 1, K))], axis=1)
        judge_idx = np.broadcast_to(np.arange(J)[None, :], (G, J))
        lp = log_p_h + log_c[judge_idx, v].sum(axis=1) + log_mask  # (G, K)
        pm.Potential("loglik", (w * pt.logsumexp(lp, axis=1)).sum())
    return model
