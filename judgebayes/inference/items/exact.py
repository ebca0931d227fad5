r"""Exact posterior of the items design.

Exact posterior
---------------
The prior is uniform on :math:`\theta, q_0, q_1` (the parameters of the Laplace and
NUTS models).  In the :math:`(p, a, b)` parametrisation with independent Beta priors the
posterior is conjugate, :math:`p \sim \mathrm{Beta}(1 + N_1, 1 + N_0)`, :math:`a \sim
\mathrm{Beta}(\alpha + H_1, \alpha + L_1 - H_1)`, :math:`b \sim \mathrm{Beta}(\alpha +
H_0, \alpha + L_0 - H_0)`; its draws are importance-resampled to the stated prior
(:func:`exact_items_draws`), and those of :math:`R` add :math:`\mathrm{Bin}(U_1, a) +
\mathrm{Bin}(U_0, b)` unlabelled positives.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import InputError
from judgebayes.inference.items.estimate import category_counts, check_estimand
from judgebayes.models.items import ITEMS_THETA_PRIOR

#: Beta parameter of the proposal on each verdict category's human rate: the draws of the
#: stated prior's posterior are importance-resampled from this conjugate one.  With
#: Beta(a, a) on the human rates the rate the proposal implies has a density
#: proportional to theta^(2a - 1) near 0 (and 1), so a = 1/4 matches the Jeffreys prior's
#: theta^(-1/2) there and the weights stay bounded at the edges (at least 1,900 effective
#: of 16,000 proposals at rates 0.01-0.99 with 20-50 labels; a = 1/2 gave 44)
PROPOSAL_A = 0.25


#: proposal draws per returned draw
OVERSAMPLE = 4


def exact_items_draws(
    data: ItemData,
    draws: int,
    rng: np.random.Generator,
    estimand: str = "items",
    theta_prior: tuple[float, float] = ITEMS_THETA_PRIOR,
) -> dict[str, np.ndarray]:
    r"""Exact posterior draws of theta and of the N-item rate under the stated prior.

    The prior is set on the rate itself, as in the Laplace and NUTS models: per stratum,
    :math:`\theta \sim \mathrm{Beta}(a, b)` (``theta_prior``; the items design's default
    is Jeffreys's (1/2, 1/2), :data:`judgebayes.models.items.ITEMS_THETA_PRIOR`) and the
    distribution of the verdict category given the
    human label uniform on its simplex for each label, :math:`P(c \mid h) \sim
    \mathrm{Dirichlet}(1)` (with one judge: :math:`q_0, q_1 \sim U(0, 1)`).  Nothing is
    assumed about how several judges' errors relate: the joint of (human, category) is
    unrestricted.

    Computed by importance resampling of the conjugate posterior in the (category share
    :math:`s_c`, human rate :math:`A_c`) parametrisation with priors Dirichlet(1) and
    Beta(:data:`PROPOSAL_A`, :data:`PROPOSAL_A`).  The cell probabilities are
    :math:`\pi_{1c} = s_c A_c = \theta r_{1c}`, :math:`\pi_{0c} = s_c(1 - A_c) = (1 -
    \theta) r_{0c}`; the Jacobians to :math:`\pi` are :math:`\prod_c s_c` and
    :math:`(\theta(1 - \theta))^{K-1}`, so the log weight of a proposal draw is

    .. math:: \sum_c \log s_c + (1 - a_p)\sum_c \log A_c(1 - A_c)
              + (a - K)\log\theta + (b - K)\log(1 - \theta)

    summed over strata (:math:`a_p` = :data:`PROPOSAL_A`).  Why Jeffreys: a uniform prior on
    the rate under-covers at true rates near 0 and 1 with 20 labels (one labelled positive
    in 20 puts a rate of 0.01 below the 2.5% quantile of Beta(2, 20)); Jeffreys's covers
    over the whole range, with narrower intervals at the edges (BENCHMARKS.md, the items
    design at the edges).

    Returns ``{"theta": (draws, S), "theta_items": (draws, S), "human_rate", "share":
    (draws, S, T, K), "ess": (S,)}`` (``ess``: effective proposal draws per system).
    """
    check_estimand(estimand)
    if data.weights is not None or data.cluster is not None:
        field = "weights" if data.weights is not None else "cluster"
        raise InputError(
            f"method='exact' is the posterior of simple random or stratified labelling of "
            f"independent items; with {field} use 'closed_form' (design-based)",
            field=field,
            value=data.columns.get(field),
        )
    c = category_counts(data)
    k = c["n"].shape[-1]
    m = OVERSAMPLE * draws
    shape = (m, *c["n"].shape)
    tiny = np.finfo(float).tiny
    g = rng.gamma(1.0 + c["n"], size=shape)
    share = np.maximum(g / g.sum(-1, keepdims=True), tiny)
    rate = np.clip(
        rng.beta(PROPOSAL_A + c["h"], PROPOSAL_A + c["l"] - c["h"], size=shape), tiny, 1 - 1e-16
    )
    th_st = np.clip((share * rate).sum(-1), tiny, 1 - 1e-16)
    a, b = (float(x) for x in theta_prior)
    log_w = (
        np.log(share).sum(-1)
        + (1 - PROPOSAL_A) * np.log(rate * (1 - rate)).sum(-1)
        + (a - k) * np.log(th_st)
        + (b - k) * np.log1p(-th_st)
    ).sum(-1)  # (m, S)
    w = np.exp(log_w - log_w.max(0))
    w /= w.sum(0)
    ess = 1.0 / (w**2).sum(0)
    ns = w.shape[1]
    idx = np.stack([rng.choice(m, size=draws, p=w[:, s]) for s in range(ns)], axis=1)
    sys_ix = np.arange(ns)[None, :]
    share, rate = share[idx, sys_ix], rate[idx, sys_ix]  # (draws, S, T, K)
    n_st = c["n"].sum(-1).astype(float)
    n_s = n_st.sum(-1)
    theta = (n_st * (share * rate).sum(-1)).sum(-1) / n_s
    extra = rng.binomial(c["n"] - c["l"], rate).sum((-1, -2))
    items = (c["h"].sum((-1, -2)) + extra) / n_s
    return {"theta": theta, "theta_items": items, "human_rate": rate, "share": share, "ess": ess}
