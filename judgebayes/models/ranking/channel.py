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

**A channel that depends on the comparison.**  A judge's errors may follow what it is
shown: it favours the longer answer, or the answers of a system of its own model family.
With channel covariates :math:`x_r` (standardised differences, first minus second) and/or
item favouritism, the verdict's log-odds of "first" against "second" shift by

.. math::
    s_{rj} = x_r^\top\gamma_j + \delta_{j,a} - \delta_{j,b},\qquad
    \log\Pr(v_{rj} = m \mid h_r = k) = \log\pi_j[k, m] + e_m s_{rj}
    - \log\textstyle\sum_{m'}\pi_j[k, m'] e^{e_{m'} s_{rj}},

with :math:`e = (1/2, -1/2[, 0])` over (first, second[, tie]): at :math:`s = 0` the row is
:math:`\pi_j[k, \cdot]`, and a positive :math:`s` moves verdicts toward the first-shown
answer whatever the human preferred.  Shrinkage keeps a few labels from overfitting:
:math:`\gamma_{jp} \sim N(0, \sigma_\gamma^2)` and :math:`\delta_{j,i} = \tau_j z_{j,i}`,
:math:`z \sim N(0, 1)`, :math:`\tau_j \sim \text{Half-}N(s_\tau)` (non-centred).  The
human-labelled instances identify both (the humans' outcome does not depend on them);
:math:`\delta` is identified up to a constant per judge, which cancels.

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

from judgebayes.models.ranking.model import theta_prior
from judgebayes.models.simplex import dirichlet

__all__ = ["channel_shift", "channel_var_names", "judge_channel_model", "verdict_probs"]

OUTCOMES = ("first", "second", "tie")
#: how the shift s moves each verdict's log-odds: toward "first", away from "second"
SHIFT = np.array([0.5, -0.5, 0.0])


def channel_var_names(
    n_outcomes: int, covariates: bool = False, favour: bool = False
) -> tuple[str, ...]:
    """Reported variables (the gate checks these and every free variable)."""
    extra = (("channel_coef",) if covariates else ()) + (("favour",) if favour else ())
    return ("theta", "confusion", *(("nu",) if n_outcomes == 3 else ()), *extra)


def channel_shift(post: dict, X, first, second, judge: int) -> np.ndarray:
    """Draws of the shift :math:`s` (module docstring) of judge ``judge`` on instances with
    covariate differences ``X`` (n, P) shown as (``first``, ``second``): (draws, n).
    ``post`` maps ``channel_coef`` (draws, J, P) and ``favour`` (draws, J, items) when the
    fit has them.
    """
    n = np.asarray(first).size
    s = 0.0
    if "channel_coef" in post:
        s = s + post["channel_coef"][:, judge, :] @ np.asarray(X, float).T
    if "favour" in post:
        fav = post["favour"][:, judge, :]
        s = s + fav[:, first] - fav[:, second]
    return np.broadcast_to(np.asarray(s, float), (post["confusion"].shape[0], n))


def verdict_probs(conf_rows: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Verdict probabilities from confusion rows (draws, n, K) and shifts (draws, n)."""
    K = conf_rows.shape[-1]
    logit = np.log(conf_rows) + shift[..., None] * SHIFT[:K]
    logit -= logit.max(-1, keepdims=True)
    p = np.exp(logit)
    return p / p.sum(-1, keepdims=True)


def judge_channel_model(
    first,
    second,
    human,
    verdicts,
    weight,
    X=None,
    *,
    items: tuple[str, ...],
    judges: tuple[str, ...],
    n_outcomes: int = 2,
    lam: float = 1.0,
    lam_nu: float = 0.25,
    confusion_diag: float = 4.0,
    confusion_off: float = 1.0,
    channel_covariates: tuple[str, ...] = (),
    favour: bool = False,
    coef_sd: float = 0.5,
    favour_scale: float = 0.5,
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
    X : array of float, shape (G, P), optional
        Channel covariate differences per group (with ``channel_covariates``).
    channel_covariates : tuple of str
        Their names: the judge's errors depend on them (module docstring).
    favour : bool
        Each judge may favour some items' answers (item favouritism :math:`\delta`).
    coef_sd, favour_scale : float
        :math:`\sigma_\gamma` and :math:`s_\tau` (module docstring).

    Returns
    -------
    pm.Model
        ``theta`` (item), ``confusion`` (judge, human, verdict: the rows at :math:`s =
        0`), ``agreement`` (judge, human: :math:`\pi_j[k, k]`), ``nu`` with ties,
        ``channel_coef`` (judge, channel_covariate) and ``favour`` (judge, item) when
        asked, and the potential ``loglik``.
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
        "channel_covariate": list(channel_covariates),
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
        conf = dirichlet(pm, "confusion", alpha, dims=("judge", "human_outcome", "verdict"))
        pm.Deterministic(
            "agreement", conf[:, np.arange(K), np.arange(K)], dims=("judge", "human_outcome")
        )
        # each verdict as a one-hot row over the outcomes (a missing verdict: a row of
        # zeros, which adds log 1 = 0 for every human outcome); the judges' terms are then
        # sums and one tensor product, with no gather over the groups (a gather of the
        # (G, J, human, verdict) tensor compiled slower)
        onehot = pt.cast(pt.eq(v[:, :, None], pt.arange(K)), "float64")  # (G, J, verdict)
        # sum over judges and verdicts of log pi_j[h, v_gj]: (G, human)
        picked = pt.tensordot(onehot, pt.log(conf), axes=[[1, 2], [0, 2]])
        if channel_covariates or favour:
            s = pt.zeros(v.shape, dtype="float64")  # (G, J)
            if channel_covariates:
                xd = pm.Data("X", np.asarray(X, dtype=float).reshape(G, len(channel_covariates)))
                coef = pm.Normal("channel_coef", 0.0, coef_sd, dims=("judge", "channel_covariate"))
                s = s + xd @ coef.T
            if favour:
                tau = pm.HalfNormal("favour_sd", favour_scale, dims="judge")
                z = pm.Normal("favour_z", 0.0, 1.0, dims=("judge", "item"))
                fav = pm.Deterministic("favour", tau[:, None] * z, dims=("judge", "item"))
                s = s + (fav[:, a] - fav[:, b]).T
            # each row shifted by s * SHIFT and renormalised: log pi_j[h, v] + s SHIFT[v]
            # - log sum_k pi_j[h, k] exp(s SHIFT[k])
            shift = pt.as_tensor(SHIFT[:K])
            picked = picked + (s * (onehot * shift).sum(-1)).sum(1)[:, None]
            norm = (conf[None] * pt.exp(s[:, :, None, None] * shift)).sum(-1)  # (G, J, human)
            present = pt.cast(v < K, "float64")  # (G, J): the judge gave a verdict
            picked = picked - (present[:, :, None] * pt.log(norm)).sum(1)
        lp = log_p_h + picked + log_mask  # (G, K)
        pm.Potential("loglik", (w * pt.logsumexp(lp, axis=1)).sum())
    return model
